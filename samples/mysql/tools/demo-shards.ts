// `npm run demo -- --shards 3`: the sample operator (its real main, dist/samples/mysql/src/main.js) as three replicas
// with --sharding on a local control plane (kwok runs the Pods) whose API server filters by shard (gate
// ShardedListAndWatch on). It shows which replica reconciles which MySQLCluster (the held buckets in each member's
// Lease, checked against the objects owned its /metrics counts), kills one with SIGKILL while every cluster scales
// 1 -> 2, and times the others taking its ranges over and every cluster converging. Exits 1 naming a claim that failed.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { startControlPlane } from "@crdgen/runtime/envtest";
import { pollUntil } from "@crdgen/runtime/wait";
import { ResourceClient, type KubeClient } from "@crdgen/runtime";
import { type MySQLCluster, mySQLClusterResource } from "../generated/example.com/v1/mysqlcluster.types.js";
import { sampleDir } from "./deploy-manifests.js";
import { holdersOf, memberHoldings, type MemberHolding } from "./shard-owners.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const operatorMain = path.resolve(here, "../src/main.js");
const say = (line: string) => process.stdout.write(`${line}\n`);
const group = "mysql-operator";
const namespace = "default";
const clusterCount = 12;
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** One operator process and what its log said about it. */
interface Replica {
  label: string;
  process: ChildProcess;
  member?: string;
  metricsPort?: number;
  serverFiltered?: boolean;
  /** Its last log lines, shown if the demo fails. */
  log: string[];
}

function startReplica(kubeconfig: string, label: string): Replica {
  const child = spawn(
    process.execPath,
    [
      operatorMain,
      `--sharding=${group}`,
      `--kubeconfig=${kubeconfig}`,
      // Plain HTTP on a free port of this host, for the demo to read objects owned.
      "--metrics-bind-address=127.0.0.1:0",
      "--metrics-secure=false",
      "--health-probe-bind-address=0",
    ],
    // No webhook server: this demo is about the controllers. The member Leases go to POD_NAMESPACE.
    {
      env: { ...process.env, ENABLE_WEBHOOKS: "false", POD_NAMESPACE: namespace },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const replica: Replica = { label, process: child, log: [] };
  readline.createInterface({ input: child.stderr }).on("line", (line) => {
    replica.log = [...replica.log.slice(-19), line];
    let entry: { msg?: string; member?: string; port?: number };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return;
    }
    if (entry.msg === "sharding group joined") replica.member = entry.member;
    if (entry.msg === "serving metrics") replica.metricsPort = entry.port;
    if (entry.msg?.startsWith("the API server filters")) replica.serverFiltered = true;
    if (entry.msg?.startsWith("the API server ignored shardSelector")) replica.serverFiltered = false;
  });
  return replica;
}

/** crdgen_sharding_objects_owned and _owned_fraction from a replica's /metrics. */
async function ownedMetrics(replica: Replica): Promise<{ objects: number; fraction: number }> {
  const text = await (await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  return { objects: value("crdgen_sharding_objects_owned"), fraction: value("crdgen_sharding_owned_fraction") };
}

const nameOf = (c: MySQLCluster) => c.metadata.name ?? "";
const converged = ({ metadata, status }: MySQLCluster, replicas: number) =>
  status !== undefined &&
  status.observedGeneration === metadata.generation &&
  status.readyReplicas === replicas &&
  (status.conditions ?? []).some((x) => x.type === "Ready" && x.status === "True");

/** Polls every 250 ms until check returns a value; a timeout names what it waited for. */
const until = <T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>) =>
  pollUntil(check, { intervalMs: 250, timeoutMs, what });

/**
 * The ownership table of the live replicas: each one's clusters by its Lease, its objects owned by its metrics. Throws
 * unless every cluster has exactly one holder among them and each count agrees with the Lease.
 */
async function showOwners(kube: KubeClient, live: Replica[], clusters: MySQLCluster[]): Promise<void> {
  const holdings = (await memberHoldings(kube, namespace, group)).filter((h) =>
    live.some((r) => r.member === h.member),
  );
  const failures = clusters
    .filter((c) => holdersOf(c, holdings).length !== 1)
    .map((c) => `${nameOf(c)} is held by ${holdersOf(c, holdings).length} replicas`);
  for (const r of live) {
    const mine = clusters.filter((c) => holdersOf(c, holdings).includes(r.member ?? "")).map(nameOf);
    const metrics = await ownedMetrics(r);
    say(
      `   ${r.label}: ${(metrics.fraction * 100).toFixed(0).padStart(3)}% of the hash space, ${mine.length} clusters` +
        ` (its metrics: ${metrics.objects}): ${mine.join(" ")}`,
    );
    if (metrics.objects !== mine.length)
      failures.push(`${r.label}'s metrics count ${metrics.objects}, its Lease ${mine.length}`);
  }
  if (failures.length > 0) throw new Error(failures.join("; "));
}

/** Every live replica joined the group, serves metrics and has listed its clusters. */
function allStarted(replicas: Replica[]): Promise<true> {
  return until("every replica joined the sharding group", 60_000, () => {
    for (const r of replicas)
      if (r.process.exitCode !== null) throw new Error(`${r.label} exited ${r.process.exitCode}:\n${r.log.join("\n")}`);
    return Promise.resolve(replicas.every((r) => r.member && r.metricsPort) ? true : undefined);
  });
}

/** Whether the live replicas' Leases hold every bucket, each once: the group is settled (a dead Lease may linger). */
function liveHoldAll(holdings: readonly MemberHolding[], live: readonly Replica[]): boolean {
  const mine = holdings.filter((h) => live.some((r) => r.member === h.member));
  const held = mine.flatMap((h) => [...h.held]);
  const buckets = mine[0]?.buckets ?? 0;
  return mine.length === live.length && held.length === buckets && new Set(held).size === buckets;
}

const settled = (kube: KubeClient, live: readonly Replica[]) =>
  until("the live replicas hold the whole hash space", 60_000, async () =>
    liveHoldAll(await memberHoldings(kube, namespace, group), live) ? true : undefined,
  );

type Clusters = ResourceClient<MySQLCluster>;
const listAll = async (clusters: Clusters) => (await clusters.list(namespace)).items;

/** Creates the clusters, then starts the replicas; resolves once they split them and every cluster is Ready. */
async function split(kubeconfig: string, kube: KubeClient, clusters: Clusters, replicas: Replica[]): Promise<void> {
  for (let i = 1; i <= clusterCount; i++)
    await clusters.create(namespace, {
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name: `db-${String(i).padStart(2, "0")}` },
      spec: { version: "8.0.36", replicas: 1 },
    });
  const count = replicas.length;
  say(`== ${clusterCount} MySQLClusters created (1 instance each), then ${count} operator replicas started`);
  const started = Date.now();
  for (let i = 0; i < count; i++) replicas[i] = startReplica(kubeconfig, `replica ${i + 1}`);
  await allStarted(replicas);
  for (const r of replicas)
    say(`   ${r.label} (pid ${r.process.pid}): --sharding=${group}, member Lease ${namespace}/${r.member}`);
  await until(`${clusterCount} MySQLClusters Ready`, 120_000, async () =>
    (await listAll(clusters)).every((c) => converged(c, 1)) ? true : undefined,
  );
  await settled(kube, replicas);
  say(`   all Ready in ${seconds(started)}`);
  const filtered = replicas.map((r) => (r.serverFiltered === undefined ? "?" : r.serverFiltered ? "yes" : "no"));
  say(`   the API server filtered each replica's LIST and WATCH by shard (its log): ${filtered.join(", ")}`);
  say("== who reconciles which (the buckets each replica's Lease holds; objects owned from its /metrics)");
  await showOwners(kube, replicas, await listAll(clusters));
}

/** Kills the replica holding the most clusters while every cluster scales to 2; times the takeover. */
async function killOne(kube: KubeClient, clusters: Clusters, replicas: Replica[]): Promise<void> {
  const holdings = await memberHoldings(kube, namespace, group);
  const before = await listAll(clusters);
  const heldBy = (r: Replica) => before.filter((c) => holdersOf(c, holdings).includes(r.member ?? ""));
  const victim = replicas.reduce((a, b) => (heldBy(b).length > heldBy(a).length ? b : a));
  const orphaned = new Set(heldBy(victim).map(nameOf));
  const live = replicas.filter((r) => r !== victim);
  const killed = Date.now();
  victim.process.kill("SIGKILL");
  say(`\n== kill -9 ${victim.label} (${orphaned.size} clusters), then scale every cluster to 2 instances`);
  for (const c of before)
    await clusters.patch(namespace, nameOf(c), { type: "merge", body: { spec: { replicas: 2 } } });

  const readyAt = new Map<string, number>();
  let takenOver: string | undefined;
  await until("every MySQLCluster Ready with 2 instances", 120_000, async () => {
    for (const c of await listAll(clusters))
      if (!readyAt.has(nameOf(c)) && converged(c, 2)) readyAt.set(nameOf(c), Date.now());
    if (!takenOver && liveHoldAll(await memberHoldings(kube, namespace, group), live)) takenOver = seconds(killed);
    return readyAt.size === before.length && takenOver ? true : undefined;
  });
  const slowest = (names: string[]) => (Math.max(...names.map((n) => readyAt.get(n)! - killed)) / 1000).toFixed(1);
  const others = before.map(nameOf).filter((n) => !orphaned.has(n));
  say(`   ${live.map((r) => r.label).join(" and ")}'s ${others.length} clusters Ready with 2 in ${slowest(others)} s`);
  say(`   ${victim.label}'s ranges taken over at ${takenOver} (its Lease lapses 15 s after its last renewal)`);
  if (orphaned.size > 0)
    say(`   ${victim.label}'s ${orphaned.size} clusters Ready with 2 in ${slowest([...orphaned])} s`);
  say("== who reconciles which now");
  await showOwners(kube, live, await listAll(clusters));
}

/** SIGTERM to the replicas still running, and their exit. */
async function stopAll(replicas: Replica[]): Promise<void> {
  const running = replicas.filter((r) => r.process.exitCode === null && r.process.signalCode === null);
  const exited = running.map((r) => new Promise((resolve) => r.process.once("exit", resolve)));
  for (const r of running) r.process.kill("SIGTERM");
  await Promise.all(exited);
}

export async function shardsDemo(count: number): Promise<number> {
  if (!Number.isInteger(count) || count < 2) throw new Error(`--shards: ${count} is not a whole number of 2 or more`);
  say(`== a local control plane (kwok runs the Pods) with ShardedListAndWatch on; ${count} operator replicas`);
  const plane = await startControlPlane({
    crdFiles: [path.join(sampleDir, "crd.yaml")],
    controllers: true,
    apiServerArgs: ["--feature-gates=ShardedListAndWatch=true"],
  });
  const kube = plane.kubeClient();
  const clusters = new ResourceClient<MySQLCluster>(kube, mySQLClusterResource);
  const replicas: Replica[] = new Array<Replica>(count);
  try {
    await split(plane.kubeconfigPath, kube, clusters, replicas);
    await killOne(kube, clusters, replicas);
    say(`\n== done: ${count} replicas split ${clusterCount} MySQLClusters, one killed, every cluster converged`);
    return 0;
  } catch (error) {
    say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
    for (const r of replicas.filter(Boolean)) say(`-- ${r.label}'s last log lines:\n${r.log.join("\n")}`);
    return 1;
  } finally {
    await stopAll(replicas.filter(Boolean));
    await plane.stop();
  }
}
