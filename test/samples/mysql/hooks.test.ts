// An example unit test of a reconcile hook: the sample MySQL hook against @crdgen/runtime/testing's FakeCluster.
// The generated client, ResourceClient on StatefulSets/Services and the event recorder all run on the fake KubeClient.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { V1Service, V1StatefulSet } from "@kubernetes/client-node";
import { Indexer } from "@crdgen/runtime/cache";
import { builtinResources, newEventRecorder, newLogger, type KubernetesObject } from "@crdgen/runtime";
import { FakeCluster, fakeChildObjects } from "@crdgen/runtime/testing";
import {
  mySQLClusterResource,
  type MySQLCluster,
} from "../../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";
import { newMySQLClusterClient } from "../../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import { newMySQLClusterLister } from "../../../samples/mysql/generated/example.com/v1/mysqlcluster.lister.js";
import type { MySQLClusterContext } from "../../../samples/mysql/generated/example.com/v1/mysqlcluster.controller.js";
import { reconcile } from "../../../samples/mysql/src/mysqlcluster.hooks.js";

function setup() {
  const cluster = new FakeCluster();
  cluster.register(mySQLClusterResource, { status: true });
  const kube = cluster.kubeClient();
  const client = newMySQLClusterClient(kube);
  const log = newLogger({ write: () => undefined });
  const children = fakeChildObjects(cluster, "mysql-operator");
  const context = (obj: MySQLCluster): MySQLClusterContext => ({
    key: `${obj.metadata.namespace}/${obj.metadata.name}`,
    namespace: obj.metadata.namespace,
    name: obj.metadata.name!,
    log,
    recorder: newEventRecorder(kube, "mysqlclusters.example.com", log),
    kube,
    children,
    signal: new AbortController().signal,
    client,
    lister: newMySQLClusterLister(new Indexer<MySQLCluster>()),
  });
  return {
    cluster,
    clusters: client.namespace("default"),
    statefulSets: cluster.client<V1StatefulSet>(builtinResources.statefulSets).namespace("default"),
    services: cluster.client<V1Service>(builtinResources.services).namespace("default"),
    events: cluster.client<KubernetesObject & { reason?: string; note?: string }>({
      group: "events.k8s.io",
      version: "v1",
      plural: "events",
      kind: "Event",
      namespaced: true,
    }),
    children,
    context,
  };
}

const spec = { replicas: 3, version: "8.0.36" };

test("reconcile creates the children, owned by the cluster, and writes status through the status subresource", async () => {
  const { cluster, clusters, statefulSets, services, events, context } = setup();
  const obj = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "db" },
    spec,
  });
  await reconcile(context(obj), obj);

  const sts = await statefulSets.get("db");
  assert.equal(sts.spec?.replicas, 3);
  assert.equal(sts.spec.template.spec?.containers[0]?.image, "mysql:8.0.36");
  assert.equal(sts.metadata?.ownerReferences?.[0]?.uid, obj.metadata.uid);
  assert.equal((await services.get("db-headless")).spec?.clusterIP, "None");
  assert.equal((await services.get("db")).spec?.selector?.["statefulset.kubernetes.io/pod-name"], "db-0");
  for (const r of [
    builtinResources.configMaps,
    builtinResources.serviceAccounts,
    builtinResources.podDisruptionBudgets,
  ]) {
    assert.ok(cluster.get(r, "default", r === builtinResources.configMaps ? "db-config" : "db"), `${r.kind} exists`);
  }
  const secret = cluster.get(builtinResources.secrets, "default", "db-root") as { data?: Record<string, string> };
  assert.match(Buffer.from(secret.data!["password"]!, "base64").toString(), /^[A-Za-z0-9]{32}$/);

  const status = (await clusters.get("db")).status;
  assert.equal(status?.observedGeneration, 1);
  assert.equal(status.phase, "Provisioning");
  assert.equal(status.conditions?.find((c) => c.type === "Reconciled")?.status, "True");
  const [event] = (await events.list("default")).items;
  assert.equal(event?.reason, "Observed");
});

test("a steady-state reconcile sends no write: children unchanged and status equal", async () => {
  const { clusters, children, context } = setup();
  const obj = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "db" },
    spec,
  });
  await reconcile(context(obj), obj);
  const afterFirst = await clusters.get("db");
  const applied = children.sent.apply;
  await reconcile(context(afterFirst), afterFirst);
  assert.equal(children.sent.apply, applied, "no child applied again");
  assert.equal(
    (await clusters.get("db")).metadata.resourceVersion,
    afterFirst.metadata.resourceVersion,
    "status not written again",
  );
});

test("scaling to 1 deletes the PodDisruptionBudget; a complete rollout makes the cluster Ready with its version", async () => {
  const { cluster, clusters, statefulSets, context } = setup();
  let obj = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "db" },
    spec,
  });
  await reconcile(context(obj), obj);
  obj = await clusters.patch("db", { type: "merge", body: { spec: { replicas: 1 } } });
  await reconcile(context(obj), obj);
  assert.throws(() => cluster.get(builtinResources.podDisruptionBudgets, "default", "db"), /not found/);

  // The StatefulSet controller's part, played by the test: the rollout is complete.
  const sts = await statefulSets.get("db");
  sts.status = {
    replicas: 1,
    readyReplicas: 1,
    updatedReplicas: 1,
    currentRevision: "r1",
    updateRevision: "r1",
    observedGeneration: sts.metadata?.generation,
  };
  await statefulSets.updateStatus(sts);
  obj = await clusters.get("db");
  await reconcile(context(obj), obj);
  const status = (await clusters.get("db")).status;
  assert.equal(status?.phase, "Ready");
  assert.equal(status.currentVersion, "8.0.36");
  assert.equal(status.conditions?.find((c) => c.type === "Ready")?.reason, "AllReplicasReady");
});

test("a missing user password Secret blocks the StatefulSet: Ready=False/RootPasswordSecretNotFound, retried later", async () => {
  const { cluster, clusters, context } = setup();
  const obj = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "db" },
    spec: { ...spec, rootPasswordSecretRef: { name: "mine" } },
  });
  const result = await reconcile(context(obj), obj);
  assert.ok(result && result.requeueAfter! > 0, "looks again later: the user's Secret is not watched");
  assert.throws(() => cluster.get(builtinResources.statefulSets, "default", "db"), /not found/);
  const ready = (await clusters.get("db")).status?.conditions?.find((c) => c.type === "Ready");
  assert.deepEqual([ready?.status, ready?.reason], ["False", "RootPasswordSecretNotFound"]);
});

test("a cluster deleted before its status write is not an error", async () => {
  const { clusters, context } = setup();
  const obj = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "gone" },
    spec: { replicas: 1, version: "8.0.36" },
  });
  await clusters.delete("gone");
  await reconcile(context(obj), obj);
});
