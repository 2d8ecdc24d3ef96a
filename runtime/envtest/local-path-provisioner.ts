// With a real node, claims need real storage: this provisions every claim of the default StorageClass it installs
// (crdgen-local-path) as a folder of the node's folder, mounted by the kubelet as a hostPath volume pinned to the
// node, and removes the folder and the volume once a deleted claim released it (reclaim policy Delete).
import { chmod, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { KubeClient } from "../client/kube-client.js";
import { isAlreadyExists } from "../client/api-error.js";
import { claimRefOf, listClaims, type ClaimView } from "./fake-volume-provisioner.js";
import { pollUntilStopped } from "./util.js";

/** The default StorageClass of a real node, and the provisioner name its volumes carry. */
export const localPathStorageClass = "crdgen-local-path";
const provisionerName = "crdgen.dev/local-path";
const provisionedBy = "pv.kubernetes.io/provisioned-by";

interface VolumeView {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { hostPath?: { path?: string } };
  status?: { phase?: string };
}

export interface LocalPathProvisionerOptions {
  client: KubeClient;
  /** Where the volumes' folders are made (inside the node's folder, so that stopping the node removes them). */
  volumesDir: string;
  /** The node the volumes are pinned to. */
  nodeName: string;
  intervalMs?: number;
}

/** Installs the default StorageClass, then provisions and reclaims in a loop; the returned function stops it. */
export async function startLocalPathProvisioner(options: LocalPathProvisionerOptions): Promise<() => void> {
  const { client, nodeName } = options;
  const volumesDir = path.resolve(options.volumesDir);
  await mkdir(volumesDir, { recursive: true });
  try {
    await client.request({ method: "POST", path: "/apis/storage.k8s.io/v1/storageclasses", body: storageClass() });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  const provisioned = new Set<string>();
  const provision = async (claim: ClaimView, signal: AbortSignal): Promise<void> => {
    const { uid } = claim.metadata;
    // Each volume's folder is named by the claim's uid (never by its user-chosen name), so it stays in volumesDir.
    const name = `pvc-${uid}`;
    const folder = path.join(volumesDir, name);
    await mkdir(folder, { recursive: true });
    // Containers run as any user (mysqld as mysql): the folder is theirs, as rancher's local-path makes it.
    await chmod(folder, 0o777);
    try {
      await client.request({
        method: "POST",
        path: "/api/v1/persistentvolumes",
        body: volumeFor(claim, name, folder, nodeName),
        signal,
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    provisioned.add(uid);
  };
  const reclaim = async (volume: VolumeView, signal: AbortSignal): Promise<void> => {
    const folder = path.resolve(volume.spec.hostPath?.path ?? "");
    // A volume someone else annotated as ours must not make this remove a folder outside volumesDir.
    if (path.dirname(folder) === volumesDir) await rm(folder, { recursive: true, force: true });
    await client.request({ method: "DELETE", path: `/api/v1/persistentvolumes/${volume.metadata.name}`, signal });
  };
  return pollUntilStopped(options.intervalMs ?? 300, async (signal) => {
    const [claims, volumes] = await Promise.all([
      listClaims(client, signal),
      client.request<{ items: VolumeView[] }>({ method: "GET", path: "/api/v1/persistentvolumes", signal }).then(
        (list) => list.items,
        () => [] as VolumeView[],
      ),
    ]);
    for (const claim of claims) {
      if (claim.spec.storageClassName !== localPathStorageClass) continue;
      if (claim.spec.volumeName || claim.status?.phase !== "Pending") continue;
      if (provisioned.has(claim.metadata.uid)) continue;
      // Only filesystem volumes: a folder cannot be a block device (the claim stays Pending).
      if ((claim.spec.volumeMode ?? "Filesystem") !== "Filesystem") continue;
      await provision(claim, signal).catch(() => undefined); // tried again on the next round
    }
    for (const volume of volumes) {
      if (volume.metadata.annotations?.[provisionedBy] !== provisionerName) continue;
      if (volume.status?.phase !== "Released") continue;
      await reclaim(volume, signal).catch(() => undefined); // tried again on the next round
    }
  });
}

function storageClass(): object {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: {
      name: localPathStorageClass,
      annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
    },
    provisioner: provisionerName,
    reclaimPolicy: "Delete",
    // One node: binding at once is what WaitForFirstConsumer would choose anyway, and one step faster.
    volumeBindingMode: "Immediate",
  };
}

function volumeFor(claim: ClaimView, name: string, folder: string, nodeName: string): object {
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name, annotations: { [provisionedBy]: provisionerName } },
    spec: {
      capacity: { storage: claim.spec.resources?.requests?.["storage"] ?? "1Gi" },
      accessModes: claim.spec.accessModes ?? ["ReadWriteOnce"],
      storageClassName: localPathStorageClass,
      volumeMode: "Filesystem",
      persistentVolumeReclaimPolicy: "Delete",
      hostPath: { path: folder, type: "Directory" },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [nodeName] }] },
          ],
        },
      },
      claimRef: claimRefOf(claim),
    },
  };
}
