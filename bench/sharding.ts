// bench:runtime's `sharding` scenario (BENCH_SCENARIO=sharding): 1, 2 and 3 members of one sharding group (processes
// of bench/sharding-member.ts) reconcile BENCH_OBJECTS MySQLClusters (default 10,000), each reconcile costing
// BENCH_RECONCILE_MS (2) of CPU. Per member count: time until every object was reconciled once, per-member heap and
// peak RSS, per-member bytes of the primary LIST/WATCH, double (overlapping) and missed reconciles. With 3 members:
// rebalance after a kill -9 (until the others hold the whole space, and until they reconciled the lost objects) and
// after a join. BENCH_SHARDING_GATE=off runs with ShardedListAndWatch off (the client filters).
// BENCH_OBJECT_SHAPE=reconciled creates the objects as the sample operator's reconciles leave them (status, conditions,
// labels, kubectl's annotation: bench/sharding-shapes.ts) instead of spec-only ones; BENCH_MEMBER_COUNTS (default
// "1,2,3", starting with 1) picks the member counts; BENCH_REBALANCE=off leaves the kill and join out;
// BENCH_HEAP_SNAPSHOTS=<dir> has every member write a heap snapshot there after its heap reading.
// BENCH_KUBECONFIG=<file> runs the members against a cluster that already holds exactly BENCH_OBJECTS MySQLClusters in
// `default` (no control plane started, no objects made, no fixed heap measured).
// Heap: each member's V8 heap used right after forced full GCs (node --expose-gc), taken once every object was
// reconciled and the members hold the whole hash space. Before the objects are made, one member runs on the empty
// cluster: its heap is the fixed part every member pays (imports, client, informer, metrics) whatever its share.
// Results: bench/results/sharding-<date><BENCH_RESULT_SUFFIX>.{json,md}.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { compiledDir, repoRoot, resultsDir } from "./paths.js";
import { createObject, objectShape } from "./sharding-shapes.js";

const N = Number(process.env["BENCH_OBJECTS"] ?? 10_000);
const GATE = process.env["BENCH_SHARDING_GATE"] !== "off";
const SHAPE = objectShape();
const MEMBER_COUNTS = memberCounts(process.env["BENCH_MEMBER_COUNTS"] ?? "1,2,3");
const REBALANCE = process.env["BENCH_REBALANCE"] !== "off";
const LEASE_MS = 4_000;
/** Waits that grow with the object count (reconciling 100,000 at 2 ms each takes minutes on one member). */
const scaled = (ms: number) => Math.max(ms, N * 20);
const memberScript = path.join(compiledDir, "sharding-member.js");

/** "1,3" → [1, 3]: the first must be 1 (the others are compared with it), each a positive integer. */
function memberCounts(value: string): number[] {
  const counts = value.split(",").map((x) => Number(x.trim()));
  if (counts[0] !== 1 || counts.some((c) => !Number.isInteger(c) || c < 1))
    throw new Error(`BENCH_MEMBER_COUNTS must be positive integers starting with 1, e.g. "1,3", not "${value}"`);
  return counts;
}

interface Memory {
  heap: number;
  rss: number;
  cpuMs: number;
  /** The longest event-loop delay the member saw (ms). */
  loopMaxMs: number;
  /** How often it let its buckets go because it could not renew its Lease in time. */
  deadlineMissed: number;
}

interface Member {
  proc: ChildProcess;
  held: number;
  bytes: number;
  synced: boolean;
  memory?: Memory;
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
  /** Every uid reconciled at least once. */
  readonly reconciled = new Set<string>();
  /** Uids still to be reconciled again (rebalance): a reconcile by a member not killed takes its uid out. */
  readonly awaited = new Set<string>();
  private readonly killed = new Set<string>();

  constructor(
    private readonly kubeconfig: string,
    readonly name: string,
  ) {}

  start(member: string): void {
    const proc = spawn(process.execPath, ["--expose-gc", memberScript, this.kubeconfig, member, this.name], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const state: Member = { proc, held: 0, bytes: 0, synced: false, uids: new Set() };
    this.members.set(member, state);
    readline.createInterface({ input: proc.stdout }).on("line", (line) => {
      const msg = JSON.parse(line) as {
        r?: [string, number, number];
        held?: number;
        bytes?: number;
        synced?: boolean;
        heap?: number;
        rss?: number;
        cpuMs?: number;
        loopMaxMs?: number;
        deadlineMissed?: number;
      };
      if (msg.r) {
        state.uids.add(msg.r[0]);
        this.reconciled.add(msg.r[0]);
        if (!this.killed.has(member)) this.awaited.delete(msg.r[0]);
        this.intervals.push({ member, uid: msg.r[0], start: msg.r[1], end: msg.r[2] });
      }
      if (msg.held !== undefined) state.held = msg.held;
      if (msg.bytes !== undefined) state.bytes = msg.bytes;
      if (msg.synced !== undefined) state.synced = msg.synced;
      if (msg.heap !== undefined && msg.rss !== undefined)
        state.memory = {
          heap: msg.heap,
          rss: msg.rss,
          cpuMs: msg.cpuMs ?? 0,
          loopMaxMs: msg.loopMaxMs ?? 0,
          deadlineMissed: msg.deadlineMissed ?? 0,
        };
    });
  }

  heldTotal(members = [...this.members.keys()]): number {
    return members.reduce((sum, m) => sum + (this.members.get(m)?.held ?? 0), 0);
  }

  async memory(): Promise<Memory[]> {
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
    this.killed.add(member);
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
  /** CPU time (user + system) of each member up to the heap reading. */
  cpuMs: number[];
  /** Each member's longest event-loop delay (ms) and renew deadlines missed, up to the heap reading. */
  loopMaxMs: number[];
  deadlineMissed: number[];
  /** The part of the hash space each member held. */
  held: number[];
  bytes: number[];
  doubles: number;
  missed: number;
  /** os.loadavg()[0] when all were reconciled. */
  load: number;
}

async function runMembers(kubeconfig: string, count: number): Promise<Run> {
  const group = new Group(kubeconfig, `bench-${count}`);
  const names = Array.from({ length: count }, (_, i) => `m${i}`);
  const started = performance.now();
  for (const m of names) group.start(m);
  await until(() => group.reconciled.size >= N, scaled(600_000), `${N} reconciled by ${count}`);
  const reconcileAllMs = performance.now() - started;
  const load = os.loadavg()[0]!;
  // Settled: the shares stay put, the caches hold their objects.
  await until(() => Math.abs(group.heldTotal() - 1) < 1e-3, 60_000, "the whole space held");
  // Read before the heap reading: a member's forced GCs of a large heap can outlast its renew deadline.
  const held = [...group.members.values()].map((m) => m.held);
  const bytes = [...group.members.values()].map((m) => m.bytes);
  const memory = await group.memory();
  const run: Run = {
    members: count,
    reconcileAllMs,
    heapMB: memory.map((m) => m.heap),
    rssMB: memory.map((m) => m.rss),
    cpuMs: memory.map((m) => m.cpuMs),
    loopMaxMs: memory.map((m) => m.loopMaxMs),
    deadlineMissed: memory.map((m) => m.deadlineMissed),
    held,
    bytes,
    doubles: doubles(group.intervals),
    missed: N - group.reconciled.size,
    load,
  };
  await group.stop();
  return run;
}

/** One member on the cluster before any object exists, once it holds the whole space: the heap every member pays. */
async function fixedHeap(kubeconfig: string): Promise<Memory> {
  const group = new Group(kubeconfig, "bench-empty");
  // A name of its own: a Lease left to expire by a quick stop would block a later member of that name.
  group.start("empty");
  const settled = () => group.members.get("empty")!.synced && Math.abs(group.heldTotal() - 1) < 1e-3;
  await until(settled, 60_000, "the empty member synced and holding the whole space");
  const [memory] = await group.memory();
  await group.stop();
  return memory!;
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
  const settled = () => group.reconciled.size >= N && Math.abs(group.heldTotal() - 1) < 1e-3;
  await until(settled, scaled(600_000), "settled");
  for (const uid of group.members.get("m0")!.uids) group.awaited.add(uid);
  const killed = performance.now();
  await group.kill("m0");
  await until(() => Math.abs(group.heldTotal(["m1", "m2"]) - 1) < 1e-3, 120_000, "m1+m2 hold everything");
  const killHeldMs = performance.now() - killed;
  await until(() => group.awaited.size === 0, scaled(300_000), "m0's objects reconciled again");
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
    while (next < N) await createObject(kube, SHAPE, next++);
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  return performance.now() - started;
}

const mb = (x: number) => x.toFixed(1);
const s = (ms: number) => (ms / 1000).toFixed(1);

const list = (xs: number[], f: (x: number) => string) => xs.map(f).join(", ");

/** The fixed part (one member on the empty cluster) and what each member holds above it. */
function fixedPart(fixed: Memory, oneHeap: number, three: Run | undefined): string {
  const oneCache = oneHeap - fixed.heap;
  return (
    `Fixed part: one member on the empty cluster holds ${mb(fixed.heap)} MB (peak RSS ${mb(fixed.rss)} MB); the ` +
    `single member's cache of ${N} objects is then ${mb(oneCache)} MB (${Math.round((oneCache * 2 ** 20) / N)} bytes ` +
    `per object).` +
    (three
      ? ` At 3 members each holds ${list(
          three.heapMB.map((h) => h - fixed.heap),
          mb,
        )} MB above the fixed part, ${list(
          three.heapMB.map((h) => (h - fixed.heap) / oneCache),
          (x) => x.toFixed(2),
        )} of the single member's, for shares ${list(three.held, (h) => h.toFixed(3))}.`
      : "")
  );
}

function markdown(runs: Run[], r: Rebalance | undefined, createMs: number | undefined, fixed?: Memory): string {
  const one = runs[0]!;
  const oneHeap = Math.max(...one.heapMB);
  const three = runs.find((run) => run.members === 3);
  const lines = [
    `# Sharding benchmark (${new Date().toISOString().slice(0, 10)})`,
    "",
    `${N} MySQLClusters, ${SHAPE} (${createMs === undefined ? "made beforehand" : `created in ${s(createMs)} s`}), reconcile ${process.env["BENCH_RECONCILE_MS"] ?? 2} ms of CPU, ` +
      `4 workers per member, Lease 4 s / renew 3 s / retry 0.5 s; ShardedListAndWatch ${GATE ? "on" : "off"}; ` +
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}.`,
    "",
    "| members | reconcile all (s) | throughput vs 1 | CPU per member (s) | load | share of the hash space | heap per member (MB) | heap vs 1 | peak RSS (MB) | primary LIST/WATCH bytes per member | longest event-loop delay (ms) | renew deadline missed | doubles | missed |",
    "|---:|---:|---:|---|---:|---|---|---:|---|---|---|---|---:|---:|",
    ...runs.map((run) => {
      const maxHeap = Math.max(...run.heapMB);
      return `| ${run.members} | ${s(run.reconcileAllMs)} | ${(one.reconcileAllMs / run.reconcileAllMs).toFixed(2)}× | ${list(run.cpuMs, s)} | ${run.load.toFixed(1)} | ${list(run.held, (h) => h.toFixed(3))} | ${list(run.heapMB, mb)} | ${(maxHeap / oneHeap).toFixed(2)} | ${list(run.rssMB, mb)} | ${list(run.bytes, (b) => `${(b / 2 ** 20).toFixed(1)} MB`)} | ${list(run.loopMaxMs, (ms) => ms.toFixed(0))} | ${list(run.deadlineMissed, String)} | ${run.doubles} | ${run.missed} |`;
    }),
    "",
    `Heap: V8 heap used in each member right after forced full GCs, once every object was reconciled and the members ` +
      `held the whole space; "heap vs 1" is the largest member's over the single member's.` +
      (fixed ? ` ${fixedPart(fixed, oneHeap, three)}` : ""),
    ...(r
      ? [
          "",
          `Rebalance with 3 members: after kill -9 the other two held the whole space ${s(r.killHeldMs)} s later ` +
            `(Lease ${LEASE_MS / 1000} s) and had reconciled the killed member's objects ${s(r.killReconciledMs)} s ` +
            `later; a fourth member held its share ${s(r.joinHeldMs)} s after it started; ${r.doubles} overlapping ` +
            `reconciles.`,
        ]
      : []),
  ];
  return `${lines.join("\n")}\n`;
}

export async function shardingScenario(): Promise<void> {
  const existing = process.env["BENCH_KUBECONFIG"];
  if (existing) return measureOn(existing, undefined, undefined);
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
    console.error("fixed heap: one member, no objects ...");
    const fixed = await fixedHeap(plane.kubeconfigPath);
    console.error(`creating ${N} MySQLClusters ...`);
    const createMs = await createObjects(plane.kubeClient());
    await measureOn(plane.kubeconfigPath, createMs, fixed);
  } finally {
    await plane.stop();
  }
}

/** The member counts and the rebalance on a cluster that holds the objects; the results' files. */
async function measureOn(kubeconfig: string, createMs: number | undefined, fixed: Memory | undefined): Promise<void> {
  const runs: Run[] = [];
  for (const count of MEMBER_COUNTS) {
    console.error(`${count} member(s) ...`);
    runs.push(await runMembers(kubeconfig, count));
    console.error(JSON.stringify(runs.at(-1)));
  }
  if (REBALANCE) console.error("rebalance ...");
  const r = REBALANCE ? await rebalance(kubeconfig) : undefined;
  const md = markdown(runs, r, createMs, fixed);
  process.stdout.write(md);
  const date = new Date().toISOString().slice(0, 10);
  const suffix = process.env["BENCH_RESULT_SUFFIX"] ?? (GATE ? "" : "-gate-off");
  await writeFile(
    path.join(resultsDir, `sharding-${date}${suffix}.json`),
    `${JSON.stringify({ objects: N, shape: SHAPE, gate: GATE, createMs, fixed, runs, rebalance: r }, null, 2)}\n`,
  );
  await writeFile(path.join(resultsDir, `sharding-${date}${suffix}.md`), md);
}
