// Delaying queue semantics (client-go delaying_queue.go) driven by a FakeClock: ready-time order, earlier re-add wins.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "@crdgen/runtime/testing";
import { newDelayingQueue } from "@crdgen/runtime/workqueue";

async function drain(q: {
  len(): number;
  get(): Promise<{ item: unknown }>;
  done(item: never): void;
}): Promise<unknown[]> {
  const out: unknown[] = [];
  while (q.len() > 0) {
    const { item } = await q.get();
    out.push(item);
    q.done(item as never);
  }
  return out;
}

test("addAfter makes an item available only when the clock reaches its ready time", () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter("ns/a", 100);
  assert.equal(q.len(), 0);
  clock.step(99);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
});

test("delayed items become available in ready-time order", async () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter("ns/c", 300);
  q.addAfter("ns/a", 100);
  q.addAfter("ns/b", 200);
  clock.step(150);
  assert.deepEqual(await drain(q), ["ns/a"]);
  clock.step(1000);
  assert.deepEqual(await drain(q), ["ns/b", "ns/c"]);
});

test("re-adding a waiting item with an earlier time moves it earlier", async () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter("ns/a", 500);
  q.addAfter("ns/a", 100);
  clock.step(100);
  assert.deepEqual(await drain(q), ["ns/a"]);
  clock.step(400);
  assert.equal(q.len(), 0, "the item was moved, not added twice");
});

test("re-adding a waiting item with a later time does not delay it", () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter("ns/a", 100);
  q.addAfter("ns/a", 500);
  clock.step(100);
  assert.equal(q.len(), 1);
});

test("addAfter with a delay of zero or less adds immediately", () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter("ns/a", 0);
  q.addAfter("ns/b", -5);
  assert.equal(q.len(), 2);
  assert.equal(clock.hasWaiters(), false);
});

test("a waiting get resolves when a delayed item becomes ready", async () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  const next = q.get();
  q.addAfter("ns/a", 50);
  clock.step(50);
  assert.deepEqual(await next, { item: "ns/a", shutdown: false });
});

test("delays longer than the re-check interval still fire at their ready time", () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter("ns/a", 1_000_000);
  clock.step(999_999);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
});

test("shutDown clears pending timers and ignores later addAfter", () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter("ns/a", 100);
  assert.equal(clock.hasWaiters(), true);
  q.shutDown();
  assert.equal(clock.hasWaiters(), false);
  q.addAfter("ns/b", 100);
  assert.equal(clock.hasWaiters(), false);
  clock.step(1000);
  assert.equal(q.len(), 0);
});

test("shutDownWithDrain clears pending timers", async () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter("ns/a", 100);
  await q.shutDownWithDrain();
  assert.equal(clock.hasWaiters(), false);
});
