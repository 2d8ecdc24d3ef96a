// User-owned: crdgen created this file once and never overwrites it. Your MySQLCluster operator logic lives here.
import { randomInt } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { V1Secret, V1StatefulSet } from "@kubernetes/client-node";
import {
  ResourceClient,
  builtinResources as kinds,
  ignoreNotFound,
  type ReconcileResult,
  type WatchSpec,
} from "@crdgen/runtime";
import type { MySQLCluster, MySQLClusterStatus } from "../generated/example.com/v1/mysqlcluster.types.js";
import type { MySQLClusterContext } from "../generated/example.com/v1/mysqlcluster.controller.js";
import * as child from "./mysql-children.js";
import { desiredStatus, type Blocker, type Observed } from "./mysql-status.js";

/** Server-side apply owner of every field this operator writes (ctx.children.apply uses it). */
export const fieldManager = child.operatorName;

/**
 * Kinds reconcile creates with a controller ownerReference to the MySQLCluster: their events (a StatefulSet's status
 * moving, a Service deleted by hand) reconcile the owner, so nothing here polls.
 */
export const owns = [
  kinds.statefulSets,
  kinds.services,
  kinds.configMaps,
  kinds.serviceAccounts,
  kinds.podDisruptionBudgets,
  kinds.cronJobs,
];

/**
 * The generated Secret and the backup volume are owner-referenced only with reclaimPolicy Delete, so they are
 * watched by the managed-by label and mapped to their cluster by the instance label.
 */
export const watches: WatchSpec[] = [kinds.secrets, kinds.persistentVolumeClaims].map((resource) => ({
  resource,
  labelSelector: `app.kubernetes.io/managed-by=${child.operatorName}`,
  mapToKeys: (obj) => {
    const instance = obj.metadata?.labels?.["app.kubernetes.io/instance"];
    return instance ? [`${obj.metadata?.namespace}/${instance}`] : [];
  },
}));

/** How long to wait before looking again for a user's root password Secret (it is not watched). */
const secretRecheckMs = 15_000;

/**
 * Makes the cluster match obj.spec (the children, status and lifecycle rules docs/mysql-sample.md lists,
 * each shown by test/e2e/mysql-behaviours.test.ts): every child is applied only when it would change, and status is
 * written only when it differs, so a steady-state reconcile sends no write at all.
 */
export async function reconcile(ctx: MySQLClusterContext, obj: MySQLCluster): Promise<ReconcileResult | undefined> {
  const names = child.childNames(obj.metadata.name!);
  const seen: Seen = {
    statefulSet: ctx.children.get<V1StatefulSet>(kinds.statefulSets, obj.metadata.namespace, names.statefulSet),
    cronJob: undefined,
    blocker: undefined,
    refusedDowngrade: undefined,
  };
  let failure: unknown;
  try {
    await applyChildren(ctx, obj, seen);
  } catch (error) {
    failure = error;
  }

  const error = failure === undefined ? undefined : errorMessage(failure);
  const status = desiredStatus(obj, { ...seen, error });
  await writeStatus(ctx, obj, status);
  if (error !== undefined) {
    await ctx.recorder.event(obj, "Warning", "ReconcileError", error.slice(0, 1000));
    throw failure; // requeued with the rate limiter's backoff
  }
  if (status.observedGeneration !== obj.status?.observedGeneration) {
    await ctx.recorder.event(
      obj,
      "Normal",
      "Observed",
      `generation ${status.observedGeneration} observed (replicas ${obj.spec?.replicas}, version ${obj.spec?.version})`,
    );
  }
  // The user's Secret is not watched: look again later. Everything else arrives as events of owned or watched kinds.
  if (seen.blocker?.reason === "RootPasswordSecretNotFound") return { requeueAfter: secretRecheckMs };
}

/** What applying the children saw, as far as it got before a failure: the status is computed from it either way. */
type Seen = Pick<Observed, "statefulSet" | "cronJob" | "blocker" | "refusedDowngrade">;

/** Applies every child the spec asks for and deletes those it no longer does, recording what it saw in `seen`. */
async function applyChildren(ctx: MySQLClusterContext, obj: MySQLCluster, seen: Seen): Promise<void> {
  const { children } = ctx;
  const namespace = obj.metadata.namespace!;
  const names = child.childNames(obj.metadata.name!);
  seen.blocker = await ensureRootPassword(ctx, obj, seen.statefulSet !== undefined);
  await children.apply(kinds.configMaps, child.configMap(obj));
  await children.apply(kinds.serviceAccounts, child.serviceAccount(obj));
  await children.apply(kinds.services, child.headlessService(obj));
  await children.apply(kinds.services, child.clientService(obj));
  const version = versionToRun(obj, seen.statefulSet);
  seen.refusedDowngrade =
    version === obj.spec?.version
      ? undefined
      : `downgrade from ${version} to ${obj.spec?.version} refused: an in-place downgrade across major.minor series is unsupported`;
  // Without its password Secret the StatefulSet's pods could not start (or would start with another password).
  if (!seen.blocker)
    seen.statefulSet = (await children.apply(kinds.statefulSets, child.statefulSet(obj, version))).object;
  if ((obj.spec?.replicas ?? 1) >= 2) await children.apply(kinds.podDisruptionBudgets, child.podDisruptionBudget(obj));
  else await children.delete(kinds.podDisruptionBudgets, namespace, names.pdb);
  if (obj.spec?.backup) {
    await children.apply(kinds.persistentVolumeClaims, child.backupVolume(obj));
    seen.cronJob = (await children.apply(kinds.cronJobs, child.backupCronJob(obj, version))).object;
  } else {
    await children.delete(kinds.cronJobs, namespace, names.backup);
  }
}

/**
 * Makes sure the root password exists. The user's Secret is only read. The generated one is created once; it is never
 * regenerated while a StatefulSet exists, because the data directory already holds the old password.
 */
async function ensureRootPassword(
  ctx: MySQLClusterContext,
  obj: MySQLCluster,
  statefulSetExists: boolean,
): Promise<Blocker | undefined> {
  const namespace = obj.metadata.namespace!;
  const secrets = new ResourceClient<V1Secret>(ctx.kube, kinds.secrets);
  const ref = obj.spec?.rootPasswordSecretRef;
  if (ref) {
    const key = ref.key ?? "password";
    const secret = await secrets.get(namespace, ref.name).catch(ignoreNotFound);
    if (!secret?.data?.[key])
      return { reason: "RootPasswordSecretNotFound", message: `Secret ${ref.name} with key ${key} not found` };
    return undefined;
  }
  const name = child.childNames(obj.metadata.name!).rootSecret;
  // The cache can lag behind a create of a moment ago: read the server before concluding the Secret is missing.
  const existing =
    ctx.children.get<V1Secret>(kinds.secrets, namespace, name) ??
    (await secrets.get(namespace, name).catch(ignoreNotFound));
  if (!existing) {
    if (statefulSetExists) {
      return {
        reason: "RootPasswordSecretMissing",
        message: `Secret ${name} was deleted while the StatefulSet exists; restore it (a new password would not match the data)`,
      };
    }
    await secrets.patch(namespace, name, {
      type: "apply",
      body: child.rootSecretData(obj, generatePassword()),
      fieldManager: `${child.operatorName}-password`,
      force: true,
    });
  }
  await ctx.children.apply(kinds.secrets, child.rootSecretMetadata(obj));
  return undefined;
}

/** 32 characters of [A-Za-z0-9] from the crypto RNG: safe to pass through shell probes. */
/** The message of a caught error, whatever was thrown. */
function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function generatePassword(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from({ length: 32 }, () => alphabet[randomInt(alphabet.length)]).join("");
}

/** spec.version, unless that is a series downgrade from what runs (CEL rejects it; this guards a bypass). */
function versionToRun(obj: MySQLCluster, sts: V1StatefulSet | undefined): string {
  const wanted = obj.spec!.version;
  const running = obj.status?.currentVersion ?? sts?.spec?.template.metadata?.labels?.["app.kubernetes.io/version"];
  if (!running) return wanted;
  const series = (v: string) => v.split(".").slice(0, 2).map(Number) as [number, number];
  const [wMajor, wMinor] = series(wanted);
  const [rMajor, rMinor] = series(running);
  return wMajor < rMajor || (wMajor === rMajor && wMinor < rMinor) ? running : wanted;
}

/** Writes status only when it differs (a merge patch; fields that went away are sent as null). */
async function writeStatus(ctx: MySQLClusterContext, obj: MySQLCluster, status: MySQLClusterStatus): Promise<void> {
  const old = (obj.status ?? {}) as Record<string, unknown>;
  if (isDeepStrictEqual(status, old)) return;
  const body: Record<string, unknown> = { ...status };
  for (const key of Object.keys(old)) if (!(key in body)) body[key] = null;
  // A child's event can reconcile a cluster the moment it is deleted: gone is fine, there is no status to write.
  const patched = await ctx.client
    .namespace(obj.metadata.namespace!)
    .patchStatus(obj.metadata.name!, { type: "merge", body: { status: body } })
    .catch(ignoreNotFound);
  if (!patched) return;
  ctx.log.info("status updated", {
    observedGeneration: status.observedGeneration,
    phase: status.phase,
    readyReplicas: status.readyReplicas,
  });
}
