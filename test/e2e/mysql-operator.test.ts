// The generated MySQL operator against a real kube-apiserver + etcd: informer -> queue -> reconcile -> status.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { ControlPlane } from "@crdgen/runtime/envtest";
import type { V1Service, V1StatefulSet } from "@kubernetes/client-node";
import { ResourceClient, builtinResources, newLogger, type KubeClient } from "@crdgen/runtime";
import { newMySQLClusterController } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.controller.js";
import {
  newMySQLClusterClient,
  type MySQLClusterVerbs,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import * as hooks from "../../samples/mysql/src/mysqlcluster.hooks.js";
import { eventually, startSampleControlPlane } from "./control-plane.js";

let plane: ControlPlane;
let kube: KubeClient;
let clusters: MySQLClusterVerbs;
const stop = new AbortController();
let running: Promise<void>;

before(async () => {
  plane = await startSampleControlPlane();
  kube = plane.kubeClient();
  clusters = newMySQLClusterClient(kube).namespace("default");
  running = newMySQLClusterController(kube, hooks, { logger: newLogger({ write: () => undefined }) }).run(stop.signal);
});

after(async () => {
  stop.abort();
  await running;
  await (plane as ControlPlane | undefined)?.stop(); // before() may have failed before setting it
});

const observedGeneration = (name: string, generation: number) => () =>
  clusters.get(name).then((c) => (c.status?.observedGeneration === generation ? c : undefined));

test("a new MySQLCluster is reconciled: status.observedGeneration and phase are written through the status subresource", async () => {
  await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "first" },
    spec: { replicas: 3, version: "8.0.36" },
  });
  const db = await eventually("observedGeneration 1 on first", observedGeneration("first", 1));
  assert.equal(db.status?.phase, "Provisioning", "no kubelet runs, so no instance becomes ready");
  assert.equal(db.spec?.replicas, 3, "the status write left spec alone");
});

test("a new MySQLCluster gets its StatefulSet and headless Service, each with a controller ownerReference to it", async () => {
  const db = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "owned" },
    spec: { replicas: 3, version: "8.0.36" },
  });
  const statefulSets = new ResourceClient<V1StatefulSet>(kube, builtinResources.statefulSets);
  const services = new ResourceClient<V1Service>(kube, builtinResources.services);
  const sts = await eventually("StatefulSet owned", () => statefulSets.get("default", "owned"));
  const svc = await eventually("Service owned-headless", () => services.get("default", "owned-headless"));
  for (const child of [sts, svc]) {
    assert.deepEqual(child.metadata?.ownerReferences, [
      {
        apiVersion: "example.com/v1",
        kind: "MySQLCluster",
        name: "owned",
        uid: db.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  }
  assert.equal(sts.spec?.replicas, 3);
  assert.equal(sts.spec.template.spec?.containers[0]?.image, "mysql:8.0.36");
  assert.equal(svc.spec?.clusterIP, "None");
  assert.ok(
    sts.metadata?.managedFields?.some((f) => f.manager === "mysql-operator" && f.operation === "Apply"),
    "written by server-side apply with the operator's field manager",
  );
});

test("the API server applies the CRD's default and schema: replicas defaults to 1 and an out-of-range value is rejected", async () => {
  const created = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "defaulted" },
    spec: { version: "8.0.36" },
  });
  assert.equal(created.spec?.replicas, 1);
  await assert.rejects(
    clusters.create({
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name: "too-big" },
      spec: { replicas: 12, version: "8.0.36" },
    }),
    (error: { status?: number; reason?: string }) => error.status === 422 && error.reason === "Invalid",
  );
});

test("a spec change is reconciled again (level-triggered by generation)", async () => {
  await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "scaled" },
    spec: { replicas: 3, version: "8.0.36" },
  });
  await eventually("observedGeneration 1 on scaled", observedGeneration("scaled", 1));
  await clusters.patch("scaled", { type: "merge", body: { spec: { replicas: 5 } } });
  const db = await eventually("observedGeneration 2 on scaled", observedGeneration("scaled", 2));
  assert.equal(db.spec?.replicas, 5);
  const sts = await new ResourceClient<V1StatefulSet>(kube, builtinResources.statefulSets).get("default", "scaled");
  assert.equal(sts.spec?.replicas, 5, "the StatefulSet follows spec.replicas");
});

test("the reconcile hook records an Event on the MySQLCluster", async () => {
  await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "evented" },
    spec: { replicas: 1, version: "8.0.36" },
  });
  const event = await eventually("an Observed event for evented", async () => {
    const events = await kube.request<{
      items: Array<{ reason: string; message: string; involvedObject: { name: string; kind: string } }>;
    }>({
      method: "GET",
      path: "/api/v1/namespaces/default/events",
      query: { fieldSelector: "involvedObject.name=evented" },
    });
    return events.items.find((e) => e.reason === "Observed");
  });
  assert.equal(event.involvedObject.kind, "MySQLCluster");
  assert.match(event.message, /generation 1 observed/);
});

test("after the API server restarts, the informer reconnects and later changes are still reconciled", async () => {
  await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "survivor" },
    spec: { replicas: 1, version: "8.0.36" },
  });
  await eventually("observedGeneration 1 on survivor", observedGeneration("survivor", 1));
  await plane.restartApiServer();
  await clusters.patch("survivor", { type: "merge", body: { spec: { replicas: 2 } } });
  await eventually("observedGeneration 2 on survivor after the restart", observedGeneration("survivor", 2), 150_000);
});
