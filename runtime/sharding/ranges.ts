// Half-open ranges of the 64-bit hash space, and the shardSelector string that asks the API server for them.
import { shardFieldPath, type ShardField } from "./hash.js";

/** The size of the hash space, 2^64: the exclusive end of the last range. */
export const HASH_SPACE = 1n << 64n;

/** [start, end) of the hash space; end ≤ 2^64. */
export interface HashRange {
  readonly start: bigint;
  readonly end: bigint;
}

/** The ranges sorted, with overlapping and touching ones joined. */
export function normalizeRanges(ranges: readonly HashRange[]): HashRange[] {
  const sorted = ranges
    .filter((r) => r.start < r.end)
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: HashRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end)
      out[out.length - 1] = { start: last.start, end: r.end > last.end ? r.end : last.end };
    else out.push(r);
  }
  return out;
}

/** True when hash falls in one of the (normalized) ranges; a binary search, as selectors may hold many ranges. */
export function rangesContain(ranges: readonly HashRange[], hash: bigint): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid] as HashRange;
    if (hash < r.start) hi = mid - 1;
    else if (hash >= r.end) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The part of the space the ranges cover, from 0 to 1. */
export function rangesFraction(ranges: readonly HashRange[]): number {
  let covered = 0n;
  for (const r of normalizeRanges(ranges)) covered += r.end - r.start;
  return Number((covered * 1_000_000n) / HASH_SPACE) / 1_000_000;
}

/** What `after` covers and `before` did not (normalized). */
export function subtractRanges(after: readonly HashRange[], before: readonly HashRange[]): HashRange[] {
  const out: HashRange[] = [];
  const cut = normalizeRanges(before);
  for (const r of normalizeRanges(after)) {
    let start = r.start;
    for (const c of cut) {
      if (c.end <= start || c.start >= r.end) continue;
      if (c.start > start) out.push({ start, end: c.start });
      start = c.end > start ? c.end : start;
      if (start >= r.end) break;
    }
    if (start < r.end) out.push({ start, end: r.end });
  }
  return out;
}

/** The API server's bound format: "0x" and exactly 16 lowercase hex digits, or "0x10000000000000000" for 2^64. */
export function hexBound(value: bigint): string {
  return value === HASH_SPACE ? "0x10000000000000000" : `0x${value.toString(16).padStart(16, "0")}`;
}

/**
 * The shardSelector for ranges (KEP-5866): `shardRange(object.metadata.uid, '0x…', '0x…') || …`. undefined when the
 * ranges cover the whole space (no selector: everything) ; an empty range list has no selector either, so callers
 * check for it (an informer then lists nothing).
 */
export function shardSelector(ranges: readonly HashRange[], field: ShardField = "uid"): string | undefined {
  const normalized = normalizeRanges(ranges);
  if (normalized.length === 0) return undefined;
  const first = normalized[0] as HashRange;
  if (normalized.length === 1 && first.start === 0n && first.end === HASH_SPACE) return undefined;
  const path = shardFieldPath(field);
  return normalized.map((r) => `shardRange(${path}, '${hexBound(r.start)}', '${hexBound(r.end)}')`).join(" || ");
}
