// Port of controller-runtime pkg/handler/eventhandler_test.go, Describe("WithLowPriorityWhenUnchanged"): the table of
// handlers and its six cases per handler. Translation: AddWithOpts(o, items) is addWithOpts(o, ...keys) with
// Priority/After/RateLimited as priority/afterMs/rateLimited (absent = Go's nil/zero); reconcile.Request{Name:
// "my-pod"} is the key "my-pod". Two rows have no counterpart here and are left out: "Funcs" (our handlers are
// client-go ResourceEventHandlerFuncs, which are not given the queue; a custom handler that is, is wrapped with
// withLowPriorityWhenUnchanged, the rows below) and "TypedEnqueueRequestForOwner" (the same function as
// EnqueueRequestForOwner without Go's generics). enqueueRequestForOwner always means OnlyControllerOwner, so the
// pod's owner reference says controller: true.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubernetesObject } from "@crdgen/runtime";
import {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  withLowPriorityWhenUnchanged,
  type KeyQueue,
  type QueueHandler,
} from "@crdgen/runtime/handler";
import { LOW_PRIORITY, newQueue, type AddOpts } from "@crdgen/runtime/workqueue";

/** The upstream pod: name "my-pod", no namespace, owned by the Pod "my-pod". */
function pod(resourceVersion?: string): KubernetesObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "my-pod",
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "my-pod", uid: "u", controller: true }],
    },
  };
}

const key = (obj: KubernetesObject): string => obj.metadata?.name ?? "";

/** upstream customHandler: re-implements enqueueRequestForObject to test the wrapper. */
const customHandler: QueueHandler<KubernetesObject> = (q) => ({
  addFunc: (obj) => q.add(key(obj)),
  updateFunc: (_old, obj) => q.add(key(obj)),
  deleteFunc: (obj) => q.add(key(obj as KubernetesObject)),
});

/** A custom handler whose create and update call `enqueue` (upstream's TypedFuncs inside the wrapper). */
const funcsCalling = (enqueue: (q: KeyQueue, key: string) => void): QueueHandler<KubernetesObject> =>
  withLowPriorityWhenUnchanged((q) => ({
    addFunc: (obj) => enqueue(q, key(obj)),
    updateFunc: (_old, obj) => enqueue(q, key(obj)),
  }));

interface Row {
  name: string;
  handler: QueueHandler<KubernetesObject>;
  afterMs?: number;
  rateLimited?: boolean;
  overridePriority?: number;
}

const handlerPriorityTests: Row[] = [
  { name: "WithLowPriorityWhenUnchanged wrapper", handler: withLowPriorityWhenUnchanged(customHandler) },
  { name: "EnqueueRequestForObject", handler: (q) => enqueueRequestForObject(q) },
  {
    name: "EnqueueRequestForOwner",
    handler: (q) => enqueueRequestForOwner(q, { group: "", kind: "Pod", namespaced: true }),
  },
  { name: "EnqueueRequestsFromMapFunc", handler: (q) => enqueueRequestsFromMapFunc(q, (obj) => [key(obj)]) },
  { name: "WithLowPriorityWhenUnchanged - Add", handler: funcsCalling((q, k) => q.add(k)) },
  {
    name: "WithLowPriorityWhenUnchanged - AddAfter",
    handler: funcsCalling((q, k) => q.addAfter(k, 1000)),
    afterMs: 1000,
  },
  {
    name: "WithLowPriorityWhenUnchanged - AddRateLimited",
    handler: funcsCalling((q, k) => q.addRateLimited(k)),
    rateLimited: true,
  },
  {
    name: "WithLowPriorityWhenUnchanged - AddWithOpts priority is retained",
    handler: funcsCalling((q, k) => (q.addWithOpts ? q.addWithOpts({ priority: 100 }, k) : q.add(k))),
    overridePriority: 100,
  },
];

/** Go's AddOpts value: unset fields are nil/zero, so {} and {afterMs: 0} compare equal as they do upstream. */
function goOpts(o: AddOpts): { priority: number | undefined; after: number; rateLimited: boolean } {
  return { priority: o.priority, after: o.afterMs ?? 0, rateLimited: o.rateLimited ?? false };
}

/** upstream fakePriorityQueue: Add is AddWithOpts({}); records the last AddWithOpts. */
function fakePriorityQueue() {
  const seen: { opts?: ReturnType<typeof goOpts>; keys?: string[] } = {};
  const addWithOpts = (o: AddOpts, ...keys: string[]): void => {
    seen.opts = goOpts(o);
    seen.keys = keys;
  };
  const unexpected = (): never => assert.fail("only add and addWithOpts are expected");
  const queue: KeyQueue = {
    add: (k) => addWithOpts({}, k),
    addAfter: unexpected,
    addRateLimited: unexpected,
    addWithOpts,
  };
  return { queue, seen };
}

/** upstream controllertest.Queue: a plain queue whose AddAfter and AddRateLimited add at once. */
function controllertestQueue() {
  const q = newQueue<string>();
  const queue: KeyQueue = { add: (k) => q.add(k), addAfter: (k) => q.add(k), addRateLimited: (k) => q.add(k) };
  return { queue, q };
}

for (const row of handlerPriorityTests) {
  const expected = (lowered: boolean) => ({
    priority: row.overridePriority ?? (lowered ? LOW_PRIORITY : undefined),
    after: row.afterMs ?? 0,
    rateLimited: row.rateLimited ?? false,
  });

  test(`handler is ${row.name}: should lower the priority of a create request for an object that was part of the initial list`, () => {
    const { queue, seen } = fakePriorityQueue();
    void row.handler(queue).addFunc?.(pod(), true);
    assert.deepEqual(seen.opts, expected(true));
    assert.deepEqual(seen.keys, ["my-pod"]);
  });

  test(`handler is ${row.name}: should not lower the priority of a create request for an object that was not part of the initial list`, () => {
    const { queue, seen } = fakePriorityQueue();
    void row.handler(queue).addFunc?.(pod(), false);
    assert.deepEqual(seen.opts, expected(false));
    assert.deepEqual(seen.keys, ["my-pod"]);
  });

  test(`handler is ${row.name}: should lower the priority of an update request with unchanged RV`, () => {
    const { queue, seen } = fakePriorityQueue();
    void row.handler(queue).updateFunc?.(pod(), pod());
    assert.deepEqual(seen.opts, expected(true));
    assert.deepEqual(seen.keys, ["my-pod"]);
  });

  test(`handler is ${row.name}: should not lower the priority of an update request with changed RV`, () => {
    const { queue, seen } = fakePriorityQueue();
    void row.handler(queue).updateFunc?.(pod(), pod("1"));
    assert.deepEqual(seen.opts, expected(false));
    assert.deepEqual(seen.keys, ["my-pod"]);
  });

  test(`handler is ${row.name}: should have no effect on create if the workqueue is not a priorityqueue`, async () => {
    const { queue, q } = controllertestQueue();
    void row.handler(queue).addFunc?.(pod(), false);
    assert.equal(q.len(), 1);
    assert.equal((await q.get()).item, "my-pod");
  });

  test(`handler is ${row.name}: should have no effect on Update if the workqueue is not a priorityqueue`, async () => {
    const { queue, q } = controllertestQueue();
    void row.handler(queue).updateFunc?.(pod(), pod());
    assert.equal(q.len(), 1);
    assert.equal((await q.get()).item, "my-pod");
  });
}
