// The sample operator sharded for real (issue 31 item 7): samples/mysql/deploy-sharded/ in-cluster on
// startControlPlane({ node: "real" }) with ShardedListAndWatch on: 3 operator Pods, each with its member Lease, split
// 3 MySQLClusters of 1 real MariaDB server each; the Pod holding the most of them is deleted while every cluster's
// Service gets a new annotation, and every cluster still converges (the others take the deleted Pod's ranges over; its
// replacement joins with a Lease of its own). Needs root, the node's prerequisites and `npm run images:build`; run with
// `flock <the machine's real-node lock> npm run test:real-node`.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { V1Deployment, V1Pod, V1Service } from "@kubernetes/client-node";
import { ResourceClient, builtinResources as kinds, type KubeClient } from "@crdgen/runtime";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { pollUntil } from "@crdgen/runtime/wait";
import { newMySQLClusterClient } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import type { MySQLCluster } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";
import { deployInCluster } from "../../samples/mysql/tools/deploy-in-cluster.js";
import { deployment, shardedDeployDir } from "../../samples/mysql/tools/deploy-manifests.js";
import { cachedImage } from "../../samples/mysql/tools/real-node-story.js";
import { holdersOf, memberHoldings, type MemberHolding } from "../../samples/mysql/tools/shard-owners.js";
import { ipForward, leftovers } from "./leftovers.js";

const group = "mysql-operator";
const minutes = (n: number) => n * 60_000;
const ready = (p: V1Pod) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
const nameOf = (o: { metadata?: { name?: string } }) => o.metadata?.name ?? "";

/** Polls every second; an error counts as "not yet" and a timeout names what it waited for. */
const until = <T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>) =>
  pollUntil(() => check().catch(() => undefined), { intervalMs: 1000, timeoutMs, what });

/** The operator's running, Ready Pods. */
async function operatorPods(kube: KubeClient): Promise<V1Pod[]> {
  const pods = await new ResourceClient<V1Pod>(kube, kinds.pods).list(deployment.namespace, {
    labelSelector: `app.kubernetes.io/name=${deployment.name}`,
  });
  return pods.items.filter((p) => ready(p) && !p.metadata?.deletionTimestamp);
}

/**
 * Each Pod with its member Lease (named <group>-<hostname>-<random>, a Pod's hostname being its name), once there is
 * exactly one Lease per Pod and together they hold every bucket once.
 */
async function membersOf(kube: KubeClient, pods: V1Pod[]): Promise<Map<string, MemberHolding> | undefined> {
  const holdings = await memberHoldings(kube, deployment.namespace, group);
  const byPod = new Map<string, MemberHolding>();
  for (const pod of pods) {
    const mine = holdings.filter((h) => h.member.startsWith(`${group}-${nameOf(pod)}-`));
    if (mine.length !== 1) return undefined;
    byPod.set(nameOf(pod), mine[0]!);
  }
  const held = [...byPod.values()].flatMap((h) => [...h.held]);
  const buckets = holdings[0]?.buckets ?? 0;
  return held.length === buckets && new Set(held).size === buckets ? byPod : undefined;
}

const convergedWith = ({ metadata, status }: MySQLCluster, service?: V1Service, mark?: string) =>
  status !== undefined &&
  status.observedGeneration === metadata.generation &&
  status.readyReplicas === 1 &&
  (status.conditions ?? []).some((x) => x.type === "Ready" && x.status === "True") &&
  (mark === undefined || service?.metadata?.annotations?.["crdgen.io/handover"] === mark);

/** Applies deploy-sharded/ with the node's operator image; resolves with its 3 Pods and their member Leases. */
async function deploySharded(plane: ControlPlane): Promise<{ pods: V1Pod[]; members: Map<string, MemberHolding> }> {
  const kube = plane.kubeClient();
  await deployInCluster(plane.kubeconfigPath, { image: cachedImage("operator"), replicas: 3, dir: shardedDeployDir });
  await until("the operator Deployment with 3 ready replicas", minutes(5), async () => {
    const d = await new ResourceClient<V1Deployment>(kube, kinds.deployments).get(deployment.namespace, group);
    return d.status?.readyReplicas === 3 ? d : undefined;
  });
  const pods = await operatorPods(kube);
  assert.equal(pods.length, 3);
  const members = await until("a member Lease per operator Pod, together holding the hash space", minutes(1), () =>
    membersOf(kube, pods),
  );
  return { pods, members };
}

test("3 sharded operator Pods in-cluster: one deleted, every MySQLCluster converges; each member has its Lease", async (t) => {
  assert.equal(process.getuid?.(), 0, "a real node needs root (containerd, runc, CNI, cgroups): run as root");
  const mariadb = cachedImage("mariadb");
  const [repository, version] = [mariadb.slice(0, mariadb.lastIndexOf(":")), mariadb.split(":").pop()!];
  const ipForwardBefore = ipForward();
  const began = Date.now();
  const step = (what: string) => t.diagnostic(`${((Date.now() - began) / 1000).toFixed(0)} s ${what}`);
  const plane = await startControlPlane({
    node: "real",
    nodeImages: ["mariadb", "operator"],
    apiServerArgs: ["--feature-gates=ShardedListAndWatch=true"],
  });
  const ran = { dir: plane.dir, nodeName: plane.realNodeName ?? "" };
  try {
    const kube = plane.kubeClient();
    const namespace = deployment.watchNamespaces[0];
    const clusters = newMySQLClusterClient(kube).namespace(namespace);
    const services = new ResourceClient<V1Service>(kube, kinds.services);

    const { pods, members } = await deploySharded(plane);
    step(`3 operator Pods, each with its member Lease: ${[...members.values()].map((m) => m.member).join(", ")}`);

    const names = ["db-a", "db-b", "db-c"];
    for (const name of names)
      await clusters.create({
        apiVersion: "example.com/v1",
        kind: "MySQLCluster",
        metadata: { name, namespace },
        spec: { replicas: 1, version, imageRepository: repository, storage: { size: "1Gi", reclaimPolicy: "Delete" } },
      });
    const all = () => Promise.all(names.map((n) => clusters.get(n)));
    const created = await until("3 MySQLClusters Ready with 1 real server each", minutes(10), async () => {
      const list = await all();
      return list.every((c) => convergedWith(c)) ? list : undefined;
    });
    const holdingPod = (c: MySQLCluster) =>
      [...members].filter(([, m]) => holdersOf(c, [m]).length === 1).map(([pod]) => pod);
    for (const c of created) assert.equal(holdingPod(c).length, 1, `${nameOf(c)} has one holder`);
    const held = (pod: string) => created.filter((c) => holdingPod(c)[0] === pod).map(nameOf);
    step(`3 MySQLClusters Ready; held: ${pods.map((p) => `${nameOf(p)}: ${held(nameOf(p)).join(" ")}`).join("; ")}`);

    // The Pod holding the most clusters is deleted (SIGTERM: it finishes its reconciles and deletes its Lease), and
    // every cluster's Service is asked for a new annotation, so each must be reconciled again by a live member.
    const victim = nameOf(pods.reduce((a, b) => (held(nameOf(b)).length > held(nameOf(a)).length ? b : a)));
    const orphaned = held(victim);
    assert.ok(orphaned.length > 0);
    const deleted = Date.now();
    await new ResourceClient<V1Pod>(kube, kinds.pods).delete(deployment.namespace, victim);
    const mark = new Date(deleted).toISOString();
    // The webhook Service may still route to the deleted Pod for a moment (its endpoint goes after the SIGTERM), so
    // the API server's call to the mutating webhook can fail (broken pipe): a client retries, as this does.
    for (const name of names)
      await until(`${name} patched through the webhooks`, minutes(1), () =>
        clusters.patch(name, {
          type: "merge",
          body: { spec: { service: { annotations: { "crdgen.io/handover": mark } } } },
        }),
      );
    await until("every MySQLCluster reconciled again after the deletion", minutes(3), async () => {
      const list = await all();
      const svc = await Promise.all(names.map((n) => services.get(namespace, n)));
      return list.every((c, i) => convergedWith(c, svc[i], mark)) ? true : undefined;
    });
    const convergedIn = (Date.now() - deleted) / 1000;
    step(`deleted ${victim} (held ${orphaned.join(" ")}); every cluster converged ${convergedIn.toFixed(1)} s later`);

    const replaced = await until("3 operator Pods again, the deleted one replaced", minutes(3), async () => {
      const now = await operatorPods(kube);
      return now.length === 3 && !now.some((p) => nameOf(p) === victim) ? now : undefined;
    });
    const after = await until("a member Lease per operator Pod again, the deleted one's gone", minutes(1), () =>
      membersOf(kube, replaced),
    );
    const leases = (await memberHoldings(kube, deployment.namespace, group)).map((h) => h.member);
    assert.ok(!leases.some((l) => l.startsWith(`${group}-${victim}-`)), `the deleted Pod left: ${leases.join(", ")}`);
    assert.equal(leases.length, 3, `one Lease per member: ${leases.join(", ")}`);
    step(`the replacement joined: ${[...after.keys()].join(", ")}`);
  } finally {
    await plane.stop();
  }
  assert.deepEqual(leftovers(`${ran.dir}/node`, ran.nodeName, ipForwardBefore), [], "stop leaves nothing behind");
});
