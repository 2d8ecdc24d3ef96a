// bench:runtime's `sharding` scenario (BENCH_SCENARIO=sharding): 1, 2 and 3 members of one sharding group (processes
// of bench/sharding-member.ts) reconcile BENCH_OBJECTS MySQLClusters (default 10,000), each reconcile costing
// BENCH_RECONCILE_MS (2) of CPU. Per member count: time until every object was reconciled once, per-member heap and
// peak RSS, per-member bytes of the primary LIST/WATCH, double (overlapping) and missed reconciles. With 3 members:
// rebalance after a kill -9 (until the others hold the whole space, and until they reconciled the lost objects) and
// after a join. BENCH_SHARDING_GATE=off runs with ShardedListAndWatch off (the client filters).
// Results: bench/results/sharding-<date><BENCH_RESULT_SUFFIX>.{json,md}.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { compiledDir, repoRoot, resultsDir } from "./paths.js";

const N = Number(process.env["BENCH_OBJECTS"] ?? 10_000);
const GATE = process.env["BENCH_SHARDING_GATE"] !== "off";
const LEASE_MS = 4_000;
const memberScript = path.join(compiledDir, "sharding-member.js");

interface Member {
  proc: ChildProcess;
  held: number;
  bytes: number;
  memory?: { heap: number; rss: number };
  uids: Set<string>;
}

interface Interval {
  member: string;
  uid: string;
  start: number;
  end: number;
}

class Group {
  readonly members = new Map<string, Member>();
  readonly intervals: Interval[] = [];

  constructor(
    private readonly kubeconfig: string,
    readonly name: string,
  ) {}

  start(member: string): void {
    const proc = spawn(process.execPath, ["--expose-gc", memberScript, this.kubeconfig, member, this.name], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const state: Member = { proc, held: 0, bytes: 0, uids: new Set() };
    this.members.set(member, state);
    readline.createInterface({ input: proc.stdout }).on("line", (line) => {
      const msg = JSON.parse(line) as {
        r?: [string, number, number];
        held?: number;
        bytes?: number;
        heap?: number;
        rss?: number;
      };
      if (msg.r) {
        state.uids.add(msg.r[0]);
        this.intervals.push({ member, uid: msg.r[0], start: msg.r[1], end: msg.r[2] });
      }
      if (msg.held !== undefined) state.held = msg.held;
      if (msg.bytes !== undefined) state.bytes = msg.bytes;
      if (msg.heap !== undefined && msg.rss !== undefined) state.memory = { heap: msg.heap, rss: msg.rss };
    });
  }

  reconciled(): Set<string> {
    return new Set(this.intervals.map((i) => i.uid));
  }

  heldTotal(members = [...this.members.keys()]): number {
    return members.reduce((sum, m) => sum + (this.members.get(m)?.held ?? 0), 0);
  }

  async memory(): Promise<Array<{ heap: number; rss: number }>> {
    for (const m of this.members.values()) {
      m.memory = undefined;
      m.proc.kill("SIGUSR2");
    }
    await until(() => [...this.members.values()].every((m) => m.memory), 30_000, "memory reports");
    return [...this.members.values()].map((m) => m.memory!);
  }

  async kill(member: string, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const m = this.members.get(member);
    if (!m) return;
    if (m.proc.exitCode === null && m.proc.signalCode === null) {
      const exited = new Promise((r) => m.proc.once("exit", r));
      m.proc.kill(signal);
      await exited;
    }
    this.members.delete(member);
  }

  async stop(): Promise<void> {
    for (const m of [...this.members.keys()]) await this.kill(m, "SIGTERM");
  }
}

/** Pairs of one object's reconciles by two members that overlap in time. */
function doubles(intervals: readonly Interval[]): number {
  const byUid = new Map<string, Interval[]>();
  for (const i of intervals) byUid.set(i.uid, [...(byUid.get(i.uid) ?? []), i]);
  let found = 0;
  for (const list of byUid.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length && list[j]!.start < list[i]!.end; j++)
        if (list[j]!.member !== list[i]!.member) found++;
  }
  return found;
}

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Run {
  members: number;
  reconcileAllMs: number;
  heapMB: number[];
  rssMB: number[];
  bytes: number[];
  doubles: number;
  missed: number;
}

async function runMembers(kubeconfig: string, count: number): Promise<Run> {
  const group = new Group(kubeconfig, `bench-${count}`);
  const names = Array.from({ length: count }, (_, i) => `m${i}`);
  const started = performance.now();
  for (const m of names) group.start(m);
  await until(() => group.reconciled().size >= N, 600_000, `${N} reconciled by ${count}`);
  const reconcileAllMs = performance.now() - started;
  // Settled: the shares stay put, the caches hold their objects.
  await until(() => Math.abs(group.heldTotal() - 1) < 1e-3, 60_000, "the whole space held");
  const memory = await group.memory();
  const run: Run = {
    members: count,
    reconcileAllMs,
    heapMB: memory.map((m) => m.heap),
    rssMB: memory.map((m) => m.rss),
    bytes: [...group.members.values()].map((m) => m.bytes),
    doubles: doubles(group.intervals),
    missed: N - group.reconciled().size,
  };
  await group.stop();
  return run;
}

interface Rebalance {
  killHeldMs: number;
  killReconciledMs: number;
  joinHeldMs: number;
  doubles: number;
}

/** 3 members; kill -9 one: until the others hold everything and reconciled its objects; then a fourth joins. */
async function rebalance(kubeconfig: string): Promise<Rebalance> {
  const group = new Group(kubeconfig, "bench-rebalance");
  for (const m of ["m0", "m1", "m2"]) group.start(m);
  await until(() => group.reconciled().size >= N && Math.abs(group.heldTotal() - 1) < 1e-3, 600_000, "settled");
  const lost = new Set(group.members.get("m0")!.uids);
  const before = group.intervals.length;
  const killed = performance.now();
  await group.kill("m0");
  await until(() => Math.abs(group.heldTotal(["m1", "m2"]) - 1) < 1e-3, 120_000, "m1+m2 hold everything");
  const killHeldMs = performance.now() - killed;
  const redone = () => new Set(group.intervals.slice(before).map((i) => i.uid));
  await until(() => [...lost].every((u) => redone().has(u)), 300_000, "m0's objects reconciled again");
  const killReconciledMs = performance.now() - killed;
  const joined = performance.now();
  group.start("m3");
  await until(
    () => (group.members.get("m3")?.held ?? 0) > 0 && Math.abs(group.heldTotal() - 1) < 1e-3,
    120_000,
    "m3 holds its share",
  );
  const joinHeldMs = performance.now() - joined;
  await group.stop();
  return { killHeldMs, killReconciledMs, joinHeldMs, doubles: doubles(group.intervals) };
}

async function createObjects(kube: import("@crdgen/runtime/client").KubeClient): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < N) {
      const i = next++;
      await kube.request({
        method: "POST",
        path: "/apis/example.com/v1/namespaces/default/mysqlclusters",
        body: {
          apiVersion: "example.com/v1",
          kind: "MySQLCluster",
          metadata: { name: `mysql-${String(i).padStart(6, "0")}` },
          spec: { replicas: 1, version: "8.0.36" },
        },
      });
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  return performance.now() - started;
}

const mb = (x: number) => x.toFixed(1);
const s = (ms: number) => (ms / 1000).toFixed(1);

function markdown(runs: Run[], r: Rebalance, createMs: number): string {
  const one = runs[0]!;
  const lines = [
    `# Sharding benchmark (${new Date().toISOString().slice(0, 10)})`,
    "",
    `${N} MySQLClusters (created in ${s(createMs)} s), reconcile ${process.env["BENCH_RECONCILE_MS"] ?? 2} ms of CPU, ` +
      `4 workers per member, Lease 4 s / renew 3 s / retry 0.5 s; ShardedListAndWatch ${GATE ? "on" : "off"}; ` +
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}.`,
    "",
    "| members | reconcile all (s) | throughput vs 1 | heap per member (MB) | heap vs 1 | peak RSS (MB) | primary LIST/WATCH bytes per member | doubles | missed |",
    "|---:|---:|---:|---|---:|---|---|---:|---:|",
    ...runs.map((run) => {
      const maxHeap = Math.max(...run.heapMB);
      return `| ${run.members} | ${s(run.reconcileAllMs)} | ${(one.reconcileAllMs / run.reconcileAllMs).toFixed(2)}× | ${run.heapMB.map(mb).join(", ")} | ${(maxHeap / Math.max(...one.heapMB)).toFixed(2)} | ${run.rssMB.map(mb).join(", ")} | ${run.bytes.map((b) => `${(b / 2 ** 20).toFixed(1)} MB`).join(", ")} | ${run.doubles} | ${run.missed} |`;
    }),
    "",
    `Rebalance with 3 members: after kill -9 the other two held the whole space ${s(r.killHeldMs)} s later ` +
      `(Lease ${LEASE_MS / 1000} s) and had reconciled the killed member's objects ${s(r.killReconciledMs)} s later; ` +
      `a fourth member held its share ${s(r.joinHeldMs)} s after it started; ${r.doubles} overlapping reconciles.`,
  ];
  return `${lines.join("\n")}\n`;
}

export async function shardingScenario(): Promise<void> {
  const { startControlPlane } = await import("@crdgen/runtime/envtest");
  const plane = await startControlPlane({
    crdFiles: [path.join(repoRoot, "samples/mysql/crd.yaml")],
    apiServerArgs: [
      "--max-requests-inflight=1000",
      "--max-mutating-requests-inflight=500",
      ...(GATE ? ["--feature-gates=ShardedListAndWatch=true"] : []),
    ],
  });
  try {
    console.error(`creating ${N} MySQLClusters ...`);
    const createMs = await createObjects(plane.kubeClient());
    const runs: Run[] = [];
    for (const count of [1, 2, 3]) {
      console.error(`${count} member(s) ...`);
      runs.push(await runMembers(plane.kubeconfigPath, count));
      console.error(JSON.stringify(runs.at(-1)));
    }
    console.error("rebalance ...");
    const r = await rebalance(plane.kubeconfigPath);
    const md = markdown(runs, r, createMs);
    process.stdout.write(md);
    const date = new Date().toISOString().slice(0, 10);
    const suffix = process.env["BENCH_RESULT_SUFFIX"] ?? (GATE ? "" : "-gate-off");
    await writeFile(
      path.join(resultsDir, `sharding-${date}${suffix}.json`),
      `${JSON.stringify({ objects: N, gate: GATE, createMs, runs, rebalance: r }, null, 2)}\n`,
    );
    await writeFile(path.join(resultsDir, `sharding-${date}${suffix}.md`), md);
  } finally {
    await plane.stop();
  }
}
