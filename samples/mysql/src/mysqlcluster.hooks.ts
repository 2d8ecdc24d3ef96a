// User-owned: crdgen created this file once and never overwrites it. Your MySQLCluster operator logic lives here.
import { isDeepStrictEqual } from "node:util";
import type { V1Service, V1StatefulSet } from "@kubernetes/client-node";
import { ResourceClient, builtinResources, controllerOwnerReference, isNotFound, type ApplyConfiguration } from "@crdgen/runtime";
import type { MySQLCluster, MySQLClusterStatus } from "../generated/example.com/v1/mysqlcluster.types.js";
import type { MySQLClusterContext } from "../generated/example.com/v1/mysqlcluster.controller.js";

/** Server-side apply owner of every field this operator writes. */
const fieldManager = "mysql-operator";

/**
 * The kinds reconcile creates with a controller ownerReference to the MySQLCluster. The generated controller watches
 * them: a change to the StatefulSet (its status.readyReplicas, say) or the Service, or its deletion, reconciles the
 * owning MySQLCluster, so nothing here polls.
 */
export const owns = [builtinResources.statefulSets, builtinResources.services];

/**
 * Makes the cluster match obj.spec: a headless Service and a StatefulSet running MySQL, both owned by obj,
 * written with server-side apply; then status. The MySQL operator issue grows this to the full design
 * (client Service, ConfigMap, Secret, conditions, backups).
 */
export async function reconcile(ctx: MySQLClusterContext, obj: MySQLCluster): Promise<void> {
  const name = obj.metadata.name!;
  const namespace = obj.metadata.namespace!;
  const replicas = obj.spec?.replicas ?? 1;
  const labels = { "app.kubernetes.io/name": "mysql", "app.kubernetes.io/instance": name, "app.kubernetes.io/managed-by": fieldManager };
  const owned = { namespace, labels, ownerReferences: [controllerOwnerReference(obj)] };

  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, ...owned },
    // Headless: gives each instance a stable DNS name, <name>-<ordinal>.<name>.
    spec: { clusterIP: "None", selector: labels, ports: [{ name: "mysql", port: 3306 }], publishNotReadyAddresses: true },
  } satisfies ApplyConfiguration<V1Service>;
  const statefulSet = {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, ...owned },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{
            name: "mysql",
            image: `mysql:${obj.spec?.version}`,
            ports: [{ name: "mysql", containerPort: 3306 }],
            env: [{ name: "MYSQL_ALLOW_EMPTY_PASSWORD", value: "yes" }],
            readinessProbe: { exec: { command: ["mysqladmin", "ping", "-h", "127.0.0.1"] }, periodSeconds: 5 },
          }],
        },
      },
    },
  } satisfies ApplyConfiguration<V1StatefulSet>;
  await new ResourceClient<V1Service>(ctx.kube, builtinResources.services).patch(namespace, name, { type: "apply", body: service, fieldManager, force: true });
  const applied = await new ResourceClient<V1StatefulSet>(ctx.kube, builtinResources.statefulSets).patch(namespace, name, { type: "apply", body: statefulSet, fieldManager, force: true });

  const readyReplicas = applied.status?.readyReplicas ?? 0;
  const desired: MySQLClusterStatus = {
    ...obj.status,
    observedGeneration: obj.metadata.generation ?? 0,
    replicas: applied.status?.replicas ?? 0,
    readyReplicas,
    phase: readyReplicas >= replicas ? "Ready" : "Provisioning",
  };
  // Write status only when it differs, so a steady-state reconcile does not write it again.
  if (!isDeepStrictEqual(desired, obj.status ?? {})) {
    try {
      await ctx.client.namespace(namespace).patchStatus(name, { type: "merge", body: { status: desired } });
    } catch (error) {
      // A child's event can reconcile a cluster the moment it is deleted: gone is fine, there is no status to write.
      if (isNotFound(error)) return;
      throw error;
    }
    ctx.log.info("status updated", { observedGeneration: desired.observedGeneration, phase: desired.phase, readyReplicas });
    if (desired.observedGeneration !== obj.status?.observedGeneration) {
      await ctx.recorder.event(obj, "Normal", "Observed", `generation ${desired.observedGeneration} observed (replicas ${replicas}, version ${obj.spec?.version})`);
    }
  }
  // No requeueAfter while instances are not ready: the StatefulSet's status updates reconcile this cluster (owns).
}
