// Type-level tests of generated clients and listers: scope decides the namespace argument, subresources decide the
// extra verbs.
// `npx tsc -b` is the test runner: each @ts-expect-error must meet an error, every other line must compile. Nothing here runs.
/* eslint-disable @typescript-eslint/no-unsafe-call -- the calls flagged are the @ts-expect-error ones: a verb the client must not have is unresolved by design */
import type { StoragePool } from "../../../fixtures/schema/cluster-scoped/expected/cluster-scoped.fixtures.crdgen.dev/v1/storagepool.types.js";
import type { StoragePoolClient } from "../../../fixtures/schema/cluster-scoped/expected/cluster-scoped.fixtures.crdgen.dev/v1/storagepool.client.js";
import type { StoragePoolLister } from "../../../fixtures/schema/cluster-scoped/expected/cluster-scoped.fixtures.crdgen.dev/v1/storagepool.lister.js";
import type { WorkerPool } from "../../../fixtures/schema/scale-subresource/expected/scale-subresource.fixtures.crdgen.dev/v1/workerpool.types.js";
import type { WorkerPoolClient } from "../../../fixtures/schema/scale-subresource/expected/scale-subresource.fixtures.crdgen.dev/v1/workerpool.client.js";
import type { Rollout } from "../../../fixtures/schema/enum-strings/expected/enum-strings.fixtures.crdgen.dev/v1/rollout.types.js";
import type { RolloutClient } from "../../../fixtures/schema/enum-strings/expected/enum-strings.fixtures.crdgen.dev/v1/rollout.client.js";
import type { RolloutLister } from "../../../fixtures/schema/enum-strings/expected/enum-strings.fixtures.crdgen.dev/v1/rollout.lister.js";
import type { Backup } from "../../../fixtures/schema/multi-version/expected/multi-version.fixtures.crdgen.dev/v1/backup.types.js";
import type { BackupClient } from "../../../fixtures/schema/multi-version/expected/multi-version.fixtures.crdgen.dev/v1/backup.client.js";
import type { BackupClient as BackupV1alpha1Client } from "../../../fixtures/schema/multi-version/expected/multi-version.fixtures.crdgen.dev/v1alpha1/backup.client.js";

declare const storagePools: StoragePoolClient; // cluster-scoped, no subresources
declare const workerPools: WorkerPoolClient; // namespaced, status and scale
declare const rollouts: RolloutClient; // namespaced, no subresources
declare const backups: BackupClient; // namespaced, status only (v1)
declare const alphaBackups: BackupV1alpha1Client; // the same kind in v1alpha1, whose version has no status subresource
declare const pool: StoragePool;
declare const worker: WorkerPool;
declare const rollout: Rollout;
declare const backup: Backup;

export async function clusterScopedVerbsTakeNoNamespace(): Promise<void> {
  await storagePools.get("fast");
  // @ts-expect-error a cluster-scoped kind's verbs take no namespace
  await storagePools.get("ns", "fast");
  await storagePools.delete("fast");
  // @ts-expect-error a cluster-scoped kind's verbs take no namespace
  await storagePools.delete("ns", "fast");
  await storagePools.patch("fast", { type: "merge", body: { spec: { tier: "slow" } } });
  // @ts-expect-error a cluster-scoped client has no namespace()
  storagePools.namespace("ns");
  await storagePools.list({ labelSelector: "tier=fast" });
  await storagePools.create(pool);
}

export async function namespacedVerbsNeedANamespaceFirst(): Promise<void> {
  await workerPools.namespace("ns").get("w");
  // @ts-expect-error a namespaced client picks a namespace first
  await workerPools.get("w");
  await workerPools.listAllNamespaces();
  await rollouts.namespace("ns").delete("r");
}

export async function updateStatusExistsOnlyWithTheStatusSubresource(): Promise<void> {
  await workerPools.namespace("ns").updateStatus(worker);
  await workerPools.namespace("ns").patchStatus("w", { type: "merge", body: { status: { replicas: 2 } } });
  await backups.namespace("ns").updateStatus(backup);
  // @ts-expect-error StoragePool has no status subresource
  await storagePools.updateStatus(pool);
  // @ts-expect-error StoragePool has no status subresource
  await storagePools.patchStatus("fast", { type: "merge", body: {} });
  // @ts-expect-error Rollout has no status subresource
  await rollouts.namespace("ns").updateStatus(rollout);
  // @ts-expect-error the v1alpha1 version of Backup has no status subresource, only v1 has
  await alphaBackups.namespace("ns").updateStatus(backup);
}

export async function scaleVerbsExistOnlyWithTheScaleSubresource(): Promise<void> {
  const scale = await workerPools.namespace("ns").getScale("w");
  await workerPools.namespace("ns").updateScale("w", scale);
  // @ts-expect-error Backup has the status subresource but not scale
  await backups.namespace("ns").getScale("b");
  // @ts-expect-error StoragePool has no scale subresource
  await storagePools.getScale("fast");
}

export async function verbsTakeTheirOwnKind(): Promise<void> {
  // @ts-expect-error a WorkerPool is not a StoragePool
  await storagePools.create(worker);
  // @ts-expect-error the kind literal is checked
  await storagePools.update({ ...pool, kind: "WorkerPool" });
}

export function clusterScopedListerGetsByNameOnly(lister: StoragePoolLister): Array<StoragePool | undefined> {
  // @ts-expect-error a cluster-scoped lister's get takes only the name
  const namespaced = lister.get("ns", "fast");
  return [lister.get("fast"), namespaced, ...lister.list("tier=fast")];
}

export function namespacedListerGetsByNamespaceAndName(lister: RolloutLister): Array<Rollout | undefined> {
  // @ts-expect-error a namespaced lister's get needs the namespace too
  const nameOnly = lister.get("r");
  return [lister.get("ns", "r"), lister.namespace("ns").get("r"), nameOnly];
}
