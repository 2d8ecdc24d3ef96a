// Rate limiter delays (client-go default_rate_limiters.go): exponential per item, token bucket, max of both.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
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
