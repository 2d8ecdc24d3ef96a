// The manager package's public exports: leader election, metrics, probes, the operator process (options, startManager) and RBAC.
export * from "./leader-election.js";
export * from "./metrics.js";
export * from "./health.js";
export * from "./options.js";
export * from "./manager.js";
export * from "./rbac.js";
