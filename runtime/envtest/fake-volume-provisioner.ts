// With controllers: true there is still no storage: nothing provisions volumes, so a StatefulSet's claims would stay
// Pending and its pods unschedulable. This stands in for a static provisioner: for each Pending claim it creates a
// PersistentVolume reserved for it (claimRef), which kube-controller-manager's PV controller then binds.
import type { KubeClient } from "../client/kube-client.js";
import { isAlreadyExists } from "../client/api-error.js";
import { pollUntilStopped } from "./util.js";

/** What the provisioners read of a PersistentVolumeClaim. */
export interface ClaimView {
  metadata: { name: string; namespace: string; uid: string };
  spec: {
    accessModes?: string[];
    storageClassName?: string;
    volumeName?: string;
    volumeMode?: string;
    resources?: { requests?: Record<string, string> };
  };
  status?: { phase?: string };
}

/** A volume's reservation for the claim, which kube-controller-manager's PV controller binds it to. */
export function claimRefOf(claim: ClaimView): object {
  const { namespace, name, uid } = claim.metadata;
  return { apiVersion: "v1", kind: "PersistentVolumeClaim", namespace, name, uid };
}

/** Every claim in the cluster (none when the list fails: the next round asks again). */
export function listClaims(client: KubeClient, signal: AbortSignal): Promise<ClaimView[]> {
  return client.request<{ items: ClaimView[] }>({ method: "GET", path: "/api/v1/persistentvolumeclaims", signal }).then(
    (list) => list.items,
    () => [],
  );
}

/** Starts the provisioning loop; call the returned function to stop it. */
export function startFakeVolumeProvisioner(client: KubeClient, intervalMs = 300): () => void {
  const done = new Set<string>();
  return pollUntilStopped(intervalMs, async (signal) => {
    for (const claim of await listClaims(client, signal)) {
      if (claim.spec.volumeName || claim.status?.phase !== "Pending" || done.has(claim.metadata.uid)) continue;
      const name = `pv-${claim.metadata.uid}`;
      const volume = {
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name, labels: { "crdgen.dev/fake-volume": "true" } },
        spec: {
          capacity: { storage: claim.spec.resources?.requests?.["storage"] ?? "1Gi" },
          accessModes: claim.spec.accessModes ?? ["ReadWriteOnce"],
          storageClassName: claim.spec.storageClassName ?? "",
          volumeMode: claim.spec.volumeMode ?? "Filesystem",
          persistentVolumeReclaimPolicy: "Retain",
          // Never mounted: pods run on the kwok fake node, which starts no containers.
          hostPath: { path: `/fake-volumes/${name}` },
          claimRef: claimRefOf(claim),
        },
      };
      try {
        await client.request({ method: "POST", path: "/api/v1/persistentvolumes", body: volume, signal });
        done.add(claim.metadata.uid);
      } catch (error) {
        if (isAlreadyExists(error)) done.add(claim.metadata.uid);
      }
    }
  });
}
