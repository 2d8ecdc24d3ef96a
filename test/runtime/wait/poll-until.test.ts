// pollUntil, the runtime's one poll-until loop: a check at once and then every interval, on a FakeClock here; a
// timeout that checks one last time at the deadline; an abort and a check's error end it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setImmediate as tick } from "node:timers/promises";
import { FakeClock } from "@crdgen/runtime/testing";
import { PollTimeoutError, pollUntil } from "@crdgen/runtime/wait";

const settle = async () => {
  for (let i = 0; i < 5; i++) await tick();
};

test("checks at once, then every interval of the injected clock, and resolves with the first value", async () => {
  const clock = new FakeClock();
  const checkedAt: number[] = [];
  const done = pollUntil(() => (checkedAt.push(clock.now()), checkedAt.length === 3 && "ready"), {
    intervalMs: 100,
    clock,
  });
  await settle();
  assert.deepEqual(checkedAt, [0], "the first check does not wait");
  clock.step(99);
  await settle();
  assert.deepEqual(checkedAt, [0], "no check before the interval passed");
  clock.step(1);
  await settle();
  clock.step(100);
  assert.equal(await done, "ready");
  assert.deepEqual(checkedAt, [0, 100, 200]);
});

test("the timeout checks one last time at the deadline, then rejects with PollTimeoutError naming what", async () => {
  const clock = new FakeClock();
  const checkedAt: number[] = [];
  const done = pollUntil(() => void checkedAt.push(clock.now()), { intervalMs: 100, timeoutMs: 250, clock, what: "x" });
  const outcome = done.catch((e: unknown) => e);
  for (let i = 0; i < 6; i++) {
    await settle();
    clock.step(50);
  }
  const error = await outcome;
  assert.ok(error instanceof PollTimeoutError);
  assert.equal(error.message, "timed out after 0.25s waiting for x");
  assert.deepEqual(checkedAt, [0, 100, 200, 250]);
});

test("an abort ends the wait at once with the signal's reason; a check's error ends the poll with that error", async () => {
  const clock = new FakeClock();
  const stop = new AbortController();
  const done = pollUntil(() => undefined, { intervalMs: 60_000, clock, signal: stop.signal });
  await settle();
  stop.abort(new Error("stopped"));
  await assert.rejects(done, /stopped/);
  const boom = new Error("boom");
  await assert.rejects(
    pollUntil(() => Promise.reject(boom), { intervalMs: 1, clock }),
    (e) => e === boom,
  );
});
