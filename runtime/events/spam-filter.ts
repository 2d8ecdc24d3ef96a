// client-go's EventSourceObjectSpamFilter (tools/record/events_cache.go): a token bucket per reporting source and
// object, so one object that keeps failing cannot flood the API server while other objects still get their events.
import { LRUCache } from "lru-cache";
import type { Clock } from "../clock/clock.js";

/** client-go's defaults: a source may burst 25 events about an object, then 1 more every 5 minutes. */
export const SPAM_BURST = 25;
export const SPAM_REFILL_PER_SECOND = 1 / 300;
/** client-go's maxLruCacheEntries: the objects remembered; the least recently seen one is forgotten first. */
export const SPAM_CACHE_ENTRIES = 4096;

interface Bucket {
  tokens: number;
  at: number;
}

export class EventSpamFilter {
  /** Made at the first event: lru-cache sets aside all its entries up front (0.07 MB), idle in most controllers. */
  private buckets: LRUCache<string, Bucket> | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly burst = SPAM_BURST,
    private readonly perSecond = SPAM_REFILL_PER_SECOND,
  ) {}

  /** Takes a token of key's bucket (full when new); false when there is none: drop the event. */
  allow(key: string): boolean {
    const now = this.clock.now();
    this.buckets ??= new LRUCache<string, Bucket>({ max: SPAM_CACHE_ENTRIES });
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    return allowed;
  }
}
