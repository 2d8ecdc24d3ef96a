// Runtime benchmark: crdgen's informer and controller against controller-runtime (Go, bench/controller-runtime/,
// built by bench/controller-runtime.mjs into a cache outside the repo) and @kubernetes/client-node's informer, on one
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
// Results: a table on stdout, and bench/results/<date><BENCH_RESULT_SUFFIX>.{json,md}.
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setImmediate as tick } from "node:timers/promises";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const GROUP = "example.com";
const VERSION = "v1";
const PLURAL = "mysqlclusters";
const NAMESPACE = "bench";
const N = Number(process.env["BENCH_OBJECTS"] ?? 10_000);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 50);
const WORKERS = Number(process.env["BENCH_WORKERS"] ?? 4);
const collectionPath = `/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/${PLURAL}`;
const name = (i) => `mysql-${String(i).padStart(5, "0")}`;

/** Runs fn(i) for i in [0, n) with at most `limit` in flight. */
async function pool(n, limit, fn) {
  let next = 0;
  const run = async () => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, run));
}

async function retrying(fn, attempts = 5) {
  for (let a = 1; ; a++) {
    try {
      return await fn();
    } catch (e) {
      if (a >= attempts) throw e;
      await new Promise((r) => setTimeout(r, 100 * a));
    }
  }
}

async function settleHeap() {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await tick();
  }
  return process.memoryUsage().heapUsed;
}

/** The process's peak resident set so far, in MB (includes the transient copies a LIST response needs). */
function peakRssMB() {
  return process.resourceUsage().maxRSS / 1024;
}

async function until(cond, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

// client-node's KubeConfig, for the client-node informer and the floor; crdgen's children load the kubeconfig as an
// operator does (loadKubeClient), without client-node.
async function loadKubeConfig(kubeconfigPath) {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return kc;
}

// ---------------------------------------------------------------------------------------------------------------
// Children

async function informerCrdgen(kubeconfigPath, { keepManagedFields = false, useWatchList = false } = {}) {
  const { loadKubeClient } = await import("@crdgen/runtime/client");
  const { SharedInformerFactory } = await import("@crdgen/runtime/cache");
  const { mySQLClusterInformerFor } = await import(
    path.join(root, "dist/samples/mysql/generated/example.com/v1/index.js")
  );
  const kube = loadKubeClient({ kubeconfig: kubeconfigPath });
  const factory = new SharedInformerFactory();
  const controller = new AbortController();
  const before = await settleHeap();
  const rssBeforeMB = process.memoryUsage().rss / 1024 / 1024;

  const started = performance.now();
  const { informer } = mySQLClusterInformerFor(factory, kube, {
    namespace: NAMESPACE,
    ...(keepManagedFields ? { transform: (o) => o } : {}),
    reflector: { useWatchList },
  });
  let adds = 0;
  informer.addEventHandler({ addFunc: () => void adds++ });
  factory.start(controller.signal);
  await informer.waitForCacheSync(controller.signal);
  const listedMs = performance.now() - started;
  await until(() => adds >= N, 120_000, "initial add events");
  const syncMs = performance.now() - started;

  const after = await settleHeap();
  const cached = informer.getIndexer().list().length;
  controller.abort();
  kube.close?.();
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

async function informerClientNode(kubeconfigPath) {
  const k8s = await import("@kubernetes/client-node");
  const kc = await loadKubeConfig(kubeconfigPath);
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const before = await settleHeap();

  const started = performance.now();
  let listResolved = false;
  const listFn = async () => {
    const list = await api.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NAMESPACE,
      plural: PLURAL,
    });
    listResolved = true;
    return list;
  };
  const informer = k8s.makeInformer(kc, collectionPath, listFn);
  let adds = 0;
  let connected = false;
  informer.on("add", () => void adds++);
  informer.on("connect", () => void (connected = true));
  let stopping = false;
  informer.on("error", (e) => void (stopping || console.error("client-node informer error", e)));
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

/** The floor under every informer's time to sync: the API server producing and sending the LIST, nothing decoded. */
async function listFloor(kubeconfigPath) {
  const https = await import("node:https");
  const kc = await loadKubeConfig(kubeconfigPath);
  const tls = {};
  await kc.applyToHTTPSOptions(tls);
  const server = new URL(kc.getCurrentCluster().server);
  const started = performance.now();
  const bytes = await new Promise((resolve, reject) => {
    const query = "resourceVersion=0&limit=500";
    const headers = { ...tls.headers, Accept: "application/json", "Accept-Encoding": "gzip" };
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
          res.on("data", (d) => void (n += d.length));
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
async function controllerStartRun(kubeconfigPath, { workers, keepManagedFields, targetsFile }) {
  const { readFile } = await import("node:fs/promises");
  const { loadKubeClient } = await import("@crdgen/runtime/client");
  const { SharedInformerFactory } = await import("@crdgen/runtime/cache");
  const { newMySQLClusterController, mySQLClusterInformerFor } = await import(
    path.join(root, "dist/samples/mysql/generated/example.com/v1/index.js")
  );
  const targets = new Map(Object.entries(JSON.parse(await readFile(targetsFile, "utf8"))));
  const kube = loadKubeClient({ kubeconfig: kubeconfigPath });
  const seen = new Map(); // key -> newest generation reconciled
  let behind = targets.size;
  let reconciles = 0;
  let firstAt = 0;
  let doneAt = 0;
  const hooks = {
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
  if (keepManagedFields) mySQLClusterInformerFor(informerFactory, kube, { namespace: NAMESPACE, transform: (o) => o });
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
async function liveUpdateRun(kubeconfigPath, usePriorityQueue) {
  const { loadKubeClient } = await import("@crdgen/runtime/client");
  const { newMySQLClusterController } = await import(
    path.join(root, "dist/samples/mysql/generated/example.com/v1/index.js")
  );
  const workMs = Number(process.env["BENCH_RECONCILE_MS"] ?? 1);
  const kube = loadKubeClient({ kubeconfig: kubeconfigPath });
  const writer = loadKubeClient({ kubeconfig: kubeconfigPath });
  const target = `${NAMESPACE}/${name(N - 1)}`; // last in the list: without priorities, last to be reconciled
  let patchedAt;
  let reconciles = 0;
  // Every reconcile of the target, kept: with a priority queue the live change can be reconciled before this process
  // has read the PATCH's response (which tells the generation to wait for); a check made only inside reconcile missed
  // it then and waited for a reconcile that never came.
  const targetReconciles = [];
  const hooks = {
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
  const current = await writer.request({ method: "GET", path: `${collectionPath}/${name(N - 1)}` });
  patchedAt = performance.now();
  const patched = await writer.request({
    method: "PATCH",
    path: `${collectionPath}/${name(N - 1)}`,
    body: { spec: { replicas: current.spec.replicas === 5 ? 6 : 5 } },
    contentType: "application/merge-patch+json",
  });
  const wantGeneration = patched.metadata.generation;
  const reconciledLive = () => targetReconciles.find((r) => r.generation >= wantGeneration);
  await until(() => reconciledLive() !== undefined, 600_000, "the patched object reconciled");
  const { at: reconciledAt, before: reconcilesBefore } = reconciledLive();
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

async function priorityQueueScenario(kubeconfigPath) {
  const runs = Number(process.env["BENCH_RUNS"] ?? 3);
  const out = { plain: [], priority: [] };
  for (let r = 1; r <= runs; r++) {
    console.error(`live update, run ${r}/${runs} ...`);
    out.plain.push(await child("live-update", kubeconfigPath));
    out.priority.push(await child("live-update-priority", kubeconfigPath));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Parent

function child(mode, kubeconfigPath, options = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      ["--expose-gc", fileURLToPath(import.meta.url), `--child=${mode}`, kubeconfigPath],
      {
        stdio: ["ignore", "pipe", "inherit"],
        env: {
          ...process.env,
          CRDGEN_LOG_LEVEL: process.env["CRDGEN_LOG_LEVEL"] ?? "warn",
          BENCH_CHILD_OPTIONS: JSON.stringify(options),
        },
      },
    );
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.on("error", reject);
    p.on("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      if (code !== 0) return reject(new Error(`${mode} exited ${code}: ${out}`));
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`${mode}: no result line in ${JSON.stringify(out)}`));
      }
    });
  });
}

const fmtMs = (ms) => (ms === null || ms === undefined ? "—" : `${(ms / 1000).toFixed(2)} s`);
const fmtB = (b) => `${Math.round(b).toLocaleString("en-US")} B`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
const fmtLoad = (l) => l.map((x) => x.toFixed(1)).join(" ");
const median = (xs, f) => [...xs].sort((a, b) => (f(a) ?? Infinity) - (f(b) ?? Infinity))[Math.floor(xs.length / 2)];

function priorityMarkdown(p) {
  const median = (xs) => [...xs].sort((a, b) => a.liveUpdateMs - b.liveUpdateMs)[Math.floor(xs.length / 2)];
  const row = (xs) => {
    const m = median(xs);
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
    `One worker, ${p.plain[0].workMs} ms of simulated work per reconcile. The last object of the list is patched as soon as the cache has synced, while the initial list's keys are queued; ` +
      "time runs from sending the patch until the reconciler sees the patched generation.",
    "",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------------------------
// Webhooks: admission round trip with and without the runtime's webhooks

const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

async function webhooksScenario() {
  const { startControlPlane, startWebhookEnvironment } = await import("@crdgen/runtime/envtest");
  const { admissionWebhooksFor, field, Invalid } = await import("@crdgen/runtime/webhook");
  const { newLogger } = await import("@crdgen/runtime");
  const rounds = Number(process.env["BENCH_RUNS"] ?? 5);
  const perRound = 100;
  const plane = await startControlPlane({
    crdFiles: [path.join(root, "test/fixtures/webhook/widgets.yaml")],
    apiServerArgs: ["--max-requests-inflight=1000", "--max-mutating-requests-inflight=500"],
  });
  let env;
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
      webhooks: admissionWebhooksFor(widgets, {
        default(obj) {
          obj.spec.replicas ??= 1;
          obj.spec.engine ??= "mysql";
        },
        validateCreate(obj) {
          if (obj.spec.replicas > 9)
            throw new Invalid({ group: widgets.group, kind: "Widget" }, obj.metadata.name, [
              field.invalid("spec.replicas", obj.spec.replicas, "must be at most 9"),
            ]);
        },
      }),
    });
    const at = (ns) => `/apis/webhook.example.com/v1/namespaces/${ns}/widgets`;
    const create = (ns, name, query) =>
      kube.request({
        method: "POST",
        path: at(ns),
        ...(query ? { query } : {}),
        body: { apiVersion: "webhook.example.com/v1", kind: "Widget", metadata: { name }, spec: { version: "8.0" } },
      });
    // The API server loads webhook configurations through an informer: wait until a dry-run create is defaulted.
    for (const deadline = Date.now() + 30_000; ;) {
      const probe = await create(namespaces.with, "probe", { dryRun: "All" }).catch(() => ({ spec: {} }));
      if (probe.spec.replicas === 1) break;
      if (Date.now() > deadline) throw new Error("timed out waiting for the webhooks to be called");
      await new Promise((r) => setTimeout(r, 100));
    }
    const latencies = { without: [], with: [] };
    let serial = 0;
    for (let r = 1; r <= rounds; r++) {
      for (const key of r % 2 ? ["without", "with"] : ["with", "without"]) {
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
    const summary = (xs) => ({ p50Ms: percentile(xs, 50), p99Ms: percentile(xs, 99), creates: xs.length });
    const date = new Date().toISOString().slice(0, 10);
    const result = {
      date,
      rounds,
      concurrency: perRound,
      env: { node: process.version, cpus: os.cpus().length, loadavg: os.loadavg().map((l) => Number(l.toFixed(2))) },
      without: summary(latencies.without),
      with: summary(latencies.with),
    };
    const ms = (x) => `${x.toFixed(1)} ms`;
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
    const outDir = path.join(here, "results");
    await mkdir(outDir, { recursive: true });
    await writeFile(path.join(outDir, `webhooks-${date}.json`), `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(path.join(outDir, `webhooks-${date}.md`), md);
    console.error(`wrote bench/results/webhooks-${date}.json and .md`);
    kube.close();
  } finally {
    await env?.stop().catch(() => undefined);
    await plane.stop();
  }
}

/** A runtime's median run: each figure is the median of its runs (of the runs that finished, for the times). */
function medianOf(xs, fields) {
  const out = { ...xs[0], runs: xs };
  for (const f of fields) out[f] = median(xs, (x) => x[f])[f];
  return out;
}

function markdown(r) {
  const inf = r.informers;
  const informerRow = (x) =>
    `| ${x.runtime} | ${x.cached.toLocaleString("en-US")} | ${fmtMs(x.syncMs)} | ${fmtB(x.heapPerObject)} | ${Math.round(x.peakRssMB)} MB | ${x.rssBeforeMB ? `${Math.round(x.rssBeforeMB)} MB` : ""} | ${x.runs.map((y) => (y.syncMs / 1000).toFixed(2)).join(", ")} |`;
  const ratioRow = (label, a, b, bold = false) => {
    const w = (t) => (bold ? `**${t}**` : t);
    return `| ${w(label)} | | ${w(ratio(a.syncMs, b.syncMs))} | ${w(ratio(a.heapPerObject, b.heapPerObject))} | ${ratio(a.peakRssMB, b.peakRssMB)} | | |`;
  };
  const ctlRow = (x) =>
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
async function writeUpdates(kube, file) {
  const targets = {};
  const started = performance.now();
  await pool(N, CONCURRENCY, async (i) => {
    const current = await retrying(() => kube.request({ method: "GET", path: `${collectionPath}/${name(i)}` }));
    const obj = await retrying(() =>
      kube.request({
        method: "PATCH",
        path: `${collectionPath}/${name(i)}`,
        body: { spec: { replicas: current.spec.replicas === 2 ? 1 : 2 } },
        contentType: "application/merge-patch+json",
      }),
    );
    targets[`${NAMESPACE}/${name(i)}`] = obj.metadata.generation;
  });
  const writeMs = performance.now() - started;
  await writeFile(file, JSON.stringify(targets));
  return { writeMs, generation: Math.max(...Object.values(targets)) };
}

/** The Go module's pinned versions, for the report. */
async function goVersions() {
  const { readFile } = await import("node:fs/promises");
  const mod = await readFile(path.join(here, "controller-runtime/go.mod"), "utf8");
  const v = (m) => new RegExp(`${m.replace(/[.]/g, "\\.")} (v[^\\s]+)`).exec(mod)?.[1] ?? "?";
  const { spawnSync } = await import("node:child_process");
  const go = spawnSync("go", ["version"], { encoding: "utf8" }).stdout.trim().split(" ")[2] ?? "go ?";
  return { controllerRuntime: v("sigs.k8s.io/controller-runtime"), clientGo: v("k8s.io/client-go"), go };
}

async function parent() {
  if (process.env["BENCH_SCENARIO"] === "webhooks") return webhooksScenario();
  const { startControlPlane } = await import("@crdgen/runtime/envtest");
  const { controllerRuntimeBinary, runControllerRuntime } = await import("./controller-runtime.mjs");
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
    const initialTargets = {};
    await pool(N, CONCURRENCY, async (i) => {
      const obj = await retrying(() =>
        kube.request({
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
      initialTargets[`${NAMESPACE}/${name(i)}`] = obj.metadata.generation;
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
    const go = (args) => () => runControllerRuntime(goBinary, ["-kubeconfig", kubeconfig, ...args]);
    const goInformer = (variant, strip) =>
      go(["-mode", "informer", "-variant", variant, `-strip-managed-fields=${strip}`]);
    // Informer runs are interleaved and repeated (BENCH_RUNS, default 5); the table shows each runtime's median run.
    const RUNS = Number(process.env["BENCH_RUNS"] ?? 5);
    const variants = [
      ["crdgen", () => child("informer-crdgen", kubeconfig)],
      ["goTypedStripped", goInformer("typed", true)],
      ["clientNode", () => child("informer-client-node", kubeconfig)],
      ["goTyped", goInformer("typed", false)],
      ["crdgenManagedFields", () => child("informer-crdgen-raw", kubeconfig)],
      ["goUnstructuredStripped", goInformer("unstructured", true)],
      ["crdgenWatchList", () => child("informer-crdgen-watchlist", kubeconfig)],
      ["goUnstructured", goInformer("unstructured", false)],
      ["floor", () => child("list-floor", kubeconfig)],
    ];
    const load = { informersStart: os.loadavg() };
    const runs = Object.fromEntries(variants.map(([key]) => [key, []]));
    for (let r = 1; r <= RUNS; r++) {
      // The order rotates each round, so no runtime always follows the same one (the API server's GC after a big list).
      const order = variants.map((_, i) => variants[(i + r - 1) % variants.length]);
      console.error(`informers, run ${r}/${RUNS}: ${order.map(([key]) => key).join(", ")} ...`);
      for (const [key, run] of order) runs[key].push(await run());
    }
    load.informersEnd = os.loadavg();
    const informers = {};
    for (const [k, xs] of Object.entries(runs))
      informers[k] = medianOf(xs, ["syncMs", "heapPerObject", "peakRssMB", "rssBeforeMB"]);

    // Controllers: each start is a fresh process; nobody writes while one runs.
    const CONTROLLER_RUNS = Number(process.env["BENCH_CONTROLLER_RUNS"] ?? 3);
    const controllerVariants = (workers, targetsFile) => [
      [`crdgen|${workers}`, () => child("controller", kubeconfig, { workers, keepManagedFields: false, targetsFile })],
      [`goTypedStripped|${workers}`, goController("typed", true, workers, targetsFile)],
      [
        `crdgenManagedFields|${workers}`,
        () => child("controller", kubeconfig, { workers, keepManagedFields: true, targetsFile }),
      ],
      [`goTyped|${workers}`, goController("typed", false, workers, targetsFile)],
      [`goUnstructuredStripped|${workers}`, goController("unstructured", true, workers, targetsFile)],
      [`goUnstructured|${workers}`, goController("unstructured", false, workers, targetsFile)],
    ];
    function goController(variant, strip, workers, targetsFile) {
      return go([
        "-mode",
        "controller",
        "-variant",
        variant,
        `-strip-managed-fields=${strip}`,
        "-workers",
        String(workers),
        "-targets",
        targetsFile,
      ]);
    }
    const runControllers = async (label, list) => {
      const out = Object.fromEntries(list.map(([key]) => [key, []]));
      for (let r = 1; r <= CONTROLLER_RUNS; r++) {
        const order = list.map((_, i) => list[(i + r - 1) % list.length]);
        console.error(`${label}, run ${r}/${CONTROLLER_RUNS} ...`);
        for (const [key, run] of order) out[key].push(await run());
      }
      return Object.values(out).map((xs) => ({
        ...medianOf(xs, ["reconciledMs", "reconcilesPerSec", "peakRssMB", "firstReconcileMs"]),
        reconciles: Math.max(...xs.map((x) => x.reconciles)),
        missing: Math.max(...xs.map((x) => x.missing)),
      }));
    };
    load.controllersStart = os.loadavg();
    const initial = await runControllers("controllers from start", controllerVariants(WORKERS, initialTargetsFile));
    console.error(`writing ${N} updates while no controller runs ...`);
    const updatedTargetsFile = path.join(work, "targets-updated.json");
    const updates = await writeUpdates(kube, updatedTargetsFile);
    kube.close();
    load.updatesStart = os.loadavg();
    const updateRuns = [];
    for (const workers of [1, 4, 16])
      updateRuns.push(
        ...(await runControllers(`update run, ${workers} workers`, controllerVariants(workers, updatedTargetsFile))),
      );
    load.updatesEnd = os.loadavg();
    const priorityQueue = process.env["BENCH_PRIORITY"] === "0" ? null : await priorityQueueScenario(kubeconfig);

    const version = await plane
      .kubeClient()
      .request({ method: "GET", path: "/version" })
      .catch(() => ({}));
    const date = new Date().toISOString().slice(0, 10);
    const byRuntime = (xs, runtime) => xs.find((x) => x.runtime === runtime);
    const goTypedName = (strip) => `controller-runtime (typed${strip ? "" : ", managedFields kept"})`;
    const targets = [];
    for (const [label, crdgenName, strip] of [
      ["managedFields stripped on both sides", "crdgen", true],
      ["managedFields kept on both sides", "crdgen (managedFields kept)", false],
    ]) {
      const c = byRuntime(initial, crdgenName);
      const g = byRuntime(initial, goTypedName(strip));
      const ci = strip ? informers.crdgen : informers.crdgenManagedFields;
      const gi = strip ? informers.goTypedStripped : informers.goTyped;
      const t = c.reconciledMs / g.reconciledMs;
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
    const result = {
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
    const outDir = path.join(here, "results");
    const suffix = process.env["BENCH_RESULT_SUFFIX"] ?? "";
    await mkdir(outDir, { recursive: true });
    await writeFile(path.join(outDir, `${date}${suffix}.json`), `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(path.join(outDir, `${date}${suffix}.md`), md);
    console.error(`wrote bench/results/${date}${suffix}.json and .md`);
  } finally {
    await plane.stop();
    await rm(work, { recursive: true, force: true });
  }
}

const mode = process.argv.find((a) => a.startsWith("--child="))?.slice("--child=".length);
if (mode) {
  const kubeconfigPath = process.argv[process.argv.length - 1];
  const options = JSON.parse(process.env["BENCH_CHILD_OPTIONS"] ?? "{}");
  const run = {
    "informer-crdgen": () => informerCrdgen(kubeconfigPath),
    "informer-crdgen-raw": () => informerCrdgen(kubeconfigPath, { keepManagedFields: true }),
    "informer-crdgen-watchlist": () => informerCrdgen(kubeconfigPath, { useWatchList: true }),
    "informer-client-node": () => informerClientNode(kubeconfigPath),
    "list-floor": () => listFloor(kubeconfigPath),
    controller: () => controllerStartRun(kubeconfigPath, options),
    "live-update": () => liveUpdateRun(kubeconfigPath, false),
    "live-update-priority": () => liveUpdateRun(kubeconfigPath, true),
  }[mode];
  if (!run) throw new Error(`unknown child mode ${mode}`);
  const result = await run();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} else {
  await parent();
}
