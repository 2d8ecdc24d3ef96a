// The sample operator sharded for real (issue 31 item 7): samples/mysql/deploy-sharded/ in-cluster on
// startControlPlane({ node: "real" }) with ShardedListAndWatch on: 3 operator Pods, each with its member Lease, split
// 3 MySQLClusters of 1 real MariaDB server each. Then, each time on the Pod holding the most clusters:
// - three normal deletes while 4 writers patch MySQLClusters through the webhooks without retrying: not one write
//   fails (the Deployment's preStop keeps the Pod in its Services until its endpoint is gone; the webhook server then
//   drains its connections), every cluster converges, the Pod left its group (its Lease deleted) and its replacement
//   joins with a Lease of its own;
// - a delete with gracePeriodSeconds 0 (the kubelet still sends SIGTERM and waits its 2 s minimum: the member leaves),
//   then a kill -9 of a Pod's process from the node (nothing runs on its way out; the Lease stays as it was): the
//   other members hold its buckets within the Lease duration + 6 s, and every cluster, each changed after the kill,
//   converges.
// Needs root, the node's prerequisites and `npm run images:build`; run with
// `flock <the machine's real-node lock> npm run test:real-node`.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { V1Deployment, V1Pod, V1Service } from "@kubernetes/client-node";
import { ResourceClient, builtinResources as kinds, type KubeClient } from "@crdgen/runtime";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { pollUntil } from "@crdgen/runtime/wait";
import {
  newMySQLClusterClient,
  type MySQLClusterVerbs,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import type { MySQLCluster } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";
import { deployInCluster } from "../../samples/mysql/tools/deploy-in-cluster.js";
import { deployment, shardedDeployDir } from "../../samples/mysql/tools/deploy-manifests.js";
import { cachedImage } from "../../samples/mysql/tools/real-node-story.js";
import { holdersOf, memberHoldings, type MemberHolding } from "../../samples/mysql/tools/shard-owners.js";
import { killPodProcesses, leaseDurationMs, takenOver, writeContinuously, type WriteCount } from "./disruption.js";
import { ipForward, leftovers } from "./leftovers.js";

const group = "mysql-operator";
const minutes = (n: number) => n * 60_000;
const ready = (p: V1Pod) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
const nameOf = (o: { metadata?: { name?: string } }) => o.metadata?.name ?? "";
/**
 * How much later than the dead member's Lease duration the others may hold its buckets: they see its last renewal up
 * to one retry period (2 s) late, act at their next round (another 2 s), and confirm their claim; 2 s for the rest.
 */
const takeoverMarginMs = 6_000;

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
 * exactly one Lease per Pod (besides the `gone` members' Leases, left by killed processes) and together they hold
 * every bucket once.
 */
async function membersOf(
  kube: KubeClient,
  pods: V1Pod[],
  gone: ReadonlySet<string> = new Set(),
): Promise<Map<string, MemberHolding> | undefined> {
  const holdings = (await memberHoldings(kube, deployment.namespace, group)).filter((h) => !gone.has(h.member));
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

const names = ["db-a", "db-b", "db-c"];

/** The clients and the log line writer every step of the story uses. */
interface Story {
  kube: KubeClient;
  clusters: MySQLClusterVerbs;
  services: ResourceClient<V1Service>;
  pods: ResourceClient<V1Pod>;
  step: (what: string) => void;
}

const allClusters = (s: Story) => Promise.all(names.map((n) => s.clusters.get(n)));

/** The Ready Pod whose member holds the most clusters now, with its member and the clusters it holds. */
async function mostHolding(s: Story, gone: ReadonlySet<string>) {
  const [now, byPod] = await until(
    "3 Pods, each with a member Lease, together holding the hash space",
    minutes(2),
    async () => {
      const pods = await operatorPods(s.kube);
      const members = pods.length === 3 ? await membersOf(s.kube, pods, gone) : undefined;
      return members && ([pods, members] as const);
    },
  );
  const list = await allClusters(s);
  const held = (pod: V1Pod) => list.filter((c) => holdersOf(c, [byPod.get(nameOf(pod))!]).length === 1);
  const pod = now.reduce((a, b) => (held(b).length > held(a).length ? b : a));
  return { pod, member: byPod.get(nameOf(pod))!, held: held(pod).map(nameOf) };
}

/** Asks every cluster's Service for annotation `mark` (a client retries a failed write) and waits for all. */
async function changeAndConverge(s: Story, mark: string): Promise<void> {
  for (const name of names)
    await until(`${name} patched through the webhooks`, minutes(1), () =>
      s.clusters.patch(name, {
        type: "merge",
        body: { spec: { service: { annotations: { "crdgen.io/handover": mark } } } },
      }),
    );
  await until("every MySQLCluster reconciled again", minutes(3), async () => {
    const list = await allClusters(s);
    const svc = await Promise.all(names.map((n) => s.services.get(deployment.watchNamespaces[0], n)));
    return list.every((c, i) => convergedWith(c, svc[i], mark)) ? true : undefined;
  });
}

/**
 * A normal delete (SIGTERM after the preStop: it finishes its reconciles and deletes its Lease) of the Pod holding the
 * most, while 4 writers patch the MySQLClusters through the webhooks without retrying and every cluster's Service is
 * asked for a new annotation, so each must be reconciled again by a live member. Resolves with the writes' count.
 */
async function deleteWhileWriting(s: Story): Promise<WriteCount> {
  const first = await mostHolding(s, new Set());
  const victim = nameOf(first.pod);
  s.step(`3 MySQLClusters Ready; ${victim} holds ${first.held.join(" ") || "none"}`);
  const writers = [0, 1, 2, 3].map((k) =>
    writeContinuously(
      (i) =>
        s.clusters.patch(names[(i + k) % names.length]!, {
          type: "merge",
          body: { metadata: { annotations: { [`crdgen.io/write-${k}`]: String(i) } } },
        }),
      20,
    ),
  );
  const deleted = Date.now();
  await s.pods.delete(deployment.namespace, victim);
  await changeAndConverge(s, new Date(deleted).toISOString());
  s.step(`deleted ${victim}; every cluster converged ${((Date.now() - deleted) / 1000).toFixed(1)} s later`);
  await until(`${victim} gone from the API (its process ended)`, minutes(2), () =>
    s.pods.get(deployment.namespace, victim).then(
      () => undefined,
      (e: unknown) => ((e as { status?: number }).status === 404 ? true : undefined),
    ),
  );
  const goneAt = Date.now();
  const replaced = await until("3 operator Pods again, the deleted one replaced", minutes(3), async () => {
    const now = await operatorPods(s.kube);
    return now.length === 3 && !now.some((p) => nameOf(p) === victim) ? now : undefined;
  });
  await until("a member Lease per operator Pod again, the deleted one's gone", minutes(1), () =>
    membersOf(s.kube, replaced),
  );
  const counts = await Promise.all(writers.map((w) => w.stop()));
  const during = { ok: counts.reduce((n, c) => n + c.ok, 0), failed: counts.flatMap((c) => c.failed) };
  s.step(
    `${victim} gone ${((goneAt - deleted) / 1000).toFixed(1)} s after its delete; writes meanwhile: ` +
      `${during.ok} succeeded, ${during.failed.length} failed ${during.failed.slice(0, 3).join(" | ")}`,
  );
  const leases = (await memberHoldings(s.kube, deployment.namespace, group)).map((h) => h.member);
  assert.ok(!leases.some((l) => l.startsWith(`${group}-${victim}-`)), `it left: ${leases.join(", ")}`);
  assert.equal(leases.length, 3, `one Lease per member: ${leases.join(", ")}`);
  return during;
}

/**
 * `act` on the Pod holding the most (a delete with grace 0, a kill -9), every cluster changed right after (so the dead
 * member's clusters need a live one): the other members hold its buckets within its Lease duration + the margin, and
 * every cluster converges. Adds the dead member to `gone`.
 */
async function crash(s: Story, how: string, gone: Set<string>, act: (pod: V1Pod) => unknown): Promise<void> {
  const victim = await mostHolding(s, gone);
  const dead = victim.member.member;
  const duration = await leaseDurationMs(s.kube, deployment.namespace, dead);
  const killed = Date.now();
  await act(victim.pod);
  const takeover = takenOver(
    s.kube,
    deployment.namespace,
    group,
    new Set([...gone, dead]),
    victim.member.held,
    120_000,
  );
  const tookOver = takeover.then(() => Date.now() - killed);
  await changeAndConverge(s, `${how.replace(/\W+/g, "-")}-${killed}`);
  const convergedS = (Date.now() - killed) / 1000;
  const [live, tookMs] = await Promise.all([takeover, tookOver]);
  const takers = live.map((h) => `${h.member} ${[...victim.member.held].filter((b) => h.held.has(b)).length}`);
  const left = !(await memberHoldings(s.kube, deployment.namespace, group)).some((h) => h.member === dead);
  s.step(
    `${how} ${nameOf(victim.pod)} (held ${victim.held.join(" ") || "none"}, ${victim.member.held.size} buckets): ` +
      `its buckets held by the others ${(tookMs / 1000).toFixed(1)} s later (Lease ${duration / 1000} s; ` +
      `buckets taken: ${takers.join(", ")}); its Lease ${left ? "deleted" : "left behind"}; every cluster ` +
      `converged ${convergedS.toFixed(1)} s after`,
  );
  assert.ok(tookMs <= duration + takeoverMarginMs, `taken over in ${tookMs} ms: over the Lease + margin`);
  gone.add(dead);
}

async function createClusters(s: Story, namespace: string): Promise<void> {
  const mariadb = cachedImage("mariadb");
  const [repository, version] = [mariadb.slice(0, mariadb.lastIndexOf(":")), mariadb.split(":").pop()!];
  for (const name of names)
    await s.clusters.create({
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name, namespace },
      spec: { replicas: 1, version, imageRepository: repository, storage: { size: "1Gi", reclaimPolicy: "Delete" } },
    });
  await until("3 MySQLClusters Ready with 1 real server each", minutes(10), async () => {
    const list = await allClusters(s);
    return list.every((c) => convergedWith(c)) ? list : undefined;
  });
}

test("3 sharded operator Pods in-cluster: deleted, force-deleted, kill -9: writes never fail on a normal delete, the others take over, every MySQLCluster converges", async (t) => {
  assert.equal(process.getuid?.(), 0, "a real node needs root (containerd, runc, CNI, cgroups): run as root");
  const ipForwardBefore = ipForward();
  const began = Date.now();
  const plane = await startControlPlane({
    node: "real",
    nodeImages: ["mariadb", "operator"],
    apiServerArgs: ["--feature-gates=ShardedListAndWatch=true"],
  });
  const ran = { dir: plane.dir, nodeName: plane.realNodeName ?? "" };
  try {
    const kube = plane.kubeClient();
    const namespace = deployment.watchNamespaces[0];
    const s: Story = {
      kube,
      clusters: newMySQLClusterClient(kube).namespace(namespace),
      services: new ResourceClient<V1Service>(kube, kinds.services),
      pods: new ResourceClient<V1Pod>(kube, kinds.pods),
      step: (what) => t.diagnostic(`${((Date.now() - began) / 1000).toFixed(0)} s ${what}`),
    };
    const { members } = await deploySharded(plane);
    s.step(`3 operator Pods, each with its member Lease: ${[...members.values()].map((m) => m.member).join(", ")}`);
    await createClusters(s, namespace);
    // Three normal deletes, each of the Pod holding the most at the time.
    const rounds: WriteCount[] = [];
    for (let round = 0; round < 3; round++) rounds.push(await deleteWhileWriting(s));
    const during = { ok: rounds.reduce((n, c) => n + c.ok, 0), failed: rounds.flatMap((c) => c.failed) };
    s.step(`writes during the 3 normal deletes: ${during.ok} succeeded, ${during.failed.length} failed`);

    const gone = new Set<string>();
    await crash(s, "deleted with gracePeriodSeconds 0", gone, (pod) =>
      s.pods.delete(deployment.namespace, nameOf(pod), { gracePeriodSeconds: 0 }),
    );
    await crash(s, "kill -9 from the node of", gone, (pod) =>
      s.step(`SIGKILL to processes ${killPodProcesses(pod).join(" ")}`),
    );
    const after = await until("3 operator Pods, each with a live member Lease", minutes(3), async () => {
      const now = await operatorPods(kube);
      return now.length === 3 ? membersOf(kube, now, gone) : undefined;
    });
    s.step(`3 live members again: ${[...after.values()].map((m) => m.member).join(", ")}`);
    assert.deepEqual(during.failed, [], "no write failed while a Pod was deleted normally");
  } finally {
    await plane.stop();
  }
  assert.deepEqual(leftovers(`${ran.dir}/node`, ran.nodeName, ipForwardBefore), [], "stop leaves nothing behind");
});
