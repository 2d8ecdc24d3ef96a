// Who owns which part of the hash space: the space is cut into equal buckets (a power of two), and each bucket goes to
// the live member that ranks it highest (rendezvous hashing) among those not yet at ⌈buckets/N⌉ (bounded load).
// Every member computes the same answer from the member names alone. The cap evens the shares (independent choices
// gave 0.39/0.32/0.29 of 256 buckets to three members; capped, at most 86/256 = 0.336), for a few more moves: a
// join moves ~1/(N+1) of the buckets, nearly all to the joiner, a leave mostly the leaver's.
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
 * Bounded-load rendezvous assignment: (bucket, member) pairs taken in order of weight, highest first (ties to the
 * smaller name, then the smaller bucket); a pair assigns its bucket when the bucket is free and the member holds fewer
 * than ⌈buckets/N⌉. Returns the buckets of every member, ascending (members with none get an empty list).
 */
export function assignBuckets(members: readonly string[], buckets: number): Map<string, number[]> {
  checkBucketCount(buckets);
  const unique = [...new Set(members)].sort();
  const result = new Map<string, number[]>(unique.map((m) => [m, []]));
  if (unique.length === 0) return result;
  const seeds = unique.map((m) => fnv1a64(m));
  const pairs: Array<{ bucket: number; member: number; weight: bigint }> = [];
  for (let bucket = 0; bucket < buckets; bucket++) {
    const salt = BigInt(bucket) * 0x9e3779b97f4a7c15n;
    for (let member = 0; member < unique.length; member++)
      pairs.push({ bucket, member, weight: mix64((seeds[member] as bigint) ^ salt) });
  }
  pairs.sort((x, y) =>
    x.weight !== y.weight ? (x.weight > y.weight ? -1 : 1) : x.member - y.member || x.bucket - y.bucket,
  );
  const cap = Math.ceil(buckets / unique.length);
  const owner = new Array<number>(buckets).fill(-1);
  const held = new Array<number>(unique.length).fill(0);
  for (const { bucket, member } of pairs) {
    if (owner[bucket] !== -1 || (held[member] as number) >= cap) continue;
    owner[bucket] = member;
    held[member] = (held[member] as number) + 1;
  }
  owner.forEach((member, bucket) => result.get(unique[member] as string)?.push(bucket));
  return result;
}
