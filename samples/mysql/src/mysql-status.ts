// User-owned: a MySQLCluster's status from what its children report (its conditions and phase, which
// test/e2e/mysql-behaviours.test.ts checks). Pure functions.
import type { V1CronJob, V1StatefulSet } from "@kubernetes/client-node";
import { findStatusCondition, removeStatusCondition, setStatusCondition } from "@crdgen/runtime";
import type {
  MySQLCluster,
  MySQLClusterStatus,
  MySQLClusterStatusCondition,
  MySQLClusterStatusPhase,
} from "../generated/example.com/v1/mysqlcluster.types.js";
import { childNames, rootPasswordRef, selectorString } from "./mysql-children.js";

type Condition = MySQLClusterStatusCondition;

/** Why the cluster cannot run, when it cannot: decided before the StatefulSet is written. */
export type Blocker =
  { reason: "RootPasswordSecretNotFound"; message: string } | { reason: "RootPasswordSecretMissing"; message: string };

export interface Observed {
  statefulSet: V1StatefulSet | undefined;
  cronJob: V1CronJob | undefined;
  blocker: Blocker | undefined;
  /** The error of this reconcile, if it failed. */
  error: string | undefined;
  /** Set when spec.version asks for a series downgrade that the reconciler refused. */
  refusedDowngrade: string | undefined;
  now?: Date;
}

/** moco's StatefulSetReady rule: the controller saw the latest spec and every instance runs it and is ready. */
export function rolloutComplete(sts: V1StatefulSet | undefined, replicas: number): boolean {
  const s = sts?.status;
  return (
    !!sts &&
    !!s &&
    s.observedGeneration === sts.metadata?.generation &&
    (s.readyReplicas ?? 0) === replicas &&
    (s.updatedReplicas ?? 0) === replicas &&
    s.currentRevision === s.updateRevision
  );
}

/** Progressing=True with its reason, or undefined when nothing is rolling. */
function progress(
  obj: MySQLCluster,
  sts: V1StatefulSet,
  replicas: number,
  runningVersion: string | undefined,
): string | undefined {
  const s = sts.status ?? { replicas: 0 };
  const wantedVersion = obj.spec?.version;
  if (s.replicas < replicas) return "ScalingUp";
  if (s.replicas > replicas) return "ScalingDown";
  const notObserved = s.observedGeneration !== sts.metadata?.generation;
  const notUpdated = (s.updatedReplicas ?? 0) < replicas || s.currentRevision !== s.updateRevision;
  if (notObserved || notUpdated) return runningVersion && runningVersion !== wantedVersion ? "Upgrading" : "Restarting";
  return undefined;
}

export function desiredStatus(obj: MySQLCluster, seen: Observed): MySQLClusterStatus {
  const now = seen.now ?? new Date();
  const generation = obj.metadata.generation ?? 0;
  const old = obj.status ?? {};
  const r = rolloutOf(obj, seen.statefulSet, old.currentVersion);
  let conditions: Condition[] = [...(old.conditions ?? [])];
  const set = (type: string, c: ConditionValue | undefined) => {
    if (c) conditions = setStatusCondition(conditions, { type, ...c, observedGeneration: generation }, now);
  };
  set("Ready", readyCondition(seen.blocker, r));
  set("Progressing", progressingCondition(obj, r));
  set("Reconciled", reconciledCondition(seen));
  if (obj.spec?.backup) set("BackupScheduled", backupCondition(obj, obj.spec.backup.schedule, seen));
  else conditions = removeStatusCondition(conditions, "BackupScheduled");

  const backup = backupStatus(obj, seen.cronJob);
  return {
    observedGeneration: seen.error === undefined ? generation : (old.observedGeneration ?? 0),
    ...instanceCounts(r),
    ...(r.currentVersion ? { currentVersion: r.currentVersion } : {}),
    selector: selectorString(obj),
    endpoint: `${childNames(obj.metadata.name!).client}.${obj.metadata.namespace}.svc:3306`,
    rootPasswordSecret: rootPasswordRef(obj).name,
    phase: phaseOf(seen.blocker !== undefined || !r.sts, r.currentVersion, r.progressing, r.complete),
    ...(backup ? { backup } : {}),
    conditions,
  };
}

/** A condition's status, reason and message (setStatusCondition adds type, observedGeneration and the time). */
interface ConditionValue {
  status: "True" | "False";
  reason: string;
  message: string;
}

const condition = (status: "True" | "False", reason: string, message: string): ConditionValue => ({
  status,
  reason,
  message,
});

/** Where the StatefulSet's rollout stands. */
interface Rollout {
  sts: V1StatefulSet | undefined;
  replicas: number;
  ready: number;
  complete: boolean;
  /** The version every instance runs once a rollout completed; until the next one completes, the last one's. */
  currentVersion: string | undefined;
  /** Progressing's reason, when something is rolling. */
  progressing: string | undefined;
}

function rolloutOf(obj: MySQLCluster, sts: V1StatefulSet | undefined, lastVersion: string | undefined): Rollout {
  const replicas = obj.spec?.replicas ?? 1;
  const complete = rolloutComplete(sts, replicas);
  const currentVersion = complete
    ? (sts?.spec?.template.metadata?.labels?.["app.kubernetes.io/version"] ?? obj.spec?.version)
    : lastVersion;
  const progressing = sts && !complete ? progress(obj, sts, replicas, currentVersion) : undefined;
  return { sts, replicas, ready: sts?.status?.readyReplicas ?? 0, complete, currentVersion, progressing };
}

function instanceCounts(r: Rollout): Pick<MySQLClusterStatus, "replicas" | "readyReplicas" | "updatedReplicas"> {
  return {
    replicas: r.sts?.status?.replicas ?? 0,
    readyReplicas: r.ready,
    updatedReplicas: r.sts?.status?.updatedReplicas ?? 0,
  };
}

function readyCondition(blocker: Blocker | undefined, r: Rollout): ConditionValue {
  const { sts, ready, replicas } = r;
  if (blocker) return condition("False", blocker.reason, blocker.message);
  if (!sts) return condition("False", "StatefulSetNotFound", "the StatefulSet does not exist yet");
  if (r.complete) return condition("True", "AllReplicasReady", `${ready}/${replicas} instances ready`);
  if (!r.currentVersion) return condition("False", "Provisioning", `${ready}/${replicas} instances ready`);
  if (r.progressing === "Upgrading" || r.progressing === "Restarting")
    return condition("False", "RollingUpdate", `${sts.status?.updatedReplicas ?? 0}/${replicas} instances updated`);
  return condition("False", "ReplicasNotReady", `${ready}/${replicas} instances ready`);
}

/** Undefined (left as it was) until the StatefulSet exists. */
function progressingCondition(obj: MySQLCluster, r: Rollout): ConditionValue | undefined {
  if (r.progressing)
    return condition("True", r.progressing, progressMessage(r.progressing, obj, r.currentVersion, r.replicas));
  return r.sts ? condition("False", "RolloutComplete", "every instance runs the current spec") : undefined;
}

function reconciledCondition(seen: Observed): ConditionValue {
  if (seen.error !== undefined) return condition("False", "ReconcileError", seen.error);
  if (seen.refusedDowngrade) return condition("False", "ReconcileError", seen.refusedDowngrade);
  return condition("True", "ReconcileSucceeded", "children match the spec");
}

function backupCondition(obj: MySQLCluster, schedule: string, seen: Observed): ConditionValue {
  if (!seen.cronJob) return condition("False", "CronJobError", seen.error ?? "the backup CronJob does not exist");
  const cronJob = childNames(obj.metadata.name!).backup;
  return condition("True", "CronJobReady", `CronJob ${cronJob} schedules "${schedule}"`);
}

/** status.backup from the CronJob's last scheduled and last successful runs; undefined when it has neither. */
function backupStatus(obj: MySQLCluster, cronJob: V1CronJob | undefined): MySQLClusterStatus["backup"] {
  const s = cronJob?.status;
  if (!obj.spec?.backup || !s) return undefined;
  const backup = {
    ...(s.lastScheduleTime ? { lastScheduleTime: toRfc3339(s.lastScheduleTime) } : {}),
    ...(s.lastSuccessfulTime ? { lastSuccessfulTime: toRfc3339(s.lastSuccessfulTime) } : {}),
  };
  return Object.keys(backup).length > 0 ? backup : undefined;
}

/** Phase is derived from the conditions, never stored on its own. */
function phaseOf(
  pending: boolean,
  currentVersion: string | undefined,
  progressing: string | undefined,
  complete: boolean,
): MySQLClusterStatusPhase {
  if (pending) return "Pending";
  if (!currentVersion) return "Provisioning";
  if (progressing === "ScalingUp" || progressing === "ScalingDown") return "Scaling";
  if (progressing) return "Updating";
  return complete ? "Ready" : "Degraded";
}

function progressMessage(
  reason: string,
  obj: MySQLCluster,
  currentVersion: string | undefined,
  replicas: number,
): string {
  switch (reason) {
    case "ScalingUp":
    case "ScalingDown":
      return `scaling to ${replicas} instances`;
    case "Upgrading":
      return `upgrading from ${currentVersion} to ${obj.spec?.version}`;
    default:
      return "rolling the instances to a new pod template";
  }
}

function toRfc3339(t: Date | string): string {
  return (typeof t === "string" ? t : t.toISOString()).replace(/\.\d{3}Z$/, "Z");
}

export { findStatusCondition };
