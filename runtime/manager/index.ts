// @crdgen/runtime/manager: the operator process beyond runManager: startManager, runControllers, probes, flags, RBAC.
export * from "./manager.js";
export * from "./run-controllers.js";
export * from "./health.js";
export * from "./options.js";
export * from "./rbac.js";
export * from "./metrics-auth.js";
export * from "./serving-cert.js";
