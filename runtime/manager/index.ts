// @crdgen/runtime/manager: the operator process beyond runManager: startManager, runControllers, probes, flags, RBAC.
export { type ManagedController, type Manager, type ManagerConfig, runManager, startManager } from "./manager.js";
export { shardingFor } from "./sharding.js";
export {
  GracefulShutdownTimeoutError,
  LeaderElectionLostError,
  type LeaderElectionConfig,
  type Runnable,
  type RunControllersOptions,
  runControllers,
} from "./run-controllers.js";
export {
  type CheckFn,
  type HealthCheck,
  type ProbeServer,
  type ProbeServerOptions,
  cacheSyncedCheck,
  ping,
  startProbeServer,
} from "./health.js";
export {
  type BindAddress,
  type ManagerOptions,
  commandLineOptions,
  managerUsage,
  parseManagerOptions,
} from "./options.js";
export {
  type AccessVerbs,
  type ClusterRole,
  type ControllerAccess,
  type NonResourceClusterRole,
  type PolicyRule,
  type RbacOptions,
  type Role,
  type Verb,
  accessVerbs,
  clusterRoleFor,
  leaderElectionRole,
  metricsAuthClusterRole,
  metricsReaderClusterRole,
  roleFor,
  rulesFor,
} from "./rbac.js";
// What ProbeServerOptions takes to serve /metrics over TLS to authorized callers only (--metrics-secure).
export { type MetricsAuthOptions, type MetricsAuthorizer, type Refusal, metricsAuthorizer } from "./metrics-auth.js";
export { type ServingCert, readServingCert, selfSignedCert } from "./serving-cert.js";
