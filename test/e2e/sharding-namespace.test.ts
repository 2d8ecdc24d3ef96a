// Horizontal sharding by namespace end to end (issue 31): with --sharding-field namespace the members hash
// object.metadata.namespace, so a MySQLCluster and the ConfigMap it owns (in its namespace) fall to one member, and the
// API server (ShardedListAndWatch on) filters both kinds' LIST/WATCH. 3 members and MySQLClusters spread over 12
// namespaces: every object converges, each namespace is reconciled by one member at a time, no two members' reconciles
// of one object overlap, each member receives a part of the bytes an unsharded watch receives; after kill -9 of a
// member the others take its namespaces over. This file takes ~20 s.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { builtinResources } from "@crdgen/runtime";
import { ApiError, ResourceClient, type KubeClient, type ResourceDescriptor } from "@crdgen/runtime/client";
import { repoRoot, eventually } from "./control-plane.js";
import { countingKube } from "./counting-kube.js";
import { type Cluster, Fleet, clustersResource, inBatches, overlaps, type Reconcile } from "./sharding-fleet.js";

// Names that differ from their first letter: FNV-1a (the API server's hash) moves a hash's top bits little for a change
// in the last characters, so "team-0" to "team-9" share one of 256 buckets and one member; these spread 2, 6 and 4.
const NAMESPACES = [
  "alpha",
  "bravo",
  "charlie",
  "delta",
  "echo",
  "foxtrot",
  "golf",
  "hotel",
  "india",
  "juliet",
  "kilo",
  "lima",
];
const PER_NAMESPACE = 20;
const MEMBERS = ["a", "b", "c"];
const LEASE_MS = 4_000;

let plane: ControlPlane;
let kube: KubeClient;
let clusters: ResourceClient<Cluster>;
let fleet: Fleet;
/** What one unsharded watch of each kind receives: the whole that the members' parts are compared with. */
const whole = { clusters: { bytes: 0 }, configMaps: { bytes: 0 } };
const stopWatching = new AbortController();

/** Counts every event of one kind in all namespaces, as an unsharded informer would receive them. */
async function watchAll(resource: ResourceDescriptor, counter: { bytes: number }, plural: string): Promise<void> {
  const client = new ResourceClient(countingKube(kube, counter, plural), resource);
  for (;;) {
    try {
      for await (const event of client.watch(undefined, {}, stopWatching.signal))
        if (event.type === "ERROR") throw new Error(`the unsharded watch of ${plural} ended: ${event.object.message}`);
      return;
    } catch (error) {
      if (stopWatching.signal.aborted) return;
      // A fresh API server answers 429 while its storage for the kind initializes; nothing exists yet to miss.
      if (!(error instanceof ApiError && error.status === 429)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** The members that reconciled each namespace (from `since` on). */
function membersByNamespace(reconciles: readonly Reconcile[], since = 0): Map<string, Set<string>> {
  const byNamespace = new Map<string, Set<string>>();
  for (const r of reconciles)
    if (r.start >= since) byNamespace.set(r.namespace, (byNamespace.get(r.namespace) ?? new Set()).add(r.member));
  return byNamespace;
}

/** Every MySQLCluster reconciled at its generation, and its ConfigMap written by that reconcile. */
const converged = (what: string) =>
  eventually(
    `${what}: every MySQLCluster and its ConfigMap at the cluster's generation`,
    async () => {
      const [list, configMaps] = await Promise.all([
        clusters.list(undefined),
        new ResourceClient(kube, builtinResources.configMaps).list(undefined),
      ]);
      const generations = new Map(configMaps.items.map((c) => [c.metadata?.uid ?? "", c.data?.["generation"]]));
      const owned = new Map<string, string | undefined>();
      for (const c of configMaps.items)
        for (const ref of c.metadata?.ownerReferences ?? []) owned.set(ref.uid, generations.get(c.metadata?.uid ?? ""));
      const behind = list.items.filter(
        (c) =>
          c.status?.observedGeneration !== c.metadata?.generation ||
          owned.get(c.metadata?.uid ?? "") !== String(c.metadata?.generation),
      );
      return list.items.length === NAMESPACES.length * PER_NAMESPACE && behind.length === 0 ? true : undefined;
    },
    60_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${fleet.logs()}`);
  });

before(async () => {
  plane = await startControlPlane({
    crdFiles: [path.join(repoRoot, "samples/mysql/crd.yaml")],
    apiServerArgs: ["--feature-gates=ShardedListAndWatch=true"],
  });
  kube = plane.kubeClient();
  clusters = new ResourceClient(kube, clustersResource);
  const namespaces = new ResourceClient(kube, builtinResources.namespaces);
  await Promise.all(NAMESPACES.map((name) => namespaces.create(undefined, { metadata: { name } })));
  fleet = new Fleet(plane.kubeconfigPath, "by-namespace", ["4", "namespace"]);
  void watchAll(clustersResource, whole.clusters, "mysqlclusters");
  void watchAll(builtinResources.configMaps, whole.configMaps, "configmaps");
});

after(async () => {
  stopWatching.abort();
  (fleet as Fleet | undefined)?.stopAll();
  await (plane as ControlPlane | undefined)?.stop();
});

test("namespace mode: 3 members split 12 namespaces; the server filters parents and their children", async () => {
  for (const m of MEMBERS) fleet.start(m);
  await eventually("3 members hold their shares", () => (fleet.allOwn(MEMBERS) ? true : undefined), 60_000);
  const started = Date.now();
  const names = NAMESPACES.flatMap((ns) => Array.from({ length: PER_NAMESPACE }, (_, i) => [ns, `c-${i}`] as const));
  await inBatches(names, 50, ([ns, name]) =>
    clusters.create(ns, {
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name },
      spec: { version: "8.0.36" },
    }),
  );
  await converged("start");
  const seconds = (Date.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 1_200)); // the next byte report

  const byNamespace = membersByNamespace(fleet.reconciles);
  assert.deepEqual([...byNamespace.keys()].sort(), [...NAMESPACES].sort());
  for (const [ns, members] of byNamespace)
    assert.equal(members.size, 1, `${ns} reconciled by ${[...members].join(", ")}`);
  assert.deepEqual(overlaps(fleet.reconciles), []);
  const namespacesOf = (m: string) => [...byNamespace].filter(([, members]) => members.has(m)).map(([ns]) => ns);
  for (const m of MEMBERS) assert.ok(namespacesOf(m).length > 0, `${m} reconciles no namespace`);

  const shares = (part: Map<string, number>, of: number) => MEMBERS.map((m) => (part.get(m) ?? 0) / of);
  const clusterShares = shares(fleet.bytes, whole.clusters.bytes);
  const configMapShares = shares(fleet.childBytes, whole.configMaps.bytes);
  console.log(
    `# ${names.length} objects converged in ${seconds.toFixed(1)} s; namespaces per member ` +
      `${MEMBERS.map((m) => namespacesOf(m).length).join(", ")}; MySQLCluster bytes per member ` +
      `${MEMBERS.map((m) => fleet.bytes.get(m) ?? 0).join(", ")} of ${whole.clusters.bytes} unsharded ` +
      `(${clusterShares.map((s) => s.toFixed(2)).join(", ")}); ConfigMap shares ` +
      configMapShares.map((s) => s.toFixed(2)).join(", "),
  );
  // A member the server did not filter for would receive at least what the unsharded watch received.
  for (const [i, m] of MEMBERS.entries()) {
    const fraction = namespacesOf(m).length / NAMESPACES.length;
    for (const share of [clusterShares[i] ?? 1, configMapShares[i] ?? 1])
      assert.ok(share < fraction + 0.15, `${m} holds ${fraction.toFixed(2)} of the namespaces, receives ${share}`);
  }
});

test("namespace mode: kill -9 of a member; the others take its namespaces over after its Lease expires", async () => {
  const before = membersByNamespace(fleet.reconciles);
  const lost = [...before].filter(([, members]) => members.has("a")).map(([ns]) => ns);
  fleet.signal("a", "SIGKILL");
  await fleet.exited("a");
  const killed = Date.now();
  const list = await clusters.list(undefined);
  await inBatches(list.items, 50, (c) =>
    clusters.patch(c.metadata?.namespace, c.metadata?.name ?? "", {
      type: "merge",
      body: { spec: { replicas: (c.spec?.replicas ?? 1) + 1 } },
    }),
  );
  await converged("after kill -9");
  const takeover = (Date.now() - killed) / 1000;
  console.log(
    `# a's ${lost.length} namespaces converged ${takeover.toFixed(1)} s after the kill (Lease ${LEASE_MS / 1000} s)`,
  );

  const afterKill = membersByNamespace(fleet.reconciles, killed);
  assert.deepEqual([...afterKill.keys()].sort(), [...NAMESPACES].sort());
  for (const [ns, members] of afterKill) {
    assert.equal(members.size, 1, `${ns} reconciled by ${[...members].join(", ")} after the kill`);
    assert.ok(!members.has("a"), `${ns} reconciled by the killed member`);
    // Consistent hashing: only the killed member's namespaces move.
    if (!lost.includes(ns)) assert.deepEqual(members, before.get(ns), `${ns} moved though its member lives`);
  }
  assert.deepEqual(overlaps(fleet.reconciles), []);
});
