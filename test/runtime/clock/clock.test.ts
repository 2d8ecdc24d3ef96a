// FakeClock: the time source tests use to drive delays without sleeping.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "@crdgen/runtime/testing";

test("FakeClock.step fires due timers in time order at their due time", () => {
  const clock = new FakeClock(1000);
  const fired: Array<[string, number]> = [];
  clock.setTimeout(() => fired.push(["b", clock.now()]), 20);
  clock.setTimeout(() => fired.push(["a", clock.now()]), 10);
  clock.setTimeout(() => fired.push(["c", clock.now()]), 30);
  clock.step(25);
  assert.deepEqual(fired, [
    ["a", 1010],
    ["b", 1020],
  ]);
  assert.equal(clock.now(), 1025);
  assert.equal(clock.hasWaiters(), true);
  clock.setTime(1030);
  assert.deepEqual(fired.at(-1), ["c", 1030]);
  assert.equal(clock.hasWaiters(), false);
});

test("FakeClock fires timers armed by a firing timer within the same step", () => {
  const clock = new FakeClock();
  const fired: number[] = [];
  clock.setTimeout(() => {
    fired.push(clock.now());
    clock.setTimeout(() => fired.push(clock.now()), 10);
  }, 10);
  clock.step(30);
  assert.deepEqual(fired, [10, 20]);
});

test("FakeClock.clearTimeout cancels a timer", () => {
  const clock = new FakeClock();
  let fired = false;
  const handle = clock.setTimeout(() => (fired = true), 10);
  clock.clearTimeout(handle);
  clock.step(100);
  assert.equal(fired, false);
  assert.equal(clock.hasWaiters(), false);
});
