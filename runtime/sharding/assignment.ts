// Who owns which part of the hash space: the space is cut into equal buckets (a power of two), and each bucket goes to
// the live member that ranks it highest (rendezvous hashing). Every member computes the same answer from the member
// names alone; a member joining takes ~1/N of the buckets, only from others, and a member leaving hands only its own.
import { fnv1a64 } from "./hash.js";
import { HASH_SPACE, normalizeRanges, type HashRange } from "./ranges.js";

/** Default bucket count: per-member shares within a few percent for a handful of members, selectors of ~60 ranges. */
export const DEFAULT_BUCKETS = 256;

/** Checks a bucket count: a power of two from 1 to 65536. */
export function checkBucketCount(buckets: number): number {
  if (!Number.isInteger(buckets) || buckets < 1 || buckets > 65536 || (buckets & (buckets - 1)) !== 0)
    throw new Error(`sharding: buckets must be a power of two from 1 to 65536, got ${buckets}`);
  return buckets;
}

function bucketBits(buckets: number): bigint {
  return BigInt(Math.log2(buckets));
}

/** The bucket a hash falls in: its top log2(buckets) bits. */
export function bucketOf(hash: bigint, buckets: number): number {
  return Number(hash >> (64n - bucketBits(buckets)));
}

/** The hash range of one bucket. */
export function bucketRange(bucket: number, buckets: number): HashRange {
  const width = HASH_SPACE / BigInt(buckets);
  return { start: BigInt(bucket) * width, end: BigInt(bucket + 1) * width };
}

/** The ranges of a set of buckets, adjacent buckets joined. */
export function rangesOfBuckets(set: Iterable<number>, buckets: number): HashRange[] {
  return normalizeRanges([...set].map((b) => bucketRange(b, buckets)));
}

const MASK64 = (1n << 64n) - 1n;

/** splitmix64's finalizer: FNV-1a alone mixes short inputs poorly into the high bits rendezvous compares. */
function mix64(value: bigint): bigint {
  let z = value & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/**
 * Rendezvous assignment: for each bucket, the member with the highest weight (ties to the smaller name). Returns the
 * buckets of every member (members with none get an empty list).
 */
export function assignBuckets(members: readonly string[], buckets: number): Map<string, number[]> {
  checkBucketCount(buckets);
  const unique = [...new Set(members)].sort();
  const result = new Map<string, number[]>(unique.map((m) => [m, []]));
  if (unique.length === 0) return result;
  const seeds = unique.map((m) => fnv1a64(m));
  for (let b = 0; b < buckets; b++) {
    let best = 0;
    let bestWeight = -1n;
    const salt = BigInt(b) * 0x9e3779b97f4a7c15n;
    for (let i = 0; i < unique.length; i++) {
      const weight = mix64((seeds[i] as bigint) ^ salt);
      if (weight > bestWeight) {
        best = i;
        bestWeight = weight;
      }
    }
    result.get(unique[best] as string)?.push(b);
  }
  return result;
}
