// Rate limiter delays (client-go default_rate_limiters.go): exponential per item, token bucket, max of both.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
} from "@crdgen/runtime/workqueue";
import { FakeClock } from "@crdgen/runtime/testing";

test("exponential limiter doubles from 5 ms and caps at 1000 s", () => {
  const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
  const delays = Array.from({ length: 20 }, () => limiter.when("ns/a"));
  assert.deepEqual(delays.slice(0, 5), [5, 10, 20, 40, 80]);
  assert.equal(delays[17], 655_360, "18th call: 5 ms * 2^17");
  assert.equal(delays[18], 1_000_000, "capped from the 19th call");
  assert.equal(delays[19], 1_000_000);
  assert.equal(limiter.numRequeues("ns/a"), 20);
});

test("exponential limiter tracks items separately and forget resets one", () => {
  const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
  limiter.when("ns/a");
  limiter.when("ns/a");
  assert.equal(limiter.when("ns/b"), 5);
  assert.equal(limiter.numRequeues("ns/a"), 2);
  limiter.forget("ns/a");
  assert.equal(limiter.numRequeues("ns/a"), 0);
  assert.equal(limiter.when("ns/a"), 5);
  assert.equal(limiter.numRequeues("ns/b"), 1);
});

test("exponential limiter returns the cap instead of overflowing after many failures", () => {
  const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
  let last = 0;
  for (let i = 0; i < 2000; i++) last = limiter.when("ns/a");
  assert.equal(last, 1_000_000);
});

test("bucket limiter gives the burst immediately, then spaces reservations 100 ms apart at 10 qps", () => {
  const limiter = new BucketRateLimiter<string>(10, 100, new FakeClock());
  for (let i = 0; i < 100; i++) assert.equal(limiter.when(`ns/${i}`), 0, `call ${i + 1}`);
  assert.deepEqual([limiter.when("ns/x"), limiter.when("ns/y"), limiter.when("ns/z")], [100, 200, 300]);
  assert.equal(limiter.numRequeues("ns/x"), 0);
});

test("bucket limiter refills one token per 100 ms at 10 qps", () => {
  const clock = new FakeClock();
  const limiter = new BucketRateLimiter<string>(10, 100, clock);
  for (let i = 0; i < 100; i++) limiter.when("ns/a");
  clock.step(100);
  assert.equal(limiter.when("ns/a"), 0);
  assert.equal(limiter.when("ns/a"), 100);
});

test("max-of limiter returns the longest delay and consults every limiter", () => {
  const clock = new FakeClock();
  const limiter = new MaxOfRateLimiter<string>(
    new ItemExponentialFailureRateLimiter<string>(5, 1_000_000),
    new BucketRateLimiter<string>(10, 100, clock),
  );
  for (let i = 0; i < 100; i++) assert.equal(limiter.when(`ns/${i}`), 5, "per-item backoff dominates");
  assert.equal(limiter.when("ns/0"), 100, "bucket dominates once the burst is spent");
  assert.equal(limiter.when("ns/0"), 200);
  assert.equal(limiter.numRequeues("ns/0"), 3);
  limiter.forget("ns/0");
  assert.equal(limiter.numRequeues("ns/0"), 0);
  clock.step(10_000);
  assert.equal(limiter.when("ns/0"), 5, "forget reset the per-item backoff");
});

test("default controller limiter is max(5 ms * 2^n up to 1000 s, 10 qps burst 100)", () => {
  const clock = new FakeClock();
  const limiter = defaultControllerRateLimiter<string>(clock);
  const first = Array.from({ length: 4 }, () => {
    const d = limiter.when("ns/a");
    clock.step(1000); // keep the bucket full so only the per-item backoff shows
    return d;
  });
  assert.deepEqual(first, [5, 10, 20, 40]);
  for (let i = 0; i < 100; i++) limiter.when(`ns/${i}`);
  assert.equal(limiter.when("ns/b"), 100);
});

/**
 * The steps of client-go's TestItemFastSlowRateLimiter and TestMaxOfRateLimiter (the same sequence, slow delay apart):
 * 3 fast retries, then slow; items counted apart; forget resets one.
 */
function assertFastThenSlow(limiter: RateLimiter<string>, slowMs: number): void {
  assert.deepEqual(
    Array.from({ length: 5 }, () => limiter.when("one")),
    [5, 5, 5, slowMs, slowMs],
  );
  assert.equal(limiter.numRequeues("one"), 5);
  assert.deepEqual([limiter.when("two"), limiter.when("two")], [5, 5]);
  assert.equal(limiter.numRequeues("two"), 2);
  limiter.forget("one");
  assert.equal(limiter.numRequeues("one"), 0);
  assert.equal(limiter.when("one"), 5);
}

// Port of client-go util/workqueue/default_rate_limiters_test.go TestItemFastSlowRateLimiter.
test("fast-slow limiter: 3 fast retries at 5 ms, then 10 s; items counted apart; forget resets", () => {
  assertFastThenSlow(new ItemFastSlowRateLimiter<string>(5, 10_000, 3), 10_000);
});

// Port of client-go default_rate_limiters_test.go TestMaxOfRateLimiter (fast-slow combined with exponential).
test("max-of a fast-slow and an exponential limiter", () => {
  const limiter = new MaxOfRateLimiter<string>(
    new ItemFastSlowRateLimiter<string>(5, 3000, 3),
    new ItemExponentialFailureRateLimiter<string>(1, 1000),
  );
  assertFastThenSlow(limiter, 3000);
});

/** The upstream test's StepRateLimiter: baseDelayMs for the first `threshold` calls (any item), maxDelayMs after. */
class StepRateLimiter implements RateLimiter<number> {
  private count = 0;

  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
    private readonly threshold: number,
  ) {}

  when(): number {
    this.count += 1;
    return this.count <= this.threshold ? this.baseDelayMs : this.maxDelayMs;
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

// Port of client-go default_rate_limiters_test.go TestWithMaxWaitRateLimiter.
test("with-max-wait limiter passes short delays through and caps long ones at the max wait", () => {
  const limiter = new WithMaxWaitRateLimiter<number>(new StepRateLimiter(5, 1_000_000, 100), 500_000);
  for (let i = 0; i < 100; i++) assert.equal(limiter.when(i), 5, `item ${i}`);
  for (let i = 100; i < 200; i++) assert.equal(limiter.when(i), 500_000, `item ${i}`);
});

test("with-max-wait limiter delegates forget and numRequeues to the wrapped limiter", () => {
  const limiter = new WithMaxWaitRateLimiter<string>(new ItemExponentialFailureRateLimiter<string>(5, 1_000_000), 20);
  assert.deepEqual([limiter.when("a"), limiter.when("a"), limiter.when("a"), limiter.when("a")], [5, 10, 20, 20]);
  assert.equal(limiter.numRequeues("a"), 4);
  limiter.forget("a");
  assert.equal(limiter.numRequeues("a"), 0);
  assert.equal(limiter.when("a"), 5);
});
