// How handlers put keys on a priority queue (controller-runtime pkg/handler's addToQueueCreate/addToQueueUpdate and
// WithLowPriorityWhenUnchanged): events from the initial list and resyncs go in at LOW_PRIORITY, so that live events
// overtake the startup backlog. On any other queue the handlers just add().
import type { KubernetesObject } from "../client/types.js";
import type { ResourceEventHandler } from "../cache/informer.js";
import { LOW_PRIORITY, type AddOpts } from "../workqueue/priority-queue.js";

/** The adds of a rate-limited workqueue, the part of it event handlers use (client-go's TypedRateLimitingInterface). */
export interface KeyQueue {
  add(key: string): void;
  addAfter(key: string, delayMs: number): void;
  addRateLimited(key: string): void;
  /** Present on a priority queue only (controller-runtime's priorityqueue.PriorityQueue). */
  addWithOpts?(opts: AddOpts, ...keys: string[]): void;
}

type PriorityKeyQueue = KeyQueue & Required<Pick<KeyQueue, "addWithOpts">>;

/** A handler bound to the queue it adds to: what the controller registers on an informer. */
export type QueueHandler<T extends KubernetesObject> = (queue: KeyQueue) => ResourceEventHandler<T>;

function isPriorityQueue(queue: KeyQueue): queue is PriorityKeyQueue {
  return typeof queue.addWithOpts === "function";
}

/** The priority of a create event: low for an object of the initial list, the queue's default otherwise. */
export function createPriority(isInInitialList: boolean): number | undefined {
  return isInInitialList ? LOW_PRIORITY : undefined;
}

/** The priority of an update event: an update that keeps resourceVersion is a resync, so low. */
export function updatePriority(oldObj: KubernetesObject, newObj: KubernetesObject): number | undefined {
  return oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion ? LOW_PRIORITY : undefined;
}

/**
 * `queue` as seen by a handler of one event: on a priority queue every add carries `priority` (unless the handler
 * chose one itself with addWithOpts); any other queue is returned as it is.
 */
export function withDefaultPriority(queue: KeyQueue, priority: number | undefined): KeyQueue {
  if (!isPriorityQueue(queue)) return queue;
  const withPriority = (opts: AddOpts): AddOpts =>
    opts.priority === undefined && priority !== undefined ? { ...opts, priority } : opts;
  return {
    add: (key) => queue.addWithOpts(withPriority({}), key),
    addAfter: (key, delayMs) => queue.addWithOpts(withPriority({ afterMs: delayMs }), key),
    addRateLimited: (key) => queue.addWithOpts(withPriority({ rateLimited: true }), key),
    addWithOpts: (opts, ...keys) => queue.addWithOpts(withPriority(opts), ...keys),
  };
}

/**
 * controller-runtime's WithLowPriorityWhenUnchanged: wraps any queue-bound handler so that, on a priority queue, what
 * it adds for an initial-list create or a resync update goes in at LOW_PRIORITY. Delete events are unchanged.
 */
export function withLowPriorityWhenUnchanged<T extends KubernetesObject>(handler: QueueHandler<T>): QueueHandler<T> {
  return (queue) => {
    const plain = handler(queue);
    return {
      addFunc: (obj, isInInitialList) =>
        handler(withDefaultPriority(queue, createPriority(isInInitialList))).addFunc?.(obj, isInInitialList),
      updateFunc: (oldObj, newObj) =>
        handler(withDefaultPriority(queue, updatePriority(oldObj, newObj))).updateFunc?.(oldObj, newObj),
      deleteFunc: (obj) => plain.deleteFunc?.(obj),
    };
  };
}
