// Backoff, the one jittered exponential backoff of the runtime (the reflector's and retryOnError's), as
// apimachinery's wait.Backoff steps: grow by factor, cap, jitter after the cap, reset after a quiet spell.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "@crdgen/runtime/testing";
import { Backoff } from "@crdgen/runtime/wait";

test("waits grow by the factor up to the cap; jitter stretches each capped wait by random·jitter", () => {
  const clock = new FakeClock();
  let r = 0;
  const backoff = new Backoff({ initialMs: 100, factor: 3, jitter: 0.5, maxMs: 1000 }, clock, () => r);
  assert.deepEqual([backoff.next(), backoff.next(), backoff.next(), backoff.next()], [100, 300, 900, 1000]);
  r = 1;
  assert.equal(backoff.next(), 1500, "jitter applies to the capped wait");
});

test("after resetAfterMs without a step the next wait is initialMs again, on the injected clock", () => {
  const clock = new FakeClock();
  const backoff = new Backoff({ initialMs: 10, factor: 2, jitter: 0, resetAfterMs: 60_000 }, clock, () => 0);
  assert.deepEqual([backoff.next(), backoff.next(), backoff.next()], [10, 20, 40]);
  clock.step(59_999);
  assert.equal(backoff.next(), 80, "not quiet long enough");
  clock.step(60_000);
  assert.equal(backoff.next(), 10);
});
