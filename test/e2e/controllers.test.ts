// startControlPlane({ controllers: true }): kube-controller-manager's garbage collector and workload controllers,
// kube-scheduler, and kwok's fake node, so StatefulSet pods "run" and the sample operator reaches Ready.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import type { V1ConfigMap, V1Pod, V1PodList, V1StatefulSet } from "@kubernetes/client-node";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import {
  ResourceClient,
  builtinResources,
  controllerOwnerReference,
  isNotFound,
  newLogger,
  type KubeClient,
} from "@crdgen/runtime";
import { newMySQLClusterController } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.controller.js";
import {
  newMySQLClusterClient,
  type MySQLClusterVerbs,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import * as hooks from "../../samples/mysql/src/mysqlcluster.hooks.js";
import { eventually, repoRoot } from "./control-plane.js";

let plane: ControlPlane;
let kube: KubeClient;
let clusters: MySQLClusterVerbs;
const stopOperator = new AbortController();
let operator: Promise<void> | undefined;

before(async () => {
  plane = await startControlPlane({ crdFiles: [path.join(repoRoot, "samples/mysql/crd.yaml")], controllers: true });
  kube = plane.kubeClient();
  clusters = newMySQLClusterClient(kube).namespace("default");
});

after(async () => {
  stopOperator.abort();
  await operator;
  // before() may have failed before setting these.
  (kube as KubeClient | undefined)?.close();
  if (!(plane as ControlPlane | undefined)) return;
  await plane.stop();
  const left = execFileSync("ps", ["-eo", "args="], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(plane.dir));
  assert.deepEqual(left, [], "stop ends kube-controller-manager, kube-scheduler and kwok too");
});

/** (b) and (c) need pods that become Ready, which only kwok provides: without it they fail, saying so. */
function requireKwok(): string {
  assert.ok(
    plane.fakeNodeName,
    `kwok is missing, so no pod can run: ${plane.kwokUnavailable ?? "startControlPlane reported no fake node"}`,
  );
  return plane.fakeNodeName;
}

test("garbage collection: a ConfigMap controlled by a MySQLCluster is deleted after the MySQLCluster (background propagation)", async () => {
  const owner = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "gc-owner" },
    spec: { replicas: 1, version: "8.0.36" },
  });
  const configMaps = new ResourceClient<V1ConfigMap>(kube, builtinResources.configMaps);
  await configMaps.create("default", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "gc-dependent", ownerReferences: [controllerOwnerReference(owner)] },
    data: { owner: "gc-owner" },
  });
  await clusters.delete("gc-owner", { propagationPolicy: "Background" });
  await eventually("the MySQLCluster gc-owner to be gone", () =>
    clusters.get("gc-owner").then(
      () => undefined,
      (e: unknown) => (isNotFound(e) ? true : undefined),
    ),
  );
  await eventually(
    "the garbage collector to delete ConfigMap gc-dependent",
    () =>
      configMaps.get("default", "gc-dependent").then(
        () => undefined,
        (e: unknown) => (isNotFound(e) ? true : undefined),
      ),
    60_000,
  );
});

test("kwok: a StatefulSet of 2 replicas gets 2 pods on the fake node and status.readyReplicas 2", async () => {
  const nodeName = requireKwok();
  const labels = { app: "kwok-web" };
  const statefulSets = new ResourceClient<V1StatefulSet>(kube, builtinResources.statefulSets);
  await statefulSets.create("default", {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "kwok-web" },
    spec: {
      replicas: 2,
      serviceName: "kwok-web",
      selector: { matchLabels: labels },
      // kwok never pulls or runs the image; any name does.
      template: { metadata: { labels }, spec: { containers: [{ name: "web", image: "crdgen-test/web:1" }] } },
    },
  });
  const sts = await eventually(
    "StatefulSet kwok-web status.readyReplicas 2",
    () => statefulSets.get("default", "kwok-web").then((s) => (s.status?.readyReplicas === 2 ? s : undefined)),
    60_000,
  );
  assert.equal(sts.status?.replicas, 2);
  const pods = await new ResourceClient<V1Pod, V1PodList>(kube, builtinResources.pods).list("default", {
    labelSelector: "app=kwok-web",
  });
  assert.deepEqual(pods.items.map((p) => p.metadata?.name).sort(), ["kwok-web-0", "kwok-web-1"]);
  for (const pod of pods.items) {
    assert.equal(pod.spec?.nodeName, nodeName, `${pod.metadata?.name} was scheduled to the fake node`);
    assert.equal(pod.status?.phase, "Running", `kwok reports ${pod.metadata?.name} Running`);
    assert.ok(
      pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      `kwok reports ${pod.metadata?.name} Ready`,
    );
  }
});

test("the sample operator brings a MySQLCluster of 2 replicas to phase Ready with readyReplicas 2", async () => {
  requireKwok();
  operator = newMySQLClusterController(kube, hooks, { logger: newLogger({ write: () => undefined }) }).run(
    stopOperator.signal,
  );
  await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "ready" },
    spec: { replicas: 2, version: "8.0.36" },
  });
  // No polling: the StatefulSet's status updates (owned, watched) reconcile the cluster as its instances become ready.
  const db = await eventually(
    "MySQLCluster ready: phase Ready, readyReplicas 2",
    () =>
      clusters.get("ready").then((c) => (c.status?.phase === "Ready" && c.status.readyReplicas === 2 ? c : undefined)),
    90_000,
  );
  assert.equal(db.status?.replicas, 2);
  assert.equal(db.status.observedGeneration, 1);
});
