// An example unit test of a reconcile hook: the sample MySQL hook against @crdgen/runtime/testing's FakeCluster.
// The generated client, ResourceClient on StatefulSets/Services and the event recorder all run on the fake KubeClient.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { V1Service, V1StatefulSet } from "@kubernetes/client-node";
import { Indexer, builtinResources, newEventRecorder, newLogger, type KubernetesObject } from "@crdgen/runtime";
import { FakeCluster } from "@crdgen/runtime/testing";
import { mySQLClusterResource, type MySQLCluster } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";
import { newMySQLClusterClient } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import { newMySQLClusterLister } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.lister.js";
import type { MySQLClusterContext } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.controller.js";
import { reconcile } from "../../samples/mysql/src/mysqlcluster.hooks.js";

function setup() {
  const cluster = new FakeCluster();
  cluster.register(mySQLClusterResource, { status: true });
  const kube = cluster.kubeClient();
  const client = newMySQLClusterClient(kube);
  const log = newLogger({ write: () => undefined });
  const context = (obj: MySQLCluster): MySQLClusterContext => ({
    key: `${obj.metadata.namespace}/${obj.metadata.name}`,
    namespace: obj.metadata.namespace,
    name: obj.metadata.name!,
    log,
    recorder: newEventRecorder(kube, "mysqlclusters.example.com", log),
    kube,
    signal: new AbortController().signal,
    client,
    lister: newMySQLClusterLister(new Indexer<MySQLCluster>()),
  });
  return {
    cluster,
    clusters: client.namespace("default"),
    statefulSets: cluster.client<V1StatefulSet>(builtinResources.statefulSets).namespace("default"),
    services: cluster.client<V1Service>(builtinResources.services).namespace("default"),
    events: cluster.client<KubernetesObject & { reason?: string; note?: string }>({ group: "events.k8s.io", version: "v1", plural: "events", kind: "Event", namespaced: true }),
    context,
  };
}

test("reconcile creates the owned Service and StatefulSet and writes status through the status subresource", async () => {
  const { clusters, statefulSets, services, events, context } = setup();
  const obj = await clusters.create({ apiVersion: "example.com/v1", kind: "MySQLCluster", metadata: { name: "db" }, spec: { replicas: 3, version: "8.0.36" } });
  await reconcile(context(obj), obj);

  const sts = await statefulSets.get("db");
  assert.equal(sts.spec?.replicas, 3);
  assert.equal(sts.metadata?.ownerReferences?.[0]?.uid, obj.metadata.uid);
  assert.equal((await services.get("db")).spec?.clusterIP, "None");

  const afterFirst = await clusters.get("db");
  assert.deepEqual(afterFirst.status, { observedGeneration: 1, replicas: 0, readyReplicas: 0, phase: "Provisioning" });
  const [event] = (await events.list("default")).items;
  assert.equal(event?.reason, "Observed");
  assert.match(event?.note ?? "", /generation 1 observed/);

  // A steady-state reconcile writes nothing.
  await reconcile(context(afterFirst), afterFirst);
  assert.equal((await clusters.get("db")).metadata.resourceVersion, afterFirst.metadata.resourceVersion);

  // The StatefulSet controller's part, played by the test: all replicas ready -> phase Ready.
  await statefulSets.updateStatus({ ...sts, status: { replicas: 3, readyReplicas: 3 } });
  await reconcile(context(afterFirst), afterFirst);
  assert.equal((await clusters.get("db")).status?.phase, "Ready");
});

test("a cluster deleted before its status write is not an error", async () => {
  const { clusters, context } = setup();
  const obj = await clusters.create({ apiVersion: "example.com/v1", kind: "MySQLCluster", metadata: { name: "gone" }, spec: { replicas: 1, version: "8.0.36" } });
  await clusters.delete("gone");
  await reconcile(context(obj), obj);
});
