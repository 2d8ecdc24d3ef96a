// The method and field names the linker reads as queue operations, handler registrations and handler functions.

/** Workqueue methods (client-go and @crdgen/runtime) that put a key in, take one out, and finish with it. */
export const ADD_METHODS = new Set([
  "Add",
  "AddAfter",
  "AddRateLimited",
  "add",
  "addAfter",
  "addRateLimited",
  // controller-runtime's priority queue: the key is the second argument
  "AddWithOpts",
  // async.queue, fastq: the libraries' own names for adding a task
  "push",
  "unshift",
  "pushAsync",
  "unshiftAsync",
]);
/** controller-runtime's priority queue hands out (key, priority, shutdown) from `GetWithPriority`. */
export const GET_METHODS = new Set(["Get", "GetWithPriority", "get"]);
export const DONE_METHODS = new Set(["Done", "done"]);
export const FORGET_METHODS = new Set(["Forget", "forget"]);
export const REGISTER_METHODS = new Set([
  "AddEventHandler",
  "AddEventHandlerWithResyncPeriod",
  "AddEventHandlerWithOptions",
  "addEventHandler",
]);
/** Own queue types: method names that put in and take out. */
export const OWN_ADD = /^(add|enqueue|push|put)$/i;
export const OWN_GET = /^(get|dequeue|pop|take|next)$/i;
export const HANDLER_FIELDS: [string, string][] = [
  ["AddFunc", "add"],
  ["UpdateFunc", "update"],
  ["DeleteFunc", "delete"],
  ["addFunc", "add"],
  ["updateFunc", "update"],
  ["deleteFunc", "delete"],
  ["OnAdd", "add"],
  ["OnUpdate", "update"],
  ["OnDelete", "delete"],
];

/** The order handlers are listed in, by event. */
export const EVENT_ORDER = ["add", "update", "delete", "watch", "map"];
/** @kubernetes/client-node informer events (`informer.on("change", fn)`) and the event each stands for. */
export const CLIENT_NODE_EVENTS: Record<string, string> = {
  add: "add",
  update: "update",
  change: "update",
  delete: "delete",
};
