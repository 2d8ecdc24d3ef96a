// @crdgen/runtime: the operator author's API, what hooks, main.ts and generated code use. Everything else is behind
// the subpaths of runtime/package.json "exports"; README.md's "The runtime's API" lists both (root-exports.test.ts
// keeps them in step), and test/architecture/public-api.snapshot.txt holds every name each entry point publishes.

// Talking to the API server.
export type { KubeClient, LoadKubeClientOptions } from "./client/kube-client.js";
export { loadKubeClient } from "./client/kube-client.js";
export type { KubernetesObject, ResourceDescriptor, IntOrString } from "./client/types.js";
export { builtinResources } from "./client/builtin-resources.js";
export { ResourceClient } from "./client/resource-client.js";
export type { ApplyConfiguration } from "./client/patch.js";

// API errors.
export { ApiError, isNotFound, isConflict, isAlreadyExists, ignoreNotFound } from "./client/api-error.js";
export { retryOnConflict } from "./client/retry.js";

// Running the operator.
export { runManager, type ManagerConfig, type ManagedController } from "./manager/manager.js";
export { commandLineOptions, type ManagerOptions } from "./manager/options.js";

// Controllers and the reconcile contract.
export { Controller, type ControllerOptions } from "./controller/controller.js";
export { controllerFor, type ControllerHooks } from "./controller/controller-for.js";
export { TerminalError, type ReconcileContext, type ReconcileResult } from "./controller/reconcile.js";
export type { WatchSpec } from "./handler/event-handlers.js";
export type { ChildObjects } from "./children/child-objects.js";
export { contentHash } from "./children/content-hash.js";

// Status conditions and owner references.
export {
  type Condition,
  findStatusCondition,
  isStatusConditionTrue,
  setStatusCondition,
  removeStatusCondition,
} from "./meta/conditions.js";
export { controllerOwnerReference } from "./meta/owner-references.js";

// Events and logs.
export { newEventRecorder, type EventRecorder } from "./events/event-recorder.js";
export { newLogger, fromPino, type Logger } from "./log/logger.js";
