// Ports of controller-runtime pkg/controller/priorityqueue/priorityqueue_test.go ("Controllerworkqueue" cases and
// TestHighPriorityItemsAreReturnedBeforeLowPriorityItemMultipleTimes); the metrics assertions are left out (this queue
// records no workqueue metrics yet).
import { test } from "node:test";
import assert from "node:assert/strict";
import { newPriorityQueue, ItemExponentialFailureRateLimiter, LOW_PRIORITY } from "@crdgen/runtime/workqueue";
import { FakeClock } from "@crdgen/runtime/testing";

const HOUR = 3_600_000;
const newQueue = (clock = new FakeClock()) => newPriorityQueue<string>({ clock });

test("priorityqueue: returns items in order", async () => {
  const q = newQueue();
  q.addWithOpts({}, "foo");
  q.addWithOpts({}, "bar");
  assert.equal((await q.getWithPriority()).item, "foo");
  assert.equal((await q.getWithPriority()).item, "bar");
});

test("priorityqueue: doesn't return an item that is currently locked; returns it as soon as it is unlocked", async () => {
  const q = newQueue();
  q.addWithOpts({}, "foo");
  assert.equal((await q.getWithPriority()).item, "foo");
  q.addWithOpts({}, "foo");
  q.addWithOpts({}, "bar");
  assert.equal((await q.getWithPriority()).item, "bar");
  q.addWithOpts({}, "baz");
  q.done("foo");
  assert.equal((await q.getWithPriority()).item, "foo");
});

test("priorityqueue: de-duplicates items", () => {
  const q = newQueue();
  q.addWithOpts({}, "foo");
  q.addWithOpts({}, "foo");
  assert.equal(q.len(), 1);
});

test("priorityqueue: enqueues a locked item", async () => {
  const q = newQueue();
  q.addWithOpts({}, "foo");
  assert.equal(q.len(), 1);
  assert.deepEqual(await q.getWithPriority(), { item: "foo", priority: 0, shutdown: false });
  q.addWithOpts({}, "foo");
  assert.equal(q.len(), 0, "our len() counts only items that can be handed out (upstream counts the locked one)");
  q.done("foo");
  assert.deepEqual(await q.getWithPriority(), { item: "foo", priority: 0, shutdown: false });
});

test("priorityqueue: retains the highest priority; will not decrease it", async () => {
  for (const [first, second] of [
    [1, 2],
    [2, 1],
  ] as const) {
    const q = newQueue();
    q.addWithOpts({ priority: first }, "foo");
    q.addWithOpts({ priority: second }, "foo");
    assert.deepEqual(await q.getWithPriority(), { item: "foo", priority: 2, shutdown: false });
    assert.equal(q.len(), 0);
  }
});

test("priorityqueue: gets pushed to the front if the priority increases", async () => {
  const q = newQueue();
  q.addWithOpts({}, "foo");
  q.addWithOpts({}, "bar");
  q.addWithOpts({}, "baz");
  q.addWithOpts({ priority: 1 }, "baz");
  assert.deepEqual(await q.getWithPriority(), { item: "baz", priority: 1, shutdown: false });
  assert.equal(q.len(), 2);
});

test("priorityqueue: retains the lowest after duration", async () => {
  const q = newQueue();
  q.addWithOpts({ afterMs: 0 }, "foo");
  q.addWithOpts({ afterMs: HOUR }, "foo");
  assert.deepEqual(await q.getWithPriority(), { item: "foo", priority: 0, shutdown: false });
  assert.equal(q.len(), 0);
});

test("priorityqueue: doesn't include non-ready items in len()", () => {
  const q = newQueue();
  q.addWithOpts({ afterMs: 60_000 }, "foo");
  q.addWithOpts({}, "baz");
  q.addWithOpts({ afterMs: 60_000 }, "bar");
  q.addWithOpts({}, "bal");
  assert.equal(q.len(), 2);
});

test("priorityqueue: get after shutdown reports the shutdown, even with items queued", async () => {
  const q = newQueue();
  q.add("baz");
  q.shutDown();
  q.addWithOpts({ afterMs: 1_000 }, "foo");
  assert.deepEqual(await q.getWithPriority(), { item: undefined, priority: 0, shutdown: true });
  assert.deepEqual(await q.getWithPriority(), { item: undefined, priority: 0, shutdown: true });
});

test("priorityqueue: follows FIFO order when an item's priority changes", async () => {
  const q = newQueue();
  q.addWithOpts({ priority: 0 }, "foo");
  q.addWithOpts({ priority: 1 }, "bar");
  q.addWithOpts({ priority: 1 }, "foo");
  assert.equal(q.len(), 2);
  assert.deepEqual(await q.getWithPriority(), { item: "bar", priority: 1, shutdown: false });
  assert.equal(q.len(), 1);
  assert.deepEqual(await q.getWithPriority(), { item: "foo", priority: 1, shutdown: false });
  assert.equal(q.len(), 0);
});

// TestHighPriorityItemsAreReturnedBeforeLowPriorityItemMultipleTimes (after = -1 s, 0, 1 s).
for (const after of [-1_000, 0, 1_000]) {
  test(`priorityqueue: high priority items are returned before low priority ones (after=${after} ms)`, async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    const itemsPerPriority = 1000;
    const priorities = { high: 10, upperMiddle: 5, middle: 0, lowMiddle: -5, low: -10 };
    for (let i = 0; i < itemsPerPriority; i++)
      for (const [name, priority] of Object.entries(priorities))
        q.addWithOpts({ priority, afterMs: after }, `${name}-${i}`);
    if (after > 0) clock.step(after);
    for (const [name, priority] of Object.entries(priorities))
      for (let i = 0; i < itemsPerPriority; i++)
        assert.deepEqual(await q.getWithPriority(), { item: `${name}-${i}`, priority, shutdown: false });
  });
}

test("priorityqueue: rate-limited adds wait as long as the rate limiter says", async () => {
  const clock = new FakeClock();
  const q = newPriorityQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1_000) });
  q.addWithOpts({ rateLimited: true }, "foo");
  assert.equal(q.len(), 0, "waits 5 ms");
  clock.step(5);
  assert.equal(q.len(), 1);
  assert.equal((await q.get()).item, "foo");
  q.done("foo");
  q.addRateLimited("foo");
  clock.step(9);
  assert.equal(q.len(), 0, "second requeue waits 10 ms");
  clock.step(1);
  assert.equal(q.len(), 1);
  assert.equal(q.numRequeues("foo"), 2);
});

// Not an upstream case: the heap against a plain sort, with 10,000 items of mixed priorities, delays and re-adds.
test("priorityqueue: 10,000 items come out by priority, then insertion order, once each", async () => {
  const clock = new FakeClock();
  const q = newQueue(clock);
  const expected = new Map<string, { priority: number; seq: number }>();
  let seq = 0;
  for (let i = 0; i < 10_000; i++) {
    const item = `item-${i % 7_000}`;
    const priority = (i * 7919) % 11 === 0 ? LOW_PRIORITY : ((i * 31) % 5) - 2;
    const known = expected.get(item);
    // A re-add keeps the higher priority and, when it raises it, goes behind that priority's queue.
    if (known === undefined || priority > known.priority) expected.set(item, { priority, seq: seq++ });
    q.addWithOpts({ priority, afterMs: i % 3 === 0 ? 1_000 : 0 }, item);
  }
  clock.step(1_000);
  assert.equal(q.len(), expected.size);
  const order = [...expected].sort(([, a], [, b]) => b.priority - a.priority || a.seq - b.seq);
  for (const [item, { priority }] of order) {
    assert.deepEqual(await q.getWithPriority(), { item, priority, shutdown: false });
    q.done(item);
  }
  assert.equal(q.len(), 0);
});

test("priorityqueue: a waiting item is handed to a blocked get() when its time comes (real clock)", async () => {
  const q = newPriorityQueue<string>();
  const got = q.get();
  q.addWithOpts({ afterMs: HOUR, priority: 1 }, "later");
  q.addWithOpts({ afterMs: 5 }, "sooner");
  assert.deepEqual(await got, { item: "sooner", shutdown: false });
  assert.equal(q.len(), 0, "the other item still waits");
  q.shutDown();
});
