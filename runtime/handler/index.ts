// @crdgen/runtime/handler: informer events -> workqueue keys (event handlers) and the filters in between (predicates).
export * from "./event-handlers.js";
export * from "./predicates.js";
export { type KeyQueue, type QueueHandler, withLowPriorityWhenUnchanged } from "./queue-priority.js";
