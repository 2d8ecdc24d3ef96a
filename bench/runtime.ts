// Runtime benchmark: crdgen's informer and controller against controller-runtime (Go, bench/controller-runtime/,
// built by bench/controller-runtime.ts into a cache outside the repo) and @kubernetes/client-node's informer, on one
// real local control plane (etcd + kube-apiserver from @crdgen/runtime/envtest).
//
//   npm run bench:runtime    (builds first; BENCH_OBJECTS=1000 for a quick run; BENCH_RESULT_SUFFIX=-x names the files)
//
// The parent process starts the control plane and creates BENCH_OBJECTS MySQLClusters (default 10,000, concurrency
// 50). Each measurement then runs in a fresh process (node --expose-gc, or the Go binary) so heaps and JIT state
// don't mix:
//   informer-crdgen       crdgen SharedIndexInformer (generated mySQLClusterInformerFor), default transform
//   informer-crdgen-raw   the same, but keeping managedFields (transform: identity)
//   informer-crdgen-watchlist  the same as informer-crdgen, with the streaming list (useWatchList) instead of LIST
//   informer-client-node  client-node makeInformer over CustomObjectsApi.listNamespacedCustomObject
//   go informer           controller-runtime's cache, typed structs or unstructured, managedFields kept or stripped
//   list-floor            the same LIST (gzip) as raw HTTPS, bytes drained and not decoded: the API server's share
//   controller            generated newMySQLClusterController (no-op reconcile recording generations), and the Go
//                         manager with its reconciler, started fresh: time until every object is reconciled at a
//                         target generation; once as created (4 workers), then after the parent patched every
//                         object while no controller ran (1, 4 and 16 workers)
//   live-update[-priority]  the same controller (1 worker, BENCH_RECONCILE_MS of simulated work per reconcile): one
//                         object patched as soon as the cache has synced; time until that patch is reconciled,
//                         without and with usePriorityQueue. BENCH_SCENARIO=priority-queue runs only these;
//                         BENCH_PRIORITY=0 leaves them out.
//   BENCH_SCENARIO=webhooks  admission round trip through the API server: rounds of 100 concurrent creates (BENCH_RUNS
//                         rounds) into a namespace the runtime's defaulting and validating webhooks select and into
//                         one they don't (interleaved), p50/p99 per create; bench/results/webhooks-<date>.{json,md}.
//   BENCH_SCENARIO=sharding  1, 2 and 3 members of a sharding group on BENCH_OBJECTS objects (bench/sharding.ts).
// Results: a table on stdout, and bench/results/<date><BENCH_RESULT_SUFFIX>.{json,md}.
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setImmediate as tick } from "node:timers/promises";
import type { OutgoingHttpHeaders } from "node:http";
import type { RequestOptions } from "node:https";
import type { KubeClient } from "@crdgen/runtime/client";
import type { KubernetesListObject } from "@kubernetes/client-node";
import type { MySQLCluster, MySQLClusterHooks } from "../samples/mysql/generated/example.com/v1/index.js";
import { repoRoot as root, resultsDir } from "./paths.js";

const GROUP = "example.com";
const VERSION = "v1";
const PLURAL = "mysqlclusters";
const NAMESPACE = "bench";
const N = Number(process.env["BENCH_OBJECTS"] ?? 10_000);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 50);
const WORKERS = Number(process.env["BENCH_WORKERS"] ?? 4);
const collectionPath = `/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/${PLURAL}`;
const name = (i: number): string => `mysql-${String(i).padStart(5, "0")}`;

/** Runs fn(i) for i in [0, n) with at most `limit` in flight. */
async function pool(n: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, run));
}

async function retrying<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let a = 1; ; a++) {
    try {
      return await fn();
    } catch (e) {
      if (a >= attempts) throw e;
      await new Promise((r) => setTimeout(r, 100 * a));
    }
  }
}

async function settleHeap(): Promise<number> {
  if (!globalThis.gc) throw new Error("run with node --expose-gc");
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await tick();
  }
  return process.memoryUsage().heapUsed;
}

/** The process's peak resident set so far, in MB (includes the transient copies a LIST response needs). */
function peakRssMB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

// client-node's KubeConfig, for the client-node informer and the floor; crdgen's children load the kubeconfig as an
// operator does (loadKubeClient), without client-node.
async function loadKubeConfig(kubeconfigPath: string) {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return kc;
}

// ---------------------------------------------------------------------------------------------------------------
// Children

/** An informer's result line: the Go binary prints the same fields. */
interface InformerResult {
  runtime: string;
  cached: number;
  adds: number;
  syncMs: number;
  listedMs?: number;
  heapBefore: number;
  heapAfter: number;
  heapPerObject: number;
  peakRssMB: number;
  rssBeforeMB?: number;
}

async function informerCrdgen(
  kubeconfigPath: string,
  { keepManagedFields = false, useWatchList = false } = {},
): Promise<InformerResult> {
  const { loadKubeClient } = await import("@crdgen/runtime/client");
  const { SharedInformerFactory } = await import("@crdgen/runtime/cache");
  // The generated modules are imported only by the children that measure them.
  const { mySQLClusterInformerFor } = await import("../samples/mysql/generated/example.com/v1/index.js");
  const kube = loadKubeClient({ kubeconfig: kubeconfigPath });
  const factory = new SharedInformerFactory();
  const controller = new AbortController();
  const before = await settleHeap();
  const rssBeforeMB = process.memoryUsage().rss / 1024 / 1024;

  const started = performance.now();
  const { informer } = mySQLClusterInformerFor(factory, kube, {
    namespace: NAMESPACE,
    ...(keepManagedFields ? { transform: (o: MySQLCluster) => o } : {}),
    reflector: { useWatchList },
  });
  let adds = 0;
  informer.addEventHandler({
    addFunc: () => {
      adds++;
    },
  });
  factory.start(controller.signal);
  await informer.waitForCacheSync(controller.signal);
  const listedMs = performance.now() - started;
  await until(() => adds >= N, 120_000, "initial add events");
  const syncMs = performance.now() - started;

  const after = await settleHeap();
  const cached = informer.getIndexer().list().length;
  controller.abort();
  kube.close();
  const runtime = keepManagedFields
    ? "crdgen (managedFields kept)"
    : useWatchList
      ? "crdgen (streaming list)"
      : "crdgen";
  return {
    runtime,
    cached,
    adds,
    listedMs,
    syncMs,
    heapBefore: before,
    heapAfter: after,
    heapPerObject: (after - before) / cached,
    peakRssMB: peakRssMB(),
    rssBeforeMB,
  };
}

async function informerClientNode(kubeconfigPath: string): Promise<InformerResult> {
  const k8s = await import("@kubernetes/client-node");
  const kc = await loadKubeConfig(kubeconfigPath);
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const before = await settleHeap();

  const started = performance.now();
  let listResolved = false;
  const listFn = async () => {
    // client-node types a custom object list as any.
    const list = (await api.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NAMESPACE,
      plural: PLURAL,
    })) as KubernetesListObject<MySQLCluster>;
    listResolved = true;
    return list;
  };
  const informer = k8s.makeInformer(kc, collectionPath, listFn);
  let adds = 0;
  let connected = false;
  informer.on("add", () => {
    adds++;
  });
  informer.on("connect", () => {
    connected = true;
  });
  let stopping = false;
  informer.on("error", (e) => {
    if (!stopping) console.error("client-node informer error", e);
  });
  await informer.start();
  // start() resolves once the list is applied and the watch is open; the add count confirms every object arrived.
  const listedMs = performance.now() - started;
  await until(() => connected && listResolved && adds >= N, 120_000, "client-node list");
  const syncMs = performance.now() - started;

  const after = await settleHeap();
  const cached = informer.list().length;
  stopping = true;
  await informer.stop();
  return {
    runtime: "@kubernetes/client-node",
    cached,
    adds,
    listedMs,
    syncMs,
    heapBefore: before,
    heapAfter: after,
    heapPerObject: (after - before) / cached,
    peakRssMB: peakRssMB(),
  };
}

interface FloorResult {
  runtime: string;
  bytes: number;
  syncMs: number;
}

/** The floor under every informer's time to sync: the API server producing and sending the LIST, nothing decoded. */
async function listFloor(kubeconfigPath: string): Promise<FloorResult> {
  const https = await import("node:https");
  const kc = await loadKubeConfig(kubeconfigPath);
  const tls: RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${kubeconfigPath} has no current cluster`);
  const server = new URL(cluster.server);
  const started = performance.now();
  const bytes = await new Promise<number>((resolve, reject) => {
    const query = "resourceVersion=0&limit=500";
    // client-node sets its authentication headers as an object.
    const headers = { ...(tls.headers as OutgoingHttpHeaders), Accept: "application/json", "Accept-Encoding": "gzip" };
    https
      .get(
        {
          host: server.hostname,
          port: server.port,
          path: `${collectionPath}?${query}`,
          ca: tls.ca,
          cert: tls.cert,
          key: tls.key,
          headers,
        },
        (res) => {
          let n = 0;
          res.on("data", (d: Buffer) => void (n += d.length));
          res.on("end", () => resolve(n));
          res.on("error", reject);
        },
      )
      .on("error", reject);
  });
  const syncMs = performance.now() - started;
  return { runtime: "API server floor (LIST received, not decoded)", bytes, syncMs };
}

/**
 * A fresh controller (generated newMySQLClusterController, no-op reconcile that records each key's generation) started
 * against objects nobody writes while it runs: time from start until every key of the targets file (key -> generation)
 * is reconciled at that generation or later. The writer is another process and done before this one starts, so the
 * time is the controller's alone (cache sync, queue and workers).
 */
interface ControllerRunOptions {
  workers: number;
  keepManagedFields: boolean;
  targetsFile: string;
}

/** A controller's result line: the Go binary prints the same fields. */
interface ControllerResult {
  runtime: string;
  workers: number;
  targets: number;
  reconciledMs: number | null;
  firstReconcileMs: number;
  reconciles: number;
  reconcilesPerSec: number | null;
  missing: number;
  peakRssMB: number;
}

async function controllerStartRun(
  kubeconfigPath: string,
  { workers, keepManagedFields, targetsFile }: ControllerRunOptions,
): Promise<ControllerResult> {
  const { readFile } = await import("node:fs/promises");
  const { loadKubeClient } = await import("@crdgen/runtime/client");
  const { SharedInformerFactory } = await import("@crdgen/runtime/cache");
  const { newMySQLClusterController, mySQLClusterInformerFor } =
    await import("../samples/mysql/generated/example.com/v1/index.js");
  const targets = new Map(Object.entries(JSON.parse(await readFile(targetsFile, "utf8")) as Record<string, number>));
  const kube = loadKubeClient({ kubeconfig: kubeconfigPath });
  const seen = new Map<string, number>(); // key -> newest generation reconciled
  let behind = targets.size;
  let reconciles = 0;
  let firstAt = 0;
  let doneAt = 0;
  const hooks: MySQLClusterHooks = {
    // eslint-disable-next-line @typescript-eslint/require-await -- the hook's type is async; this one only counts
    async reconcile(ctx, obj) {
      reconciles++;
      if (firstAt === 0) firstAt = performance.now();
      const gen = obj.metadata.generation ?? 0;
      const prev = seen.get(ctx.key) ?? 0;
      if (gen <= prev) return;
      seen.set(ctx.key, gen);
      const want = targets.get(ctx.key);
      if (want !== undefined && prev < want && gen >= want && --behind === 0) doneAt = performance.now();
    },
  };
  const started = performance.now();
  const informerFactory = new SharedInformerFactory();
  // The controller's primary informer is the factory's: created here first, it keeps managedFields.
  if (keepManagedFields)
    mySQLClusterInformerFor(informerFactory, kube, { namespace: NAMESPACE, transform: (o: MySQLCluster) => o });
  const controller = newMySQLClusterController(kube, hooks, { namespace: NAMESPACE, workers, informerFactory });
  const abort = new AbortController();
  const running = controller.run(abort.signal);
  await until(() => behind === 0, 600_000, "reconciles of every target generation").catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1000)); // count stragglers, if any
  abort.abort();
  await running;
  kube.close();
  return {
    runtime: keepManagedFields ? "crdgen (managedFields kept)" : "crdgen",
    workers,
    targets: targets.size,
    reconciledMs: behind === 0 ? doneAt - started : null,
    firstReconcileMs: firstAt - started,
    reconciles,
    reconcilesPerSec: behind === 0 && doneAt > firstAt ? targets.size / ((doneAt - firstAt) / 1000) : null,
    missing: behind,
    peakRssMB: peakRssMB(),
  };
}

/**
 * Time from a patch made right after the cache syncs until its reconcile, while the initial list's N keys are queued:
 * with usePriorityQueue the live change goes ahead of them, without it waits behind them (1 worker, each reconcile
 * BENCH_RECONCILE_MS of simulated work, default 1 ms).
 */
interface LiveUpdateResult {
  runtime: string;
  workMs: number;
  syncMs: number;
  liveUpdateMs: number;
  reconcilesBefore: number;
  queuedAfter: number;
}

async function liveUpdateRun(kubeconfigPath: string, usePriorityQueue: boolean): Promise<LiveUpdateResult> {
  const { loadKubeClient } = await import("@crdgen/runtime/client");
  const { newMySQLClusterController } = await import("../samples/mysql/generated/example.com/v1/index.js");
  const workMs = Number(process.env["BENCH_RECONCILE_MS"] ?? 1);
  const kube = loadKubeClient({ kubeconfig: kubeconfigPath });
  const writer = loadKubeClient({ kubeconfig: kubeconfigPath });
  const target = `${NAMESPACE}/${name(N - 1)}`; // last in the list: without priorities, last to be reconciled
  let reconciles = 0;
  // Every reconcile of the target, kept: with a priority queue the live change can be reconciled before this process
  // has read the PATCH's response (which tells the generation to wait for); a check made only inside reconcile missed
  // it then and waited for a reconcile that never came.
  const targetReconciles: { generation: number; at: number; before: number }[] = [];
  const hooks: MySQLClusterHooks = {
    async reconcile(ctx, obj) {
      reconciles++;
      if (ctx.key === target)
        targetReconciles.push({
          generation: obj.metadata.generation ?? 0,
          at: performance.now(),
          before: reconciles - 1,
        });
      if (workMs > 0) await new Promise((r) => setTimeout(r, workMs));
    },
  };
  const controller = newMySQLClusterController(kube, hooks, { namespace: NAMESPACE, workers: 1, usePriorityQueue });
  const abort = new AbortController();
  const started = performance.now();
  const running = controller.run(abort.signal);
  await until(() => controller.hasSynced(), 300_000, "cache sync");
  const syncMs = performance.now() - started;
  // A replicas value other than the current one (the CRD allows 0-9), so every run makes a new generation.
  const current = await writer.request<MySQLCluster>({ method: "GET", path: `${collectionPath}/${name(N - 1)}` });
  const patchedAt = performance.now();
  const patched = await writer.request<MySQLCluster>({
    method: "PATCH",
    path: `${collectionPath}/${name(N - 1)}`,
    body: { spec: { replicas: current.spec?.replicas === 5 ? 6 : 5 } },
    contentType: "application/merge-patch+json",
  });
  const wantGeneration = patched.metadata.generation ?? 0;
  const reconciledLive = () => targetReconciles.find((r) => r.generation >= wantGeneration);
  await until(() => reconciledLive() !== undefined, 600_000, "the patched object reconciled");
  const { at: reconciledAt, before: reconcilesBefore } = reconciledLive()!;
  const queuedAfter = controller.queue.len();
  abort.abort();
  await running;
  kube.close();
  writer.close();
  return {
    runtime: `crdgen controller${usePriorityQueue ? " (usePriorityQueue)" : ""}`,
    workMs,
    syncMs,
    liveUpdateMs: reconciledAt - patchedAt,
    reconcilesBefore,
    queuedAfter,
  };
}

interface PriorityQueueRuns {
  plain: LiveUpdateResult[];
  priority: LiveUpdateResult[];
}

async function priorityQueueScenario(kubeconfigPath: string): Promise<PriorityQueueRuns> {
  const runs = Number(process.env["BENCH_RUNS"] ?? 3);
  const out: PriorityQueueRuns = { plain: [], priority: [] };
  for (let r = 1; r <= runs; r++) {
    console.error(`live update, run ${r}/${runs} ...`);
    out.plain.push(await child<LiveUpdateResult>("live-update", kubeconfigPath));
    out.priority.push(await child<LiveUpdateResult>("live-update-priority", kubeconfigPath));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Parent

/** Runs a measurement in a fresh node process; resolves with the result line it prints. */
function child<T>(mode: ChildMode, kubeconfigPath: string, options?: ControllerRunOptions): Promise<T> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      ["--expose-gc", fileURLToPath(import.meta.url), `--child=${mode}`, kubeconfigPath],
      {
        stdio: ["ignore", "pipe", "inherit"],
        env: {
          ...process.env,
          CRDGEN_LOG_LEVEL: process.env["CRDGEN_LOG_LEVEL"] ?? "warn",
          BENCH_CHILD_OPTIONS: JSON.stringify(options ?? {}),
        },
      },
    );
    let out = "";
    p.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    p.on("error", reject);
    p.on("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      if (code !== 0) {
        reject(new Error(`${mode} exited ${String(code)}: ${out}`));
        return;
      }
      try {
        resolve(JSON.parse(line) as T);
      } catch {
        reject(new Error(`${mode}: no result line in ${JSON.stringify(out)}`));
      }
    });
  });
}

const fmtMs = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? "—" : `${(ms / 1000).toFixed(2)} s`;
const fmtB = (b: number) => `${Math.round(b).toLocaleString("en-US")} B`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(1)).join(" ");
const median = <T>(xs: T[], f: (x: T) => number | null | undefined): T =>
  [...xs].sort((a, b) => (f(a) ?? Infinity) - (f(b) ?? Infinity))[Math.floor(xs.length / 2)]!;

function priorityMarkdown(p: PriorityQueueRuns): string {
  const row = (xs: LiveUpdateResult[]) => {
    const m = median(xs, (x) => x.liveUpdateMs);
    const each = xs.map((x) => (x.liveUpdateMs / 1000).toFixed(3)).join(", ");
    return `| ${m.runtime} | ${fmtMs(m.liveUpdateMs)} | ${m.reconcilesBefore.toLocaleString("en-US")} | ${each} |`;
  };
  return [
    "## Controller: a live update right after start",
    "",
    "| runtime | time until the update is reconciled (median) | reconciles before it | each run (s) |",
    "|---|---:|---:|---|",
    row(p.plain),
    row(p.priority),
    "",
    `One worker, ${p.plain[0]!.workMs} ms of simulated work per reconcile. The last object of the list is patched as soon as the cache has synced, while the initial list's keys are queued; ` +
      "time runs from sending the patch until the reconciler sees the patched generation.",
    "",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------------------------
// Webhooks: admission round trip with and without the runtime's webhooks

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** The Widget of test/fixtures/webhook/widgets.yaml, as far as the webhooks read it. */
interface Widget {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: { version: string; replicas?: number; engine?: string };
}

async function webhooksScenario(): Promise<void> {
  const { startControlPlane, startWebhookEnvironment } = await import("@crdgen/runtime/envtest");
  const { admissionWebhooksFor, field, Invalid } = await import("@crdgen/runtime/webhook");
  const { newLogger } = await import("@crdgen/runtime");
  const rounds = Number(process.env["BENCH_RUNS"] ?? 5);
  const perRound = 100;
  const plane = await startControlPlane({
    crdFiles: [path.join(root, "test/fixtures/webhook/widgets.yaml")],
    apiServerArgs: ["--max-requests-inflight=1000", "--max-mutating-requests-inflight=500"],
  });
  let env: Awaited<ReturnType<typeof startWebhookEnvironment>> | undefined;
  try {
    const kube = plane.kubeClient();
    const namespaces = { without: "bench-plain", with: "bench-webhooks" };
    for (const [key, ns] of Object.entries(namespaces))
      await kube.request({
        method: "POST",
        path: "/api/v1/namespaces",
        body: { metadata: { name: ns, labels: key === "with" ? { webhooks: "on" } : {} } },
      });
    const widgets = {
      group: "webhook.example.com",
      version: "v1",
      plural: "widgets",
      kind: "Widget",
      namespaced: true,
    };
    env = await startWebhookEnvironment({
      kube,
      logger: newLogger({ level: "warn" }),
      namespaceSelector: { matchLabels: { webhooks: "on" } },
      webhooks: admissionWebhooksFor<Widget>(widgets, {
        default(obj) {
          obj.spec.replicas ??= 1;
          obj.spec.engine ??= "mysql";
        },
        validateCreate(obj) {
          if (obj.spec.replicas !== undefined && obj.spec.replicas > 9)
            throw new Invalid({ group: widgets.group, kind: "Widget" }, obj.metadata.name, [
              field.invalid("spec.replicas", obj.spec.replicas, "must be at most 9"),
            ]);
        },
      }),
    });
    const at = (ns: string) => `/apis/webhook.example.com/v1/namespaces/${ns}/widgets`;
    const create = (ns: string, name: string, query?: Record<string, string>) =>
      kube.request<Widget>({
        method: "POST",
        path: at(ns),
        ...(query ? { query } : {}),
        body: { apiVersion: "webhook.example.com/v1", kind: "Widget", metadata: { name }, spec: { version: "8.0" } },
      });
    // The API server loads webhook configurations through an informer: wait until a dry-run create is defaulted.
    for (const deadline = Date.now() + 30_000; ;) {
      const probe = await create(namespaces.with, "probe", { dryRun: "All" }).catch(() => ({ spec: { replicas: 0 } }));
      if (probe.spec.replicas === 1) break;
      if (Date.now() > deadline) throw new Error("timed out waiting for the webhooks to be called");
      await new Promise((r) => setTimeout(r, 100));
    }
    const latencies: Record<keyof typeof namespaces, number[]> = { without: [], with: [] };
    let serial = 0;
    for (let r = 1; r <= rounds; r++) {
      for (const key of r % 2 ? (["without", "with"] as const) : (["with", "without"] as const)) {
        console.error(`webhooks, round ${r}/${rounds}: ${perRound} concurrent creates ${key} webhooks ...`);
        const round = await Promise.all(
          Array.from({ length: perRound }, async () => {
            const started = performance.now();
            const obj = await create(namespaces[key], `w-${++serial}`);
            if (key === "with" && obj.spec.replicas !== 1) throw new Error("a create was not defaulted");
            return performance.now() - started;
          }),
        );
        latencies[key].push(...round);
      }
    }
    const summary = (xs: number[]) => ({ p50Ms: percentile(xs, 50), p99Ms: percentile(xs, 99), creates: xs.length });
    const date = new Date().toISOString().slice(0, 10);
    const result = {
      date,
      rounds,
      concurrency: perRound,
      env: { node: process.version, cpus: os.cpus().length, loadavg: os.loadavg().map((l) => Number(l.toFixed(2))) },
      without: summary(latencies.without),
      with: summary(latencies.with),
    };
    const ms = (x: number) => `${x.toFixed(1)} ms`;
    const md = [
      "## Admission round trip: 100 concurrent creates, with and without webhooks",
      "",
      "| webhooks | p50 | p99 | creates |",
      "|---|---:|---:|---:|",
      `| none | ${ms(result.without.p50Ms)} | ${ms(result.without.p99Ms)} | ${result.without.creates} |`,
      `| defaulting + validating (runtime, loopback TLS) | ${ms(result.with.p50Ms)} | ${ms(result.with.p99Ms)} | ${result.with.creates} |`,
      "",
      `${rounds} rounds of ${perRound} concurrent creates each way, interleaved; the webhooks select one namespace by label. ` +
        "The webhook server runs in the benchmark's own process (it shares the event loop with the client). " +
        `Machine: ${result.env.cpus} CPUs, load average ${result.env.loadavg.join(", ")} at the end.`,
      "",
    ].join("\n");
    console.log(md);
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, `webhooks-${date}.json`), `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(path.join(resultsDir, `webhooks-${date}.md`), md);
    console.error(`wrote bench/results/webhooks-${date}.json and .md`);
    kube.close();
  } finally {
    await env?.stop().catch(() => undefined);
    await plane.stop();
  }
}

type WithRuns<T> = T & { runs: T[] };
/** The fields of T that hold a figure (a number, null when the run did not finish, absent on some runtimes). */
type Figure<T> = { [K in keyof T]: T[K] extends number | null | undefined ? K : never }[keyof T];

/** A runtime's median run: each figure is the median of its runs (of the runs that finished, for the times). */
function medianOf<T extends object>(xs: T[], fields: Figure<T>[]): WithRuns<T> {
  const out: WithRuns<T> = { ...xs[0]!, runs: xs };
  for (const f of fields) (out as T)[f] = median(xs, (x) => x[f] as number | null | undefined)[f];
  return out;
}

type InformerKey =
  | "crdgen"
  | "goTypedStripped"
  | "clientNode"
  | "goTyped"
  | "crdgenManagedFields"
  | "goUnstructuredStripped"
  | "crdgenWatchList"
  | "goUnstructured";

interface Target {
  name: string;
  met: boolean;
  value: string;
}

interface RuntimeResults {
  date: string;
  objects: number;
  concurrency: number;
  runs: number;
  controllerRuns: number;
  env: {
    node: string;
    cpus: number;
    cpuModel: string;
    apiServer: string;
    controllerRuntime: string;
    clientGo: string;
    go: string;
  };
  load: Record<"informersStart" | "informersEnd" | "controllersStart" | "updatesStart" | "updatesEnd", number[]>;
  createMs: number;
  informers: Record<InformerKey, WithRuns<InformerResult>> & { floor: WithRuns<FloorResult> };
  controllers: { initial: WithRuns<ControllerResult>[]; updates: WithRuns<ControllerResult>[] };
  updates: { writeMs: number; generation: number };
  priorityQueue: PriorityQueueRuns | null;
  targets: Target[];
}

function markdown(r: RuntimeResults): string {
  const inf = r.informers;
  const informerRow = (x: WithRuns<InformerResult>) =>
    `| ${x.runtime} | ${x.cached.toLocaleString("en-US")} | ${fmtMs(x.syncMs)} | ${fmtB(x.heapPerObject)} | ${Math.round(x.peakRssMB)} MB | ${x.rssBeforeMB ? `${Math.round(x.rssBeforeMB)} MB` : ""} | ${x.runs.map((y) => (y.syncMs / 1000).toFixed(2)).join(", ")} |`;
  const ratioRow = (label: string, a: InformerResult, b: InformerResult, bold = false) => {
    const w = (t: string) => (bold ? `**${t}**` : t);
    return `| ${w(label)} | | ${w(ratio(a.syncMs, b.syncMs))} | ${w(ratio(a.heapPerObject, b.heapPerObject))} | ${ratio(a.peakRssMB, b.peakRssMB)} | | |`;
  };
  const ctlRow = (x: WithRuns<ControllerResult>) =>
    `| ${x.runtime} | ${x.workers} | ${fmtMs(x.reconciledMs)} | ${x.reconcilesPerSec ? Math.round(x.reconcilesPerSec).toLocaleString("en-US") : "—"} | ${x.reconciles.toLocaleString("en-US")} | ${x.missing} | ${Math.round(x.peakRssMB)} MB | ${x.runs.map((y) => (y.reconciledMs === null ? "—" : (y.reconciledMs / 1000).toFixed(2))).join(", ")} |`;
  const ctlHeader = [
    "| runtime | workers | time until every target generation reconciled | reconciles/s | reconciles | missing | peak RSS | each run (s) |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  const lines = [
    `# crdgen runtime benchmark — ${r.date}`,
    "",
    `${r.objects.toLocaleString("en-US")} MySQLCluster objects in one namespace of a local kube-apiserver ${r.env.apiServer}; node ${r.env.node}, Go side controller-runtime ${r.env.controllerRuntime} (client-go ${r.env.clientGo}, ${r.env.go}); ${r.env.cpus} CPUs (${r.env.cpuModel}), shared with other work. ` +
      `Created in ${fmtMs(r.createMs)} at concurrency ${r.concurrency}. Every measurement runs in a fresh process (node --expose-gc, or the Go binary), interleaved with the others in an order that rotates each round; medians shown.`,
    "",
    "## Informer: time to sync and heap per cached object",
    "",
    `${r.runs} runs each; load average (1, 5, 15 min) ${fmtLoad(r.load.informersStart)} at the start, ${fmtLoad(r.load.informersEnd)} at the end.`,
    "",
    "| runtime | cached | time to sync | heap / object | peak RSS | RSS before the informer | each run's time to sync (s) |",
    "|---|---:|---:|---:|---:|---:|---|",
    ...[inf.crdgen, inf.crdgenManagedFields, inf.crdgenWatchList, inf.clientNode].map(informerRow),
    ...[inf.goTypedStripped, inf.goTyped, inf.goUnstructuredStripped, inf.goUnstructured].map(informerRow),
    ratioRow(
      "ratio crdgen / controller-runtime typed (both strip managedFields)",
      inf.crdgen,
      inf.goTypedStripped,
      true,
    ),
    ratioRow(
      "ratio crdgen / controller-runtime typed (both keep managedFields)",
      inf.crdgenManagedFields,
      inf.goTyped,
      true,
    ),
    ratioRow("ratio crdgen / controller-runtime unstructured (both strip)", inf.crdgen, inf.goUnstructuredStripped),
    ratioRow("ratio crdgen / client-node (crdgen strips, client-node keeps)", inf.crdgen, inf.clientNode),
    ratioRow("ratio crdgen (managedFields kept) / client-node", inf.crdgenManagedFields, inf.clientNode),
    ratioRow("ratio crdgen (streaming list) / client-node", inf.crdgenWatchList, inf.clientNode),
    `| ${inf.floor.runtime} | | ${fmtMs(inf.floor.syncMs)} | | | | ${inf.floor.runs.map((y) => (y.syncMs / 1000).toFixed(2)).join(", ")} |`,
    "",
    "Time to sync: from creating the informer (controller-runtime: `cache.New`, as a manager builds it) until it reports synced and its add handler has seen every object. " +
      "Heap / object: heap after sync minus heap before creating the informer, both after a full GC, divided by the cached count (node: `heapUsed` after `global.gc()`; Go: `runtime.ReadMemStats` HeapAlloc after `runtime.GC()`). " +
      "Peak RSS: the process's maxRSS at that point (node itself is about 45 MB). crdgen drops `metadata.managedFields` by default (its default transform); controller-runtime strips them with `cache.TransformStripManagedFields()` as the default transform, and keeps them without it; client-node keeps them. " +
      `The floor row is the same gzip LIST over a fresh TLS connection, its ${Math.round(inf.floor.bytes / 1024).toLocaleString("en-US")} kB drained without decoding: what the API server takes on this machine, under every informer's time. ` +
      "The streaming list row gets the initial state from a WATCH with `sendInitialEvents=true` instead of a LIST (`useWatchList`).",
    "",
    "## Controller: every object reconciled once, from start",
    "",
    `${r.controllerRuns} runs each; load average ${fmtLoad(r.load.controllersStart)} at the start of the controller runs.`,
    "",
    ...ctlHeader,
    ...r.controllers.initial.map(ctlRow),
    "",
    "A fresh controller process against the ${N} objects as created (generation 1): time from creating the controller (controller-runtime: `ctrl.NewManager`) until the reconciler has seen every object. ".replace(
      "${N}",
      r.objects.toLocaleString("en-US"),
    ) +
      "The reconcile is a no-op that reads the object (crdgen: the object the hook receives, from the informer's cache; controller-runtime: `client.Get` from the manager's cache, which deep-copies a typed object, and reads unstructured objects from the cache too with `client.Options{Cache: &client.CacheOptions{Unstructured: true}}`) and records its generation. " +
      "Reconciles/s: objects reconciled divided by the time from the first reconcile to the last. controller-runtime runs with its defaults (priority queue on).",
    "",
    "## Controller: the update run",
    "",
    `${r.objects.toLocaleString("en-US")} updates (one merge patch per object, spec.replicas 1 → 2, concurrency ${r.concurrency}) written by the parent process in ${fmtMs(r.updates.writeMs)} while no controller ran; ` +
      `then each runtime started fresh, at 1, 4 and 16 workers: time from start until every object's final generation (${r.updates.generation}) is reconciled. Load average ${fmtLoad(r.load.updatesStart)} at the start of these runs, ${fmtLoad(r.load.updatesEnd)} at the end.`,
    "",
    ...ctlHeader,
    ...r.controllers.updates.map(ctlRow),
    "",
    ...(r.priorityQueue ? [priorityMarkdown(r.priorityQueue)] : []),
    "## Targets",
    "",
    ...r.targets.map((t) => `- ${t.met ? "✅" : "❌"} ${t.name}: ${t.value}`),
    "",
  ];
  return lines.join("\n");
}

/** Patches every object (spec.replicas 1 → 2 or back) and writes the generation each now has to a targets file. */
async function writeUpdates(kube: KubeClient, file: string): Promise<{ writeMs: number; generation: number }> {
  const targets: Record<string, number> = {};
  const started = performance.now();
  await pool(N, CONCURRENCY, async (i) => {
    const current = await retrying(() =>
      kube.request<MySQLCluster>({ method: "GET", path: `${collectionPath}/${name(i)}` }),
    );
    const obj = await retrying(() =>
      kube.request<MySQLCluster>({
        method: "PATCH",
        path: `${collectionPath}/${name(i)}`,
        body: { spec: { replicas: current.spec?.replicas === 2 ? 1 : 2 } },
        contentType: "application/merge-patch+json",
      }),
    );
    targets[`${NAMESPACE}/${name(i)}`] = obj.metadata.generation ?? 0;
  });
  const writeMs = performance.now() - started;
  await writeFile(file, JSON.stringify(targets));
  return { writeMs, generation: Math.max(...Object.values(targets)) };
}

/** The Go module's pinned versions, for the report. */
async function goVersions(): Promise<{ controllerRuntime: string; clientGo: string; go: string }> {
  const { readFile } = await import("node:fs/promises");
  const mod = await readFile(path.join(root, "bench/controller-runtime/go.mod"), "utf8");
  const v = (m: string) => new RegExp(`${m.replace(/[.]/g, "\\.")} (v[^\\s]+)`).exec(mod)?.[1] ?? "?";
  const { spawnSync } = await import("node:child_process");
  const go = spawnSync("go", ["version"], { encoding: "utf8" }).stdout.trim().split(" ")[2] ?? "go ?";
  return { controllerRuntime: v("sigs.k8s.io/controller-runtime"), clientGo: v("k8s.io/client-go"), go };
}

async function parent(): Promise<void> {
  if (process.env["BENCH_SCENARIO"] === "webhooks") return webhooksScenario();
  if (process.env["BENCH_SCENARIO"] === "sharding") return (await import("./sharding.js")).shardingScenario();
  const { startControlPlane } = await import("@crdgen/runtime/envtest");
  const { controllerRuntimeBinary, runControllerRuntime } = await import("./controller-runtime.js");
  const goBinary = controllerRuntimeBinary();
  const plane = await startControlPlane({
    crdFiles: [path.join(root, "samples/mysql/crd.yaml")],
    apiServerArgs: ["--max-requests-inflight=1000", "--max-mutating-requests-inflight=500"],
  });
  const { mkdtemp, rm } = await import("node:fs/promises");
  const work = await mkdtemp(path.join(os.tmpdir(), "crdgen-bench-runtime-"));
  try {
    const kube = plane.kubeClient();
    await kube.request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } },
    });
    console.error(`creating ${N} MySQLClusters (concurrency ${CONCURRENCY}) ...`);
    const createStart = performance.now();
    const initialTargets: Record<string, number> = {};
    await pool(N, CONCURRENCY, async (i) => {
      const obj = await retrying(() =>
        kube.request<MySQLCluster>({
          method: "POST",
          path: collectionPath,
          body: {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: "MySQLCluster",
            metadata: { name: name(i), namespace: NAMESPACE, labels: { app: "mysql", shard: String(i % 16) } },
            spec: { replicas: 1, version: "8.0.36" },
          },
        }),
      );
      initialTargets[`${NAMESPACE}/${name(i)}`] = obj.metadata.generation ?? 0;
    });
    const createMs = performance.now() - createStart;
    console.error(`created in ${fmtMs(createMs)}`);
    const initialTargetsFile = path.join(work, "targets-initial.json");
    await writeFile(initialTargetsFile, JSON.stringify(initialTargets));

    if (process.env["BENCH_SCENARIO"] === "priority-queue") {
      const md = priorityMarkdown(await priorityQueueScenario(plane.kubeconfigPath));
      console.log(md);
      return;
    }
    const kubeconfig = plane.kubeconfigPath;
    const go =
      <T>(args: string[]) =>
      () =>
        runControllerRuntime<T>(goBinary, ["-kubeconfig", kubeconfig, ...args]);
    const goInformer = (variant: string, strip: boolean) =>
      go<InformerResult>(["-mode", "informer", "-variant", variant, `-strip-managed-fields=${String(strip)}`]);
    const crdgenInformer = (mode: ChildMode) => () => child<InformerResult>(mode, kubeconfig);
    // Informer runs are interleaved and repeated (BENCH_RUNS, default 5); the table shows each runtime's median run.
    const RUNS = Number(process.env["BENCH_RUNS"] ?? 5);
    type Variant =
      { key: InformerKey; run: () => Promise<InformerResult> } | { key: "floor"; run: () => Promise<FloorResult> };
    const variants: Variant[] = [
      { key: "crdgen", run: crdgenInformer("informer-crdgen") },
      { key: "goTypedStripped", run: goInformer("typed", true) },
      { key: "clientNode", run: crdgenInformer("informer-client-node") },
      { key: "goTyped", run: goInformer("typed", false) },
      { key: "crdgenManagedFields", run: crdgenInformer("informer-crdgen-raw") },
      { key: "goUnstructuredStripped", run: goInformer("unstructured", true) },
      { key: "crdgenWatchList", run: crdgenInformer("informer-crdgen-watchlist") },
      { key: "goUnstructured", run: goInformer("unstructured", false) },
      { key: "floor", run: () => child<FloorResult>("list-floor", kubeconfig) },
    ];
    const informersStart = os.loadavg();
    const informerRuns = new Map<InformerKey, InformerResult[]>();
    const floorRuns: FloorResult[] = [];
    for (let r = 1; r <= RUNS; r++) {
      // The order rotates each round, so no runtime always follows the same one (the API server's GC after a big list).
      const order = variants.map((_, i) => variants[(i + r - 1) % variants.length]!);
      console.error(`informers, run ${r}/${RUNS}: ${order.map(({ key }) => key).join(", ")} ...`);
      for (const v of order) {
        if (v.key === "floor") floorRuns.push(await v.run());
        else informerRuns.set(v.key, [...(informerRuns.get(v.key) ?? []), await v.run()]);
      }
    }
    const informersEnd = os.loadavg();
    const informerOf = (key: InformerKey) =>
      medianOf(informerRuns.get(key)!, ["syncMs", "heapPerObject", "peakRssMB", "rssBeforeMB"]);
    const informers: RuntimeResults["informers"] = {
      crdgen: informerOf("crdgen"),
      goTypedStripped: informerOf("goTypedStripped"),
      clientNode: informerOf("clientNode"),
      goTyped: informerOf("goTyped"),
      crdgenManagedFields: informerOf("crdgenManagedFields"),
      goUnstructuredStripped: informerOf("goUnstructuredStripped"),
      crdgenWatchList: informerOf("crdgenWatchList"),
      goUnstructured: informerOf("goUnstructured"),
      floor: medianOf(floorRuns, ["syncMs"]),
    };

    // Controllers: each start is a fresh process; nobody writes while one runs.
    const CONTROLLER_RUNS = Number(process.env["BENCH_CONTROLLER_RUNS"] ?? 3);
    type ControllerVariant = [key: string, run: () => Promise<ControllerResult>];
    const crdgenController = (options: ControllerRunOptions) => () =>
      child<ControllerResult>("controller", kubeconfig, options);
    const goController = (variant: string, strip: boolean, workers: number, targetsFile: string) =>
      go<ControllerResult>([
        "-mode",
        "controller",
        "-variant",
        variant,
        `-strip-managed-fields=${String(strip)}`,
        "-workers",
        String(workers),
        "-targets",
        targetsFile,
      ]);
    const controllerVariants = (workers: number, targetsFile: string): ControllerVariant[] => [
      [`crdgen|${workers}`, crdgenController({ workers, keepManagedFields: false, targetsFile })],
      [`goTypedStripped|${workers}`, goController("typed", true, workers, targetsFile)],
      [`crdgenManagedFields|${workers}`, crdgenController({ workers, keepManagedFields: true, targetsFile })],
      [`goTyped|${workers}`, goController("typed", false, workers, targetsFile)],
      [`goUnstructuredStripped|${workers}`, goController("unstructured", true, workers, targetsFile)],
      [`goUnstructured|${workers}`, goController("unstructured", false, workers, targetsFile)],
    ];
    const runControllers = async (label: string, list: ControllerVariant[]) => {
      const out = new Map<string, ControllerResult[]>(list.map(([key]) => [key, []]));
      for (let r = 1; r <= CONTROLLER_RUNS; r++) {
        const order = list.map((_, i) => list[(i + r - 1) % list.length]!);
        console.error(`${label}, run ${r}/${CONTROLLER_RUNS} ...`);
        for (const [key, run] of order) out.get(key)!.push(await run());
      }
      return [...out.values()].map((xs) => ({
        ...medianOf(xs, ["reconciledMs", "reconcilesPerSec", "peakRssMB", "firstReconcileMs"]),
        reconciles: Math.max(...xs.map((x) => x.reconciles)),
        missing: Math.max(...xs.map((x) => x.missing)),
      }));
    };
    const controllersStart = os.loadavg();
    const initial = await runControllers("controllers from start", controllerVariants(WORKERS, initialTargetsFile));
    console.error(`writing ${N} updates while no controller runs ...`);
    const updatedTargetsFile = path.join(work, "targets-updated.json");
    const updates = await writeUpdates(kube, updatedTargetsFile);
    kube.close();
    const updatesStart = os.loadavg();
    const updateRuns: WithRuns<ControllerResult>[] = [];
    for (const workers of [1, 4, 16])
      updateRuns.push(
        ...(await runControllers(`update run, ${workers} workers`, controllerVariants(workers, updatedTargetsFile))),
      );
    const updatesEnd = os.loadavg();
    const load = { informersStart, informersEnd, controllersStart, updatesStart, updatesEnd };
    const priorityQueue = process.env["BENCH_PRIORITY"] === "0" ? null : await priorityQueueScenario(kubeconfig);

    const version = await plane
      .kubeClient()
      .request<{ gitVersion?: string }>({ method: "GET", path: "/version" })
      .catch(() => ({ gitVersion: undefined }));
    const date = new Date().toISOString().slice(0, 10);
    const byRuntime = (xs: ControllerResult[], runtime: string) => {
      const found = xs.find((x) => x.runtime === runtime);
      if (!found) throw new Error(`no controller result of ${runtime}`);
      return found;
    };
    const goTypedName = (strip: boolean) => `controller-runtime (typed${strip ? "" : ", managedFields kept"})`;
    const targets: Target[] = [];
    const sides: [label: string, crdgenName: string, strip: boolean][] = [
      ["managedFields stripped on both sides", "crdgen", true],
      ["managedFields kept on both sides", "crdgen (managedFields kept)", false],
    ];
    for (const [label, crdgenName, strip] of sides) {
      const c = byRuntime(initial, crdgenName);
      const g = byRuntime(initial, goTypedName(strip));
      const ci = strip ? informers.crdgen : informers.crdgenManagedFields;
      const gi = strip ? informers.goTypedStripped : informers.goTyped;
      const t = Number(c.reconciledMs) / Number(g.reconciledMs);
      const rss = c.peakRssMB / g.peakRssMB;
      const heap = ci.heapPerObject / gi.heapPerObject;
      targets.push(
        {
          name: `time to reconcile all ${N.toLocaleString("en-US")} from start ≤ 1× controller-runtime typed (${label})`,
          met: t <= 1,
          value: `${t.toFixed(2)}× (${fmtMs(c.reconciledMs)} vs ${fmtMs(g.reconciledMs)})`,
        },
        {
          name: `controller peak RSS ≤ 1.2× controller-runtime typed (${label})`,
          met: rss <= 1.2,
          value: `${rss.toFixed(2)}× (${Math.round(c.peakRssMB)} MB vs ${Math.round(g.peakRssMB)} MB)`,
        },
        {
          name: `heap per object ≤ 0.5× controller-runtime typed (${label})`,
          met: heap <= 0.5,
          value: `${heap.toFixed(2)}× (${fmtB(ci.heapPerObject)} vs ${fmtB(gi.heapPerObject)})`,
        },
      );
    }
    const missing = [...initial, ...updateRuns].filter((x) => x.missing > 0);
    targets.push({
      name: "every update reconciled, 0 missing, on every runtime and worker count",
      met: missing.length === 0,
      value:
        missing.length === 0
          ? "0 missing"
          : missing.map((x) => `${x.runtime} ${x.workers} workers: ${x.missing} missing`).join("; "),
    });
    const heapRatio = informers.crdgen.heapPerObject / informers.clientNode.heapPerObject;
    const syncRatio = informers.crdgen.syncMs / informers.clientNode.syncMs;
    targets.push(
      {
        name: "heap per object ≤ 0.5× client-node",
        met: heapRatio <= 0.5,
        value: `${heapRatio.toFixed(2)}× (${fmtB(informers.crdgen.heapPerObject)} vs ${fmtB(informers.clientNode.heapPerObject)})`,
      },
      {
        name: "time to sync ≤ client-node",
        met: syncRatio <= 1,
        value: `${syncRatio.toFixed(2)}× (${fmtMs(informers.crdgen.syncMs)} vs ${fmtMs(informers.clientNode.syncMs)})`,
      },
    );
    const result: RuntimeResults = {
      date,
      objects: N,
      concurrency: CONCURRENCY,
      runs: RUNS,
      controllerRuns: CONTROLLER_RUNS,
      env: {
        node: process.version,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? "",
        apiServer: version.gitVersion ?? "",
        ...(await goVersions()),
      },
      load,
      createMs,
      informers,
      controllers: { initial, updates: updateRuns },
      updates,
      priorityQueue,
      targets,
    };
    const md = markdown(result);
    console.log(md);
    const suffix = process.env["BENCH_RESULT_SUFFIX"] ?? "";
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, `${date}${suffix}.json`), `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(path.join(resultsDir, `${date}${suffix}.md`), md);
    console.error(`wrote bench/results/${date}${suffix}.json and .md`);
  } finally {
    await plane.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/** The measurements that run in a child process, by the name `--child=<mode>` gives them. */
const childModes = (kubeconfigPath: string, options: ControllerRunOptions) => ({
  "informer-crdgen": () => informerCrdgen(kubeconfigPath),
  "informer-crdgen-raw": () => informerCrdgen(kubeconfigPath, { keepManagedFields: true }),
  "informer-crdgen-watchlist": () => informerCrdgen(kubeconfigPath, { useWatchList: true }),
  "informer-client-node": () => informerClientNode(kubeconfigPath),
  "list-floor": () => listFloor(kubeconfigPath),
  controller: () => controllerStartRun(kubeconfigPath, options),
  "live-update": () => liveUpdateRun(kubeconfigPath, false),
  "live-update-priority": () => liveUpdateRun(kubeconfigPath, true),
});
type ChildMode = keyof ReturnType<typeof childModes>;

const mode = process.argv.find((a) => a.startsWith("--child="))?.slice("--child=".length);
if (mode) {
  const kubeconfigPath = process.argv.at(-1)!;
  const options = JSON.parse(process.env["BENCH_CHILD_OPTIONS"] ?? "{}") as ControllerRunOptions;
  const modes = childModes(kubeconfigPath, options);
  if (!Object.hasOwn(modes, mode)) throw new Error(`unknown child mode ${mode}`);
  const result = await modes[mode as ChildMode]();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} else {
  await parent();
}
