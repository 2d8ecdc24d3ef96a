// Test helper (not a test): one sharded manager process of the sharding e2e. It reconciles MySQLClusters with one
// sharded controller (status.observedGeneration := metadata.generation) and prints one JSON line per reconcile
// ({r: [uid, start, end, namespace]}, times in ms since the epoch with µs precision), and every second the bytes its
// primary LIST/WATCH received ({bytes}) and the ranges it holds ({owned}).
// argv: kubeconfig member group [workers] [field]: field "namespace" hashes namespaces, and each MySQLCluster then
// owns a ConfigMap in its namespace (the owned kind's informer is sharded too; its bytes are reported as childBytes).
import {
  builtinResources,
  controllerFor,
  controllerOwnerReference,
  loadKubeClient,
  newLogger,
  runManager,
} from "@crdgen/runtime";
import { shardingFor } from "@crdgen/runtime/manager";
import type { KubernetesObject, ResourceDescriptor } from "@crdgen/runtime/client";
import { ResourceClient } from "@crdgen/runtime/client";
import { countingKube } from "./counting-kube.js";

const [kubeconfig, member, group, workers = "4", field = "uid"] = process.argv.slice(2);
if (!kubeconfig || !member || !group || (field !== "uid" && field !== "namespace"))
  throw new Error("usage: sharding-child <kubeconfig> <member> <group> [workers] [uid|namespace]");
const withChildren = field === "namespace";

interface Cluster extends KubernetesObject {
  spec?: { replicas?: number };
  status?: { observedGeneration?: number };
}
const clusters: ResourceDescriptor<Cluster> = {
  group: "example.com",
  version: "v1",
  plural: "mysqlclusters",
  kind: "MySQLCluster",
  namespaced: true,
};

const now = () => performance.timeOrigin + performance.now();
const say = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);

const counter = { bytes: 0 };
const childCounter = { bytes: 0 };
const logger = newLogger({ level: "warn", write: (line: string) => process.stderr.write(`[${member}] ${line}`) });
const kube = countingKube(countingKube(loadKubeClient({ kubeconfig }), counter), childCounter, "configmaps");
const sharding = shardingFor(
  kube,
  { sharding: group, shardingField: field, leaderElectionNamespace: "default" },
  { identity: member, leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500, logger },
);
const client = new ResourceClient<Cluster>(kube, clusters);
const controller = controllerFor(
  kube,
  clusters,
  {
    async reconcile(ctx, obj) {
      const start = now();
      // A little work, so that two members on one object would overlap visibly.
      await new Promise((resolve) => setTimeout(resolve, 2));
      const generation = obj.metadata?.generation;
      if (withChildren) {
        await ctx.children.apply(builtinResources.configMaps, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: ctx.name, namespace: ctx.namespace, ownerReferences: [controllerOwnerReference(obj)] },
          data: { generation: String(generation) },
        });
      }
      if (obj.status?.observedGeneration !== generation) {
        await client.patchStatus(ctx.namespace, ctx.name, {
          type: "merge",
          body: { status: { observedGeneration: generation } },
        });
      }
      say({ r: [obj.metadata?.uid, start, now(), ctx.namespace] });
    },
  },
  { sharding, workers: Number(workers), logger, ...(withChildren ? { owns: [builtinResources.configMaps] } : {}) },
  () => ({}),
);
const report = setInterval(() => {
  say({ bytes: counter.bytes, childBytes: childCounter.bytes, owned: sharding?.heldRanges().length ?? 0 });
}, 1_000);
try {
  await runManager([controller], {
    kube,
    options: {
      metricsBindAddress: "0",
      healthProbeBindAddress: "0",
      leaderElect: false,
      gracefulShutdownTimeoutMs: 10_000,
    },
    sharding,
    logger,
  });
  say({ bytes: counter.bytes, exit: 0 });
} finally {
  clearInterval(report);
  kube.close();
}
