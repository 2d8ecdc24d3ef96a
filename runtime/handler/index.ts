// @crdgen/runtime/handler: informer events -> workqueue keys (event handlers) and the filters in between (predicates).
export {
  type WatchSpec,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
} from "./event-handlers.js";
export {
  type Predicate,
  type PrimaryWatchOptions,
  finalizersOrDeletionChangedPredicate,
  generationChangedPredicate,
  or,
  primaryPredicates,
} from "./predicates.js";
export { type KeyQueue, type QueueHandler, withLowPriorityWhenUnchanged } from "./queue-priority.js";
