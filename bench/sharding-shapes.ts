// The MySQLClusters the sharding benchmark creates (BENCH_OBJECT_SHAPE). "tiny": spec.replicas and spec.version only,
// what a cluster looks like before its first reconcile. "reconciled": a cluster as `kubectl apply -f` of the sample's
// cluster.yaml (with two labels) and the sample operator's reconciles leave it once its StatefulSet is ready: the
// last-applied-configuration annotation kubectl writes, and the status the sample's own desiredStatus() computes for a
// complete rollout (readyReplicas, currentVersion, selector, endpoint, phase, and the Ready, Progressing and Reconciled
// conditions with their reasons, messages and times). Nothing is padded: every field is one the sample or kubectl
// writes.
import type { KubeClient } from "@crdgen/runtime/client";
import type { V1StatefulSet } from "@kubernetes/client-node";
import type { MySQLCluster } from "../samples/mysql/generated/example.com/v1/index.js";
import { desiredStatus } from "../samples/mysql/src/mysql-status.js";

export type ObjectShape = "tiny" | "reconciled";

export function objectShape(value = process.env["BENCH_OBJECT_SHAPE"] ?? "tiny"): ObjectShape {
  if (value === "tiny" || value === "reconciled") return value;
  throw new Error(`BENCH_OBJECT_SHAPE must be "tiny" or "reconciled", not "${value}"`);
}

const collection = "/apis/example.com/v1/namespaces/default/mysqlclusters";

/** The manifest a user applies: the sample's cluster.yaml (3 instances of 8.0.36), named, with two labels. */
function applied(name: string, i: number) {
  return {
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: {
      name,
      namespace: "default",
      labels: { "app.kubernetes.io/part-of": `shop-${i % 100}`, environment: "production" },
    },
    spec: { replicas: 3, version: "8.0.36" },
  };
}

/** The StatefulSet of a cluster whose rollout completed: every instance ready and running the current revision. */
function readyStatefulSet(name: string, replicas: number, version: string): V1StatefulSet {
  const revision = `${name}-5d8c7f9b6c`;
  return {
    metadata: { name, generation: 1 },
    spec: {
      replicas,
      serviceName: `${name}-headless`,
      selector: {},
      template: { metadata: { labels: { "app.kubernetes.io/version": version } } },
    },
    status: {
      observedGeneration: 1,
      replicas,
      readyReplicas: replicas,
      updatedReplicas: replicas,
      currentRevision: revision,
      updateRevision: revision,
    },
  };
}

/** Creates object i in the given shape (one request for "tiny"; a create and a status patch for "reconciled"). */
export async function createObject(kube: KubeClient, shape: ObjectShape, i: number): Promise<void> {
  const name = `mysql-${String(i).padStart(6, "0")}`;
  if (shape === "tiny") {
    await kube.request({
      method: "POST",
      path: collection,
      body: {
        apiVersion: "example.com/v1",
        kind: "MySQLCluster",
        metadata: { name },
        spec: { replicas: 1, version: "8.0.36" },
      },
    });
    return;
  }
  const manifest = applied(name, i);
  const lastApplied = `${JSON.stringify(manifest)}\n`; // what kubectl apply stores: the manifest as applied
  const body = {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      annotations: { "kubectl.kubernetes.io/last-applied-configuration": lastApplied },
    },
  };
  const created = await kube.request<MySQLCluster>({ method: "POST", path: collection, body });
  const { replicas, version } = created.spec!;
  const status = desiredStatus(created, {
    statefulSet: readyStatefulSet(name, replicas ?? 1, version),
    cronJob: undefined,
    blocker: undefined,
    error: undefined,
    refusedDowngrade: undefined,
  });
  await kube.request({
    method: "PATCH",
    path: `${collection}/${name}/status`,
    contentType: "application/merge-patch+json",
    body: { status },
  });
}
