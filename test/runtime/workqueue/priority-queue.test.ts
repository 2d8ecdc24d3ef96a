// Ports of controller-runtime pkg/controller/priorityqueue/priorityqueue_test.go ("Controllerworkqueue" cases,
// TestItemIsOnlyReturnedAfterAfterHasPassed, TestHighPriorityItemThatBecameReadyIsReturnedBeforeLowPriorityItem,
// TestMultipleItemsWithAfterAreReturnedInCorrectOrder, TestHighPriorityItemsAreReturnedBeforeLowPriorityItemMultipleTimes)
// with their metrics assertions: upstream's fakeMetricsProvider records depth per priority, adds and retries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { newPriorityQueue, ItemExponentialFailureRateLimiter, LOW_PRIORITY } from "@crdgen/runtime/workqueue";
import type { MetricsProvider } from "@crdgen/runtime/metrics";
import { FakeClock } from "@crdgen/runtime/testing";

const HOUR = 3_600_000;

/** upstream fakeMetricsProvider for the queue "test": depth by priority (only priorities touched), adds, retries. */
function fakeMetricsProvider() {
  const recorded = { depth: {} as Record<number, number>, adds: 0, retries: 0 };
  const noop = { inc() {}, dec() {}, set() {}, observe() {} };
  const step = (by: number) => (priority: number) =>
    void (recorded.depth[priority] = (recorded.depth[priority] ?? 0) + by);
  const provider: MetricsProvider = {
    newDepthMetric: () => assert.fail("a priority queue asks for the depth metric with priority"),
    newDepthMetricWithPriority: () => ({ inc: step(1), dec: step(-1) }),
    newAddsMetric: () => ({ inc: () => recorded.adds++ }),
    newRetriesMetric: () => ({ inc: () => recorded.retries++ }),
    newLatencyMetric: () => noop,
    newWorkDurationMetric: () => noop,
    newUnfinishedWorkSecondsMetric: () => noop,
    newLongestRunningProcessorSecondsMetric: () => noop,
  };
  return { provider, recorded };
}

/** upstream newQueue(): a queue named "test" and its metrics. */
function newQueueWithMetrics(clock = new FakeClock()) {
  const { provider, recorded } = fakeMetricsProvider();
  return { q: newPriorityQueue<string>({ name: "test", metricsProvider: provider, clock }), metrics: recorded };
}
const newQueue = (clock = new FakeClock()) => newQueueWithMetrics(clock).q;

test("priorityqueue: returns an item", async () => {
  const { q, metrics } = newQueueWithMetrics();
  q.addWithOpts({}, "foo");
  assert.equal((await q.getWithPriority()).item, "foo");
  assert.deepEqual(metrics, { depth: { 0: 0 }, adds: 1, retries: 0 });
});

test("priorityqueue: returns items in order", async () => {
  const { q, metrics } = newQueueWithMetrics();
  q.addWithOpts({}, "foo");
  q.addWithOpts({}, "bar");
  assert.equal((await q.getWithPriority()).item, "foo");
  assert.equal((await q.getWithPriority()).item, "bar");
  assert.deepEqual(metrics.depth, { 0: 0 });
  assert.equal(metrics.adds, 2);
});

test("priorityqueue: doesn't return an item that is currently locked", async () => {
  const { q, metrics } = newQueueWithMetrics();
  q.addWithOpts({}, "foo");
  assert.equal((await q.getWithPriority()).item, "foo");
  q.addWithOpts({}, "foo");
  q.addWithOpts({}, "bar");
  assert.equal((await q.getWithPriority()).item, "bar");
  assert.deepEqual(metrics.depth, { 0: 1 });
  assert.equal(metrics.adds, 3);
});

test("priorityqueue: returns an item as soon as its unlocked", async () => {
  const { q, metrics } = newQueueWithMetrics();
  q.addWithOpts({}, "foo");
  assert.equal((await q.getWithPriority()).item, "foo");
  q.addWithOpts({}, "foo");
  q.addWithOpts({}, "bar");
  assert.equal((await q.getWithPriority()).item, "bar");
  q.addWithOpts({}, "baz");
  q.done("foo");
  assert.equal((await q.getWithPriority()).item, "foo");
  assert.deepEqual(metrics.depth, { 0: 1 });
  assert.equal(metrics.adds, 4);
});

test("priorityqueue: de-duplicates items", () => {
  const { q, metrics } = newQueueWithMetrics();
  q.addWithOpts({}, "foo");
  q.addWithOpts({}, "foo");
  assert.equal(q.len(), 1);
  assert.deepEqual(metrics.depth, { 0: 1 });
  assert.equal(metrics.adds, 1);
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
  for (const [first, second, depth] of [
    [1, 2, { 1: 0, 2: 0 }],
    [2, 1, { 2: 0 }],
  ] as const) {
    const { q, metrics } = newQueueWithMetrics();
    q.addWithOpts({ priority: first }, "foo");
    q.addWithOpts({ priority: second }, "foo");
    assert.deepEqual(await q.getWithPriority(), { item: "foo", priority: 2, shutdown: false });
    assert.equal(q.len(), 0);
    assert.deepEqual(metrics.depth, depth);
    assert.equal(metrics.adds, 1);
  }
});

test("priorityqueue: gets pushed to the front if the priority increases", async () => {
  const { q, metrics } = newQueueWithMetrics();
  q.addWithOpts({}, "foo");
  q.addWithOpts({}, "bar");
  q.addWithOpts({}, "baz");
  q.addWithOpts({ priority: 1 }, "baz");
  assert.deepEqual(await q.getWithPriority(), { item: "baz", priority: 1, shutdown: false });
  assert.equal(q.len(), 2);
  assert.deepEqual(metrics.depth, { 0: 2, 1: 0 });
  assert.equal(metrics.adds, 3);
});

test("priorityqueue: retains the lowest after duration", async () => {
  const { q, metrics } = newQueueWithMetrics();
  q.addWithOpts({ afterMs: 0 }, "foo");
  q.addWithOpts({ afterMs: HOUR }, "foo");
  assert.deepEqual(await q.getWithPriority(), { item: "foo", priority: 0, shutdown: false });
  assert.equal(q.len(), 0);
  assert.deepEqual(metrics.depth, { 0: 0 });
  assert.equal(metrics.adds, 1);
});

test("priorityqueue: doesn't include non-ready items in len()", () => {
  const { q, metrics } = newQueueWithMetrics();
  q.addWithOpts({ afterMs: 60_000 }, "foo");
  q.addWithOpts({}, "baz");
  q.addWithOpts({ afterMs: 60_000 }, "bar");
  q.addWithOpts({}, "bal");
  assert.equal(q.len(), 2);
  assert.deepEqual(metrics.depth, { 0: 2 });
});

test("priorityqueue: updates metrics correctly for an item that gets initially added with after and then without", async () => {
  const { q, metrics } = newQueueWithMetrics();
  q.addWithOpts({ afterMs: HOUR }, "foo");
  assert.equal(q.len(), 0);
  assert.deepEqual(metrics.depth, {});
  q.addWithOpts({}, "foo");
  assert.equal(q.len(), 1);
  assert.deepEqual(metrics.depth, { 0: 1 });
  assert.equal((await q.get()).item, "foo");
  assert.equal(q.len(), 0);
  assert.deepEqual(metrics.depth, { 0: 0 });
});

test("TestItemIsOnlyReturnedAfterAfterHasPassed", async () => {
  const clock = new FakeClock();
  const { q, metrics } = newQueueWithMetrics(clock);
  let retrieved = false;
  const got = q.getWithPriority().then(() => (retrieved = true));
  q.addWithOpts({ afterMs: 1_000 }, "foo");
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(retrieved, false);
  clock.step(1_000);
  await got;
  assert.deepEqual(metrics, { depth: { 0: 0 }, adds: 1, retries: 1 });
});

test("TestHighPriorityItemThatBecameReadyIsReturnedBeforeLowPriorityItem", async () => {
  const clock = new FakeClock();
  const { q, metrics } = newQueueWithMetrics(clock);
  q.addWithOpts({ afterMs: 0, priority: LOW_PRIORITY }, "foo");
  q.addWithOpts({ afterMs: 1_000, priority: 0 }, "prio");
  clock.step(1_000);
  assert.deepEqual(await q.getWithPriority(), { item: "prio", priority: 0, shutdown: false });
  assert.deepEqual(metrics, { depth: { [LOW_PRIORITY]: 1, 0: 0 }, adds: 2, retries: 1 });
});

test("TestMultipleItemsWithAfterAreReturnedInCorrectOrder", async () => {
  const clock = new FakeClock();
  const { q, metrics } = newQueueWithMetrics(clock);
  const order: string[] = [];
  const gets = (async () => {
    for (let i = 0; i < 2; i++) order.push((await q.getWithPriority()).item!);
  })();
  q.addWithOpts({ afterMs: 1_000 }, "foo");
  q.addWithOpts({ afterMs: 200 }, "bar");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, []);
  clock.step(1_000);
  await gets;
  assert.deepEqual(order, ["bar", "foo"]);
  assert.deepEqual(metrics.depth, { 0: 0 });
  assert.equal(metrics.adds, 2);
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
