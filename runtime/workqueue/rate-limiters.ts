// Rate limiters deciding how long a requeued item waits, as in client-go util/workqueue/default_rate_limiters.go.

import { realClock, type Clock } from "../clock/clock.js";

export interface RateLimiter<T> {
  /** Delay in ms before item may be processed again; counts as one more requeue. */
  when(item: T): number;
  /** Stops tracking item (e.g. after it succeeded), resetting its backoff. */
  forget(item: T): void;
  /** How many times item has been requeued. */
  numRequeues(item: T): number;
}

/** Per-item exponential backoff: baseDelayMs * 2^failures, capped at maxDelayMs. */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseDelayMs * 2 ** exp;
    // 2^exp becomes Infinity after ~1024 failures (NaN if base is 0); client-go likewise guards int64 overflow.
    if (!Number.isFinite(backoff) || backoff > this.maxDelayMs) return this.maxDelayMs;
    return backoff;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** Per-item: fastDelayMs for the first maxFastAttempts requeues, slowDelayMs after that (until forget). */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly fastDelayMs: number,
    private readonly slowDelayMs: number,
    private readonly maxFastAttempts: number,
  ) {}

  when(item: T): number {
    const failures = (this.failures.get(item) ?? 0) + 1;
    this.failures.set(item, failures);
    return failures <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * One token bucket shared by all items (golang.org/x/time/rate Reserve().Delay()): every call
 * takes a token, borrowing from the future when empty, and returns the wait until that token exists.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    if (!(qps > 0)) throw new RangeError(`BucketRateLimiter: qps must be > 0, got ${qps}`);
    if (!(burst >= 1)) throw new RangeError(`BucketRateLimiter: burst must be >= 1, got ${burst}`);
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_item: T): number {
    if (this.qps === Infinity) return 0;
    const now = this.clock.now();
    // Refill for the time passed since the last reservation; like x/time/rate, a clock that went
    // back just restarts the count from now.
    const elapsedMs = Math.max(0, now - this.last);
    this.tokens = Math.min(this.burst, this.tokens + (elapsedMs * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    return (-this.tokens * 1000) / this.qps;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** Combines limiters: the longest delay wins; every limiter is consulted so each keeps its own count. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let max = 0;
    for (const limiter of this.limiters) max = Math.max(max, limiter.when(item));
    return max;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    let max = 0;
    for (const limiter of this.limiters) max = Math.max(max, limiter.numRequeues(item));
    return max;
  }
}

/** Wraps a limiter so that no delay exceeds maxDelayMs; counting and forgetting are the wrapped limiter's. */
export class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {
  constructor(
    private readonly limiter: RateLimiter<T>,
    private readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    return Math.min(this.limiter.when(item), this.maxDelayMs);
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }
}

/** client-go DefaultControllerRateLimiter: max(per-item 5 ms * 2^n up to 1000 s, overall 10 qps with burst 100). */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
