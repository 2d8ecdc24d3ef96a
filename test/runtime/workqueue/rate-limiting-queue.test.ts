// Rate-limiting queue (client-go rate_limiting_queue.go): addRateLimited waits the limiter's delay; numRequeues/forget.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "@crdgen/runtime/testing";
import { ItemExponentialFailureRateLimiter, newRateLimitingQueue } from "@crdgen/runtime/workqueue";

test("addRateLimited waits the delay the rate limiter gives", async () => {
  const clock = new FakeClock();
  const q = newRateLimitingQueue<string>({
    clock,
    rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1_000_000),
  });
  q.addRateLimited("ns/a");
  clock.step(4);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
  q.done((await q.get()).item as string);
  q.addRateLimited("ns/a");
  clock.step(9);
  assert.equal(q.len(), 0, "second failure waits 10 ms");
  clock.step(1);
  assert.equal(q.len(), 1);
});

test("numRequeues counts addRateLimited calls and forget resets it without dequeuing", () => {
  const clock = new FakeClock();
  const q = newRateLimitingQueue<string>({ clock });
  assert.equal(q.numRequeues("ns/a"), 0);
  q.addRateLimited("ns/a");
  q.addRateLimited("ns/a");
  assert.equal(q.numRequeues("ns/a"), 2);
  q.forget("ns/a");
  assert.equal(q.numRequeues("ns/a"), 0);
  clock.step(5);
  assert.equal(q.len(), 1, "forget does not remove the waiting item");
});

test("the default controller rate limiter is used when none is given", () => {
  const clock = new FakeClock();
  const q = newRateLimitingQueue<string>({ name: "test", clock });
  q.addRateLimited("ns/a");
  clock.step(4);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
});
