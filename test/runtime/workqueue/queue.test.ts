// Core work queue semantics (client-go queue.go): dedup, dirty-while-processing, FIFO, waiters, shutdown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { type Queue, newQueue } from "@crdgen/runtime/workqueue";
import { collectGarbage } from "../support/gc.js";

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Wraps a promise so a test can ask whether it has settled yet. */
function track<T>(p: Promise<T>): { settled: () => boolean; value: Promise<T> } {
  let settled = false;
  const value = p.then((v) => {
    settled = true;
    return v;
  });
  return { settled: () => settled, value };
}

test("adding an item that is already queued is a no-op (dedup)", async () => {
  const q = newQueue<string>();
  q.add("ns/a");
  q.add("ns/a");
  q.add("ns/b");
  assert.equal(q.len(), 2);
  assert.deepEqual(await q.get(), { item: "ns/a", shutdown: false });
  assert.deepEqual(await q.get(), { item: "ns/b", shutdown: false });
  assert.equal(q.len(), 0);
});

test("an item re-added while processing is handed out again only after done", async () => {
  const q = newQueue<string>();
  q.add("ns/a");
  assert.equal((await q.get()).item, "ns/a");
  q.add("ns/a");
  assert.equal(q.len(), 0, "not queued while processing");
  const next = track(q.get());
  await flush();
  assert.equal(next.settled(), false, "must not run concurrently with itself");
  q.done("ns/a");
  assert.deepEqual(await next.value, { item: "ns/a", shutdown: false });
});

test("any number of re-adds while processing collapse into one re-run", async () => {
  const q = newQueue<string>();
  q.add("ns/a");
  await q.get();
  q.add("ns/a");
  q.add("ns/a");
  q.add("ns/a");
  q.done("ns/a");
  assert.equal(q.len(), 1);
});

test("done without a re-add does not queue the item again", async () => {
  const q = newQueue<string>();
  q.add("ns/a");
  await q.get();
  q.done("ns/a");
  assert.equal(q.len(), 0);
});

test("items are handed out in FIFO order", async () => {
  const q = newQueue<string>();
  for (const key of ["ns/c", "ns/a", "ns/b"]) q.add(key);
  const got: string[] = [];
  for (let i = 0; i < 3; i++) got.push((await q.get()).item as string);
  assert.deepEqual(got, ["ns/c", "ns/a", "ns/b"]);
});

test("several waiting get calls are served in the order they were made", async () => {
  const q = newQueue<string>();
  const first = q.get();
  const second = q.get();
  const third = q.get();
  q.add("ns/x");
  q.add("ns/y");
  q.add("ns/z");
  assert.equal((await first).item, "ns/x");
  assert.equal((await second).item, "ns/y");
  assert.equal((await third).item, "ns/z");
});

test("get waits while the queue is empty", async () => {
  const q = newQueue<string>();
  const next = track(q.get());
  await flush();
  assert.equal(next.settled(), false);
  q.add("ns/a");
  assert.equal((await next.value).item, "ns/a");
});

test("adds after shutDown are ignored", () => {
  const q = newQueue<string>();
  q.shutDown();
  q.add("ns/a");
  assert.equal(q.len(), 0);
  assert.equal(q.shuttingDown(), true);
});

test("shutDown makes waiting and later get calls resolve shutdown:true", async () => {
  const q = newQueue<string>();
  const waiting = q.get();
  assert.equal(q.shuttingDown(), false);
  q.shutDown();
  assert.deepEqual(await waiting, { item: undefined, shutdown: true });
  assert.deepEqual(await q.get(), { item: undefined, shutdown: true });
});

test("after shutDown, items already queued are handed out before shutdown is reported", async () => {
  const q = newQueue<string>();
  q.add("ns/a");
  q.add("ns/b");
  q.shutDown();
  assert.deepEqual(await q.get(), { item: "ns/a", shutdown: false });
  assert.deepEqual(await q.get(), { item: "ns/b", shutdown: false });
  assert.deepEqual(await q.get(), { item: undefined, shutdown: true });
});

test("shutDownWithDrain waits until every item being processed is done", async () => {
  const q = newQueue<string>();
  q.add("ns/a");
  q.add("ns/b");
  await q.get();
  await q.get();
  const drained = track(q.shutDownWithDrain());
  assert.equal(q.shuttingDown(), true);
  await flush();
  assert.equal(drained.settled(), false, "two items in flight");
  q.done("ns/a");
  await flush();
  assert.equal(drained.settled(), false, "one item in flight");
  q.done("ns/b");
  await drained.value;
  assert.equal(drained.settled(), true);
});

test("shutDownWithDrain resolves at once when nothing is being processed", async () => {
  const q = newQueue<string>();
  const drained = track(q.shutDownWithDrain());
  await flush();
  assert.equal(drained.settled(), true);
});

test("shutDown ends a pending shutDownWithDrain wait", async () => {
  const q = newQueue<string>();
  q.add("ns/a");
  await q.get();
  const drained = track(q.shutDownWithDrain());
  await flush();
  assert.equal(drained.settled(), false);
  q.shutDown();
  await flush();
  assert.equal(drained.settled(), true);
});

test("done for an item that is queued but not being processed does not queue it twice", () => {
  const q = newQueue<string>();
  q.add("ns/a");
  q.done("ns/a");
  assert.equal(q.len(), 1);
});

/** Hands out and finishes n items; in a function of its own so that no local of the caller keeps the last one. */
async function processItems<T>(q: Queue<T>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await q.get();
    if (!r.shutdown) q.done(r.item);
  }
}

/** Queues n new items and returns weak references to them (a function of its own, for the same reason). */
function addItems(q: Queue<{ id: number }>, n: number): Array<WeakRef<{ id: number }>> {
  const refs: Array<WeakRef<{ id: number }>> = [];
  for (let i = 0; i < n; i++) {
    const item = { id: i };
    refs.push(new WeakRef(item));
    q.add(item);
  }
  return refs;
}

test("the queue keeps no reference to an item it handed out and that is done, while other items wait", async () => {
  const q = newQueue<{ id: number }>();
  const handedOut = addItems(q, 100);
  const waiting = { id: 100 };
  q.add(waiting); // still queued: the queue's order array is neither reset nor compacted
  await processItems(q, 100);
  assert.equal(q.len(), 1);
  await collectGarbage();
  const alive = handedOut.filter((ref) => ref.deref() !== undefined).length;
  assert.equal(alive, 0, `${alive} of 100 finished items are still reachable from the queue`);
  assert.deepEqual(await q.get(), { item: waiting, shutdown: false });
});
