// kwok's part of startControlPlane({ controllers: true }): its stage definitions and the fake Node it manages.
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * kwok acts only through Stage objects (without them it exits with "no stages found"). The build
 * (`npx crdgen envtest --controllers`) extracts kwok's default stages (the ones kwokctl installs: node initialisation,
 * node heartbeat with a Lease, pods ready / complete / delete) from the kwok module into kwok-stages.yaml beside the
 * binary; this finds that file.
 */
export function kwokStagesFile(kwokBinary: string): string | undefined {
  const file = path.join(path.dirname(kwokBinary), "kwok-stages.yaml");
  return existsSync(file) ? file : undefined;
}

/** The annotation (and label) that marks a Node as kwok's; kwok runs with --manage-nodes-with-annotation-selector. */
export const kwokNodeAnnotation = "kwok.x-k8s.io/node";
export const kwokNodeAnnotationValue = "fake";

/** A fake Node for kwok: no taints, so every pod may be scheduled to it; allocatable is what the scheduler counts. */
export function kwokNode(name: string): object {
  const resources = { cpu: "32", memory: "256Gi", pods: "110" };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      annotations: { [kwokNodeAnnotation]: kwokNodeAnnotationValue, "node.alpha.kubernetes.io/ttl": "0" },
      labels: {
        [kwokNodeAnnotation]: kwokNodeAnnotationValue,
        type: "kwok",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
      },
    },
    spec: {},
    // Nodes keep the status they are created with; kwok's node-initialize stage keeps allocatable and capacity.
    status: { allocatable: resources, capacity: resources },
  };
}
