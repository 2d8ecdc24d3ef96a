// A set of buckets as a Lease annotation carries it: a bitmap in hex, bucket 0 the top bit of the first digit.
import { checkBucketCount } from "./assignment.js";

/** Encodes the buckets as a hex bitmap of ceil(buckets/4) digits. */
export function encodeBuckets(set: Iterable<number>, buckets: number): string {
  const digits = new Uint8Array(Math.ceil(checkBucketCount(buckets) / 4));
  for (const b of set) if (b >= 0 && b < buckets) digits[b >> 2]! |= 8 >> (b & 3);
  return Array.from(digits, (d) => d.toString(16)).join("");
}

/** Decodes a bitmap written by encodeBuckets; a malformed or missing value is the empty set. */
export function decodeBuckets(value: string | undefined, buckets: number): Set<number> {
  const set = new Set<number>();
  if (!value || !/^[0-9a-f]*$/.test(value)) return set;
  for (let i = 0; i < value.length; i++) {
    const d = parseInt(value[i] as string, 16);
    for (let bit = 0; bit < 4; bit++) {
      const b = i * 4 + bit;
      if (d & (8 >> bit) && b < buckets) set.add(b);
    }
  }
  return set;
}
