// Runtime benchmark: crdgen's informer and controller against @kubernetes/client-node's informer, on one real
// local control plane (etcd + kube-apiserver from @crdgen/runtime/envtest).
//
//   npm run bench:runtime                    (builds first; BENCH_OBJECTS=1000 for a quick run)
//
// The parent process starts the control plane and creates BENCH_OBJECTS MySQLClusters (default 10,000, concurrency
// 50). Each measurement then runs in a fresh child process (node --expose-gc) so heaps and JIT state don't mix:
//   informer-crdgen       crdgen SharedIndexInformer (generated mySQLClusterInformerFor), default transform
//   informer-crdgen-raw   the same, but keeping managedFields (transform: identity) -- like for like with client-node
//   informer-crdgen-watchlist  the same as informer-crdgen, with the streaming list (useWatchList) instead of LIST
//   informer-client-node  client-node makeInformer over CustomObjectsApi.listNamespacedCustomObject
//   list-floor            the same LIST (gzip) as raw HTTPS, bytes drained and not decoded: the API server's share
//   controller            generated newMySQLClusterController with a no-op counting reconcile; 1 update per object
//   live-update[-priority]  the same controller (1 worker, BENCH_RECONCILE_MS of simulated work per reconcile): one
//                         object patched as soon as the cache has synced; time until that patch is reconciled,
//                         without and with usePriorityQueue. BENCH_SCENARIO=priority-queue runs only these.
//   BENCH_SCENARIO=webhooks  admission round trip through the API server: rounds of 100 concurrent creates (BENCH_RUNS
//                         rounds) into a namespace the runtime's defaulting and validating webhooks select and into
//                         one they don't (interleaved), p50/p99 per create; bench/results/webhooks-<date>.{json,md}.
// Results: a table on stdout, and bench/results/<date>.{json,md}.
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

async function loadKubeConfig(kubeconfigPath) {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return kc;
}

// ---------------------------------------------------------------------------------------------------------------
// Children

async function informerCrdgen(kubeconfigPath, { keepManagedFields = false, useWatchList = false } = {}) {
  const { HttpKubeClient } = await import("@crdgen/runtime/client");
  const { SharedInformerFactory } = await import("@crdgen/runtime/cache");
  const { mySQLClusterInformerFor } = await import(
    path.join(root, "dist/samples/mysql/generated/example.com/v1/index.js")
  );
  const kube = HttpKubeClient.fromKubeConfig(await loadKubeConfig(kubeconfigPath));
  const factory = new SharedInformerFactory();
  const controller = new AbortController();
  const before = await settleHeap();

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

async function controllerRun(kubeconfigPath) {
  const { HttpKubeClient } = await import("@crdgen/runtime/client");
  const { newMySQLClusterController } = await import(
    path.join(root, "dist/samples/mysql/generated/example.com/v1/index.js")
  );
  const kube = HttpKubeClient.fromKubeConfig(await loadKubeConfig(kubeconfigPath));
  const writer = HttpKubeClient.fromKubeConfig(await loadKubeConfig(kubeconfigPath));
  const seen = new Map(); // key -> newest generation reconciled
  const target = new Map(); // key -> generation the update produced
  let reconciles = 0;
  let behind = -1; // keys whose final generation is not reconciled yet; -1 until the updates are done
  let doneAt = 0;
  const hooks = {
    async reconcile(ctx, obj) {
      reconciles++;
      const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
      const gen = obj.metadata.generation ?? 0;
      const prev = seen.get(key) ?? 0;
      if (gen > prev) {
        seen.set(key, gen);
        const want = target.get(key);
        if (behind > 0 && want !== undefined && prev < want && gen >= want && --behind === 0)
          doneAt = performance.now();
      }
    },
  };
  const controller = newMySQLClusterController(kube, hooks, { namespace: NAMESPACE, workers: WORKERS });
  const abort = new AbortController();
  const running = controller.run(abort.signal);

  const started = performance.now();
  await until(() => seen.size >= N && controller.queue.len() === 0, 300_000, "initial reconciles");
  const initialMs = performance.now() - started;
  const initialReconciles = reconciles;
  await new Promise((r) => setTimeout(r, 500));
  const reconcilesBefore = reconciles;

  const updStart = performance.now();
  await pool(N, CONCURRENCY, async (i) => {
    const obj = await retrying(() =>
      writer.request({
        method: "PATCH",
        path: `${collectionPath}/${name(i)}`,
        body: { spec: { replicas: 2 } },
        contentType: "application/merge-patch+json",
      }),
    );
    target.set(`${NAMESPACE}/${name(i)}`, obj.metadata.generation);
  });
  const updatesMs = performance.now() - updStart;
  behind = 0;
  for (const [key, want] of target) if ((seen.get(key) ?? 0) < want) behind++;
  if (behind === 0) doneAt = performance.now();
  await until(() => behind === 0, 300_000, "reconciles of every final generation");
  const reconciledMs = doneAt - updStart;
  await new Promise((r) => setTimeout(r, 1000)); // count stragglers, if any
  const updateReconciles = reconciles - reconcilesBefore;
  let missing = 0;
  for (const [key, want] of target) if ((seen.get(key) ?? 0) < want) missing++;
  abort.abort();
  await running;
  kube.close();
  writer.close();
  return {
    runtime: "crdgen controller",
    workers: WORKERS,
    initialMs,
    initialReconciles,
    updates: target.size,
    updatesMs,
    reconciledMs,
    updateReconciles,
    missing,
  };
}

/**
 * Time from a patch made right after the cache syncs until its reconcile, while the initial list's N keys are queued:
 * with usePriorityQueue the live change goes ahead of them, without it waits behind them (1 worker, each reconcile
 * BENCH_RECONCILE_MS of simulated work, default 1 ms).
 */
async function liveUpdateRun(kubeconfigPath, usePriorityQueue) {
  const { HttpKubeClient } = await import("@crdgen/runtime/client");
  const { newMySQLClusterController } = await import(
    path.join(root, "dist/samples/mysql/generated/example.com/v1/index.js")
  );
  const workMs = Number(process.env["BENCH_RECONCILE_MS"] ?? 1);
  const kube = HttpKubeClient.fromKubeConfig(await loadKubeConfig(kubeconfigPath));
  const writer = HttpKubeClient.fromKubeConfig(await loadKubeConfig(kubeconfigPath));
  const target = `${NAMESPACE}/${name(N - 1)}`; // last in the list: without priorities, last to be reconciled
  let wantGeneration = Infinity;
  let patchedAt;
  let reconciledAt = 0;
  let reconcilesBefore = -1;
  let reconciles = 0;
  const hooks = {
    async reconcile(ctx, obj) {
      reconciles++;
      if (reconciledAt === 0 && ctx.key === target && (obj.metadata.generation ?? 0) >= wantGeneration) {
        reconciledAt = performance.now();
        reconcilesBefore = reconciles - 1;
      }
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
  wantGeneration = patched.metadata.generation;
  await until(() => reconciledAt > 0, 600_000, "the patched object reconciled");
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

// ---------------------------------------------------------------------------------------------------------------
// Parent

function child(mode, kubeconfigPath) {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      ["--expose-gc", fileURLToPath(import.meta.url), `--child=${mode}`, kubeconfigPath],
      {
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, CRDGEN_LOG_LEVEL: process.env["CRDGEN_LOG_LEVEL"] ?? "warn" },
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

const fmtMs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const fmtB = (b) => `${Math.round(b).toLocaleString("en-US")} B`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

function markdown(r) {
  const [c, raw, wl, k] = [
    r.informers.crdgen,
    r.informers.crdgenManagedFields,
    r.informers.crdgenWatchList,
    r.informers.clientNode,
  ];
  const ctl = r.controller;
  const lines = [
    `# crdgen runtime benchmark — ${r.date}`,
    "",
    `${r.objects.toLocaleString("en-US")} MySQLCluster objects in one namespace of a local kube-apiserver ${r.env.apiServer}; node ${r.env.node}, ${r.env.cpus} CPUs (${r.env.cpuModel}). ` +
      `Created in ${fmtMs(r.createMs)} at concurrency ${r.concurrency}. Each informer ran ${r.runs}× (interleaved, in an order that rotates each round), each time in a fresh \`node --expose-gc\` process; medians shown.`,
    "",
    "## Informer: time to sync and heap per cached object",
    "",
    "| runtime | cached | time to sync | heap / object | peak RSS | each run's time to sync (s) |",
    "|---|---:|---:|---:|---:|---|",
    ...[c, raw, wl, k].map(
      (x) =>
        `| ${x.runtime} | ${x.cached.toLocaleString("en-US")} | ${fmtMs(x.syncMs)} | ${fmtB(x.heapPerObject)} | ${Math.round(x.peakRssMB)} MB | ${x.runs.map((y) => (y.syncMs / 1000).toFixed(2)).join(", ")} |`,
    ),
    `| **ratio crdgen / client-node** | | **${ratio(c.syncMs, k.syncMs)}** | **${ratio(c.heapPerObject, k.heapPerObject)}** | ${ratio(c.peakRssMB, k.peakRssMB)} | |`,
    `| ratio crdgen (managedFields kept) / client-node | | ${ratio(raw.syncMs, k.syncMs)} | ${ratio(raw.heapPerObject, k.heapPerObject)} | ${ratio(raw.peakRssMB, k.peakRssMB)} | |`,
    `| ratio crdgen (streaming list) / client-node | | ${ratio(wl.syncMs, k.syncMs)} | ${ratio(wl.heapPerObject, k.heapPerObject)} | ${ratio(wl.peakRssMB, k.peakRssMB)} | |`,
    `| ${r.informers.floor.runtime} | | ${fmtMs(r.informers.floor.syncMs)} | | | ${r.informers.floor.runs.map((y) => (y.syncMs / 1000).toFixed(2)).join(", ")} |`,
    "",
    "Time to sync: from creating the informer until it reports synced (crdgen: `waitForCacheSync`; client-node: `start()` resolved, list applied) and its add handler has seen every object. " +
      "Heap / object: `heapUsed` after sync minus `heapUsed` before creating the informer, both after `global.gc()`, divided by the cached count. Peak RSS: the child process's maxRSS at that point (node itself is about 45 MB). " +
      "crdgen drops `metadata.managedFields` by default (its default transform); client-node keeps them, hence the like-for-like row. " +
      `The floor row is the same gzip LIST over a fresh TLS connection, its ${Math.round(r.informers.floor.bytes / 1024).toLocaleString("en-US")} kB drained without decoding: what the API server takes on this machine, under every informer's time ` +
      `(medians above it: crdgen ${fmtMs(c.syncMs - r.informers.floor.syncMs)}, client-node ${fmtMs(k.syncMs - r.informers.floor.syncMs)}). ` +
      "The streaming list row gets the initial state from a WATCH with `sendInitialEvents=true` instead of a LIST (`useWatchList`).",
    "",
    "## Controller: every update reconciled",
    "",
    "| runtime | workers | updates | time to write updates | time until every final generation reconciled | reconciles for the updates | keys missing final generation |",
    "|---|---:|---:|---:|---:|---:|---:|",
    `| ${ctl.runtime} | ${ctl.workers} | ${ctl.updates.toLocaleString("en-US")} | ${fmtMs(ctl.updatesMs)} | ${fmtMs(ctl.reconciledMs)} | ${ctl.updateReconciles.toLocaleString("en-US")} | ${ctl.missing} |`,
    "",
    `Initial sync and reconcile of all ${r.objects.toLocaleString("en-US")} objects took ${fmtMs(ctl.initialMs)} (${ctl.initialReconciles.toLocaleString("en-US")} reconciles). ` +
      `Then one merge patch per object (spec.replicas 1 → 2, concurrency ${r.concurrency}) from the same process; time runs from the first patch until the reconciler has seen each object's generation from its patch.`,
    "",
    priorityMarkdown(r.priorityQueue),
    "## Targets",
    "",
    ...r.targets.map((t) => `- ${t.met ? "✅" : "❌"} ${t.name}: ${t.value}`),
    "",
  ];
  return lines.join("\n");
}

async function parent() {
  if (process.env["BENCH_SCENARIO"] === "webhooks") return webhooksScenario();
  const { startControlPlane } = await import("@crdgen/runtime/envtest");
  const plane = await startControlPlane({
    crdFiles: [path.join(root, "samples/mysql/crd.yaml")],
    apiServerArgs: ["--max-requests-inflight=1000", "--max-mutating-requests-inflight=500"],
  });
  try {
    const kube = plane.kubeClient();
    await kube.request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } },
    });
    console.error(`creating ${N} MySQLClusters (concurrency ${CONCURRENCY}) ...`);
    const createStart = performance.now();
    await pool(N, CONCURRENCY, (i) =>
      retrying(() =>
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
      ),
    );
    const createMs = performance.now() - createStart;
    kube.close();
    console.error(`created in ${fmtMs(createMs)}`);

    if (process.env["BENCH_SCENARIO"] === "priority-queue") {
      const md = priorityMarkdown(await priorityQueueScenario(plane.kubeconfigPath));
      console.log(md);
      return;
    }
    // Informer runs are interleaved and repeated (BENCH_RUNS, default 5); the table shows each runtime's median run.
    const RUNS = Number(process.env["BENCH_RUNS"] ?? 5);
    const variants = [
      ["crdgen", "informer-crdgen"],
      ["clientNode", "informer-client-node"],
      ["crdgenManagedFields", "informer-crdgen-raw"],
      ["crdgenWatchList", "informer-crdgen-watchlist"],
      ["floor", "list-floor"],
    ];
    const runs = Object.fromEntries(variants.map(([key]) => [key, []]));
    for (let r = 1; r <= RUNS; r++) {
      // The order rotates each round, so no runtime always follows the same one (the API server's GC after a big list).
      const order = variants.map((_, i) => variants[(i + r - 1) % variants.length]);
      console.error(`informers, run ${r}/${RUNS}: ${order.map(([, mode]) => mode).join(", ")} ...`);
      for (const [key, mode] of order) runs[key].push(await child(mode, plane.kubeconfigPath));
    }
    const median = (xs, f) => [...xs].sort((a, b) => f(a) - f(b))[Math.floor(xs.length / 2)];
    const informers = {};
    for (const [k, xs] of Object.entries(runs)) {
      informers[k] = {
        ...xs[0],
        syncMs: median(xs, (x) => x.syncMs).syncMs,
        heapPerObject: median(xs, (x) => x.heapPerObject).heapPerObject,
        peakRssMB: median(xs, (x) => x.peakRssMB).peakRssMB,
        runs: xs,
      };
    }
    console.error("controller: crdgen ...");
    const controller = await child("controller", plane.kubeconfigPath);
    const priorityQueue = await priorityQueueScenario(plane.kubeconfigPath);

    const c = informers.crdgen;
    const k = informers.clientNode;
    const heapRatio = c.heapPerObject / k.heapPerObject;
    const syncRatio = c.syncMs / k.syncMs;
    const version = await plane
      .kubeClient()
      .request({ method: "GET", path: "/version" })
      .catch(() => ({}));
    const date = new Date().toISOString().slice(0, 10);
    const result = {
      date,
      objects: N,
      concurrency: CONCURRENCY,
      runs: RUNS,
      env: {
        node: process.version,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? "",
        apiServer: version.gitVersion ?? "",
      },
      createMs,
      informers,
      ratios: { heapPerObjectCrdgenOverClientNode: heapRatio, syncTimeCrdgenOverClientNode: syncRatio },
      controller,
      priorityQueue,
      targets: [
        {
          name: "heap per object ≤ 0.5× client-node",
          met: heapRatio <= 0.5,
          value: `${heapRatio.toFixed(2)}× (${fmtB(c.heapPerObject)} vs ${fmtB(k.heapPerObject)})`,
        },
        {
          name: "time to sync ≤ client-node",
          met: syncRatio <= 1,
          value: `${syncRatio.toFixed(2)}× (${fmtMs(c.syncMs)} vs ${fmtMs(k.syncMs)})`,
        },
        {
          name: "every update reconciled (reconciles ≤ updates)",
          met: controller.missing === 0 && controller.updateReconciles <= controller.updates,
          value: `${controller.missing} missing, ${controller.updateReconciles} reconciles for ${controller.updates} updates`,
        },
      ],
    };
    const md = markdown(result);
    console.log(md);
    const outDir = path.join(here, "results");
    await mkdir(outDir, { recursive: true });
    await writeFile(path.join(outDir, `${date}.json`), `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(path.join(outDir, `${date}.md`), md);
    console.error(`wrote bench/results/${date}.json and .md`);
  } finally {
    await plane.stop();
  }
}

const mode = process.argv.find((a) => a.startsWith("--child="))?.slice("--child=".length);
if (mode) {
  const kubeconfigPath = process.argv[process.argv.length - 1];
  const run = {
    "informer-crdgen": () => informerCrdgen(kubeconfigPath),
    "informer-crdgen-raw": () => informerCrdgen(kubeconfigPath, { keepManagedFields: true }),
    "informer-crdgen-watchlist": () => informerCrdgen(kubeconfigPath, { useWatchList: true }),
    "informer-client-node": () => informerClientNode(kubeconfigPath),
    "list-floor": () => listFloor(kubeconfigPath),
    controller: () => controllerRun(kubeconfigPath),
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
