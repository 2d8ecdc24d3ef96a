// The manager package's public exports: leader election on a coordination.k8s.io/v1 Lease.
export * from "./leader-election.js";
export * from "./metrics.js";
export * from "./health.js";
