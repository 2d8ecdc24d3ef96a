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
  const replicas = obj.spec?.replicas ?? 1;
  const sts = seen.statefulSet;
  const old = obj.status ?? {};
  let conditions: Condition[] = [...(old.conditions ?? [])];
  const set = (type: string, status: "True" | "False", reason: string, message: string) => {
    conditions = setStatusCondition(conditions, { type, status, reason, message, observedGeneration: generation }, now);
  };

  const complete = rolloutComplete(sts, replicas);
  const currentVersion = complete
    ? (sts?.spec?.template.metadata?.labels?.["app.kubernetes.io/version"] ?? obj.spec?.version)
    : old.currentVersion;
  const progressing = sts && !complete ? progress(obj, sts, replicas, currentVersion) : undefined;
  const ready = sts?.status?.readyReplicas ?? 0;

  if (seen.blocker) set("Ready", "False", seen.blocker.reason, seen.blocker.message);
  else if (!sts) set("Ready", "False", "StatefulSetNotFound", "the StatefulSet does not exist yet");
  else if (complete) set("Ready", "True", "AllReplicasReady", `${ready}/${replicas} instances ready`);
  else if (!currentVersion) set("Ready", "False", "Provisioning", `${ready}/${replicas} instances ready`);
  else if (progressing === "Upgrading" || progressing === "Restarting")
    set("Ready", "False", "RollingUpdate", `${sts.status?.updatedReplicas ?? 0}/${replicas} instances updated`);
  else set("Ready", "False", "ReplicasNotReady", `${ready}/${replicas} instances ready`);

  if (progressing) set("Progressing", "True", progressing, progressMessage(progressing, obj, currentVersion, replicas));
  else if (sts) set("Progressing", "False", "RolloutComplete", "every instance runs the current spec");

  if (seen.error !== undefined) set("Reconciled", "False", "ReconcileError", seen.error);
  else if (seen.refusedDowngrade) set("Reconciled", "False", "ReconcileError", seen.refusedDowngrade);
  else set("Reconciled", "True", "ReconcileSucceeded", "children match the spec");

  if (obj.spec?.backup) {
    if (seen.cronJob)
      set(
        "BackupScheduled",
        "True",
        "CronJobReady",
        `CronJob ${childNames(obj.metadata.name!).backup} schedules "${obj.spec.backup.schedule}"`,
      );
    else set("BackupScheduled", "False", "CronJobError", seen.error ?? "the backup CronJob does not exist");
  } else {
    conditions = removeStatusCondition(conditions, "BackupScheduled");
  }

  const phase = phaseOf(seen.blocker !== undefined || !sts, currentVersion, progressing, complete);
  const backupStatus =
    obj.spec?.backup && seen.cronJob?.status
      ? {
          ...(seen.cronJob.status.lastScheduleTime
            ? { lastScheduleTime: toRfc3339(seen.cronJob.status.lastScheduleTime) }
            : {}),
          ...(seen.cronJob.status.lastSuccessfulTime
            ? { lastSuccessfulTime: toRfc3339(seen.cronJob.status.lastSuccessfulTime) }
            : {}),
        }
      : undefined;
  return {
    observedGeneration: seen.error === undefined ? generation : (old.observedGeneration ?? 0),
    replicas: sts?.status?.replicas ?? 0,
    readyReplicas: ready,
    updatedReplicas: sts?.status?.updatedReplicas ?? 0,
    ...(currentVersion ? { currentVersion } : {}),
    selector: selectorString(obj),
    endpoint: `${childNames(obj.metadata.name!).client}.${obj.metadata.namespace}.svc:3306`,
    rootPasswordSecret: rootPasswordRef(obj).name,
    phase,
    ...(backupStatus && Object.keys(backupStatus).length > 0 ? { backup: backupStatus } : {}),
    conditions,
  };
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
