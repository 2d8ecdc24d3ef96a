// Port of controller-runtime pkg/handler/eventhandler_test.go, Describe("WithLowPriorityWhenUnchanged"): for each
// built-in handler, a create from the initial list and an update that keeps the resourceVersion go on a priority
// queue with handler.LowPriority, live ones with the default priority, and a plain queue just gets add().
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubernetesObject } from "@crdgen/runtime";
import type { ResourceEventHandler } from "@crdgen/runtime/cache";
import {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  type KeyQueue,
} from "@crdgen/runtime/handler";
import { LOW_PRIORITY, newRateLimitingQueue } from "@crdgen/runtime/workqueue";

const owner = { group: "apps", kind: "ReplicaSet", namespaced: true };

/** The pod of the upstream cases, in namespace "ns", controlled by ReplicaSet "my-pod" (so every handler maps it). */
function pod(resourceVersion?: string): KubernetesObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "my-pod",
      namespace: "ns",
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "my-pod", uid: "u", controller: true }],
    },
  };
}

const handlers: Array<[string, (q: KeyQueue) => ResourceEventHandler<KubernetesObject>]> = [
  ["enqueueRequestForObject", (q) => enqueueRequestForObject(q)],
  ["enqueueRequestForOwner", (q) => enqueueRequestForOwner(q, owner)],
  ["enqueueRequestsFromMapFunc", (q) => enqueueRequestsFromMapFunc(q, (o) => [`${o.metadata?.namespace}/my-pod`])],
];

/** upstream fakePriorityQueue: records the options and items of each add (our AddWithOpts is add(key, opts)). */
function fakePriorityQueue() {
  const calls: Array<{ opts: { priority?: number } | undefined; keys: string[] }> = [];
  return { calls, add: (key: string, opts?: { priority?: number }) => void calls.push({ opts, keys: [key] }) };
}

/** A queue without priorities: newRateLimitingQueue's add(item), which takes the key and nothing else. */
function plainQueue() {
  const added: string[] = [];
  const queue = newRateLimitingQueue<string>();
  const add = queue.add.bind(queue);
  queue.add = (key: string) => {
    added.push(key);
    add(key);
  };
  return Object.assign(queue, { added });
}

for (const [name, make] of handlers) {
  test(`${name}: lowers the priority of a create request for an object that was part of the initial list`, () => {
    const q = fakePriorityQueue();
    void make(q).addFunc?.(pod(), true);
    assert.deepEqual(q.calls, [{ opts: { priority: LOW_PRIORITY }, keys: ["ns/my-pod"] }]);
  });

  test(`${name}: does not lower the priority of a create request for an object not in the initial list`, () => {
    const q = fakePriorityQueue();
    void make(q).addFunc?.(pod(), false);
    assert.deepEqual(q.calls, [{ opts: { priority: 0 }, keys: ["ns/my-pod"] }]);
  });

  test(`${name}: lowers the priority of an update request with unchanged RV`, () => {
    const q = fakePriorityQueue();
    void make(q).updateFunc?.(pod(), pod());
    assert.deepEqual(q.calls, [{ opts: { priority: LOW_PRIORITY }, keys: ["ns/my-pod"] }]);
  });

  test(`${name}: does not lower the priority of an update request with changed RV`, () => {
    const q = fakePriorityQueue();
    void make(q).updateFunc?.(pod(), pod("1"));
    assert.deepEqual(q.calls, [{ opts: { priority: 0 }, keys: ["ns/my-pod"] }]);
  });

  test(`${name}: has no effect on create if the workqueue is not a priority queue`, () => {
    const q = plainQueue();
    void make(q).addFunc?.(pod(), true);
    assert.deepEqual(q.added, ["ns/my-pod"]);
  });

  test(`${name}: has no effect on update if the workqueue is not a priority queue`, () => {
    const q = plainQueue();
    void make(q).updateFunc?.(pod(), pod());
    assert.deepEqual(q.added, ["ns/my-pod"]);
  });
}
