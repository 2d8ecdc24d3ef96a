// @crdgen/runtime/leaderelection: Lease-based leader election (client-go tools/leaderelection), as runManager uses it.
export {
  type Lease,
  type LeaseLock,
  type LeaseSpec,
  type LeaderElectionOutcome,
  type LeaderElectorOptions,
  type LeaderMetric,
  LeaderElector,
  defaultLeaderIdentity,
  kubeLeaseLock,
} from "./leader-election.js";
/** The timestamp format of a Lease's acquireTime and renewTime (metav1.MicroTime). */
export { microTime } from "../meta/micro-time.js";
