// Metrics and probes: workqueue_* and controller_runtime_* series move as client-go and controller-runtime move them,
// and the probe server answers /healthz, /readyz and /metrics.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Controller, TerminalError, type ReconcileResult } from "@crdgen/runtime";
import { FakeClock } from "@crdgen/runtime/testing";
import { Registry, metricsRegistry, workqueueMetricsProvider } from "@crdgen/runtime/metrics";
import { SharedIndexInformer, SharedInformerFactory } from "@crdgen/runtime/cache";
import { cacheSyncedCheck, startProbeServer } from "@crdgen/runtime/manager";
import { newQueue, newRateLimitingQueue } from "@crdgen/runtime/workqueue";
import {
  FakeListerWatcher,
  list,
  obj,
  until,
  type Obj,
  thingsResource as resource,
  quiet,
} from "../support/cache-fakes.js";
import { unreachableKube } from "../support/fake-api-server.js";

const stops: AbortController[] = [];
after(() => stops.forEach((s) => s.abort()));

/** The value of one series (metricName defaults to name; pass e.g. "x_count" for a histogram part); undefined if absent. */
async function value(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
  metricName = name,
): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return undefined;
  const { values } = await metric.get();
  const found = values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? name) === metricName &&
      Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
  );
  return found?.value;
}

test("the unfinished-work gauges refresh every 500 ms of the queue's clock while an item is processing", async () => {
  const registry = new Registry();
  const clock = new FakeClock();
  const queue = newQueue<string>({ name: "slow", clock, metricsProvider: workqueueMetricsProvider(registry) });
  const q = { name: "slow", controller: "slow" };
  queue.add("a");
  await queue.get();
  clock.step(499);
  assert.equal(await value(registry, "workqueue_unfinished_work_seconds", q), 0, "no refresh before 500 ms");
  clock.step(701);
  assert.equal(await value(registry, "workqueue_unfinished_work_seconds", q), 1, "refreshed at 500 and 1000 ms");
  assert.equal(await value(registry, "workqueue_longest_running_processor_seconds", q), 1);
  queue.done("a");
  assert.equal(clock.hasWaiters(), false, "the refresh stops when nothing is processing");
  queue.shutDown();
});

test("workqueue metrics move on add, get, done and retries, under client-go's names and the queue's name label", async () => {
  const registry = new Registry();
  const clock = new FakeClock(1_000);
  const queue = newRateLimitingQueue<string>({
    name: "things",
    clock,
    metricsProvider: workqueueMetricsProvider(registry),
  });
  const q = { name: "things", controller: "things" };
  for (const name of [
    "workqueue_depth",
    "workqueue_adds_total",
    "workqueue_retries_total",
    "workqueue_unfinished_work_seconds",
    "workqueue_longest_running_processor_seconds",
  ]) {
    assert.equal(await value(registry, name, q), 0, `${name} starts at 0`);
  }

  queue.add("a");
  queue.add("a"); // deduplicated: not counted, as client-go
  queue.add("b");
  assert.equal(await value(registry, "workqueue_adds_total", q), 2);
  assert.equal(await value(registry, "workqueue_depth", q), 2);

  clock.step(1_000);
  const a = await queue.get();
  const b = await queue.get();
  assert.deepEqual([a.item, b.item], ["a", "b"]);
  assert.equal(await value(registry, "workqueue_depth", q), 0);
  assert.equal(
    await value(registry, "workqueue_queue_duration_seconds", q, "workqueue_queue_duration_seconds_count"),
    2,
  );
  assert.equal(
    await value(registry, "workqueue_queue_duration_seconds", q, "workqueue_queue_duration_seconds_sum"),
    2,
    "each waited 1 s",
  );

  clock.step(2_000);
  queue.done("a");
  assert.equal(await value(registry, "workqueue_work_duration_seconds", q, "workqueue_work_duration_seconds_count"), 1);
  assert.equal(await value(registry, "workqueue_work_duration_seconds", q, "workqueue_work_duration_seconds_sum"), 2);
  assert.equal(await value(registry, "workqueue_unfinished_work_seconds", q), 2, "b has been processing for 2 s");
  assert.equal(await value(registry, "workqueue_longest_running_processor_seconds", q), 2);
  queue.done("b");
  assert.equal(await value(registry, "workqueue_unfinished_work_seconds", q), 0);
  assert.equal(await value(registry, "workqueue_longest_running_processor_seconds", q), 0);

  queue.addRateLimited("c");
  queue.addAfter("d", 0);
  queue.addAfter("e", 5_000);
  assert.equal(await value(registry, "workqueue_retries_total", q), 3, "every addAfter is a retry, as client-go");
  assert.equal(await value(registry, "workqueue_adds_total", q), 3, "d is added now; c once its backoff passed");
  clock.step(10);
  assert.equal(await value(registry, "workqueue_adds_total", q), 4);
  queue.shutDown();
});

test("a named queue without a provider records into the crdgen registry; an unnamed one records nothing", async () => {
  const name = `default-provider-${process.pid}`;
  const queue = newQueue<string>({ name });
  queue.add("x");
  assert.equal(await value(metricsRegistry, "workqueue_adds_total", { name }), 1);
  const registry = new Registry();
  const unnamed = newQueue<string>({ metricsProvider: workqueueMetricsProvider(registry) });
  unnamed.add("x");
  assert.equal(await value(registry, "workqueue_adds_total", {}), undefined);
});

type Reconcile = ConstructorParameters<typeof Controller<Obj>>[0]["reconcile"];

async function metricsController(registry: Registry, reconcile: Reconcile) {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "1", { ns: "ns" })], "10"));
  const informer = new SharedIndexInformer<Obj>({ listerWatcher: lw });
  const informerFactory = new SharedInformerFactory();
  informerFactory.informerFor("things", () => informer);
  const queue = newRateLimitingQueue<string>({
    name: "things",
    clock: new FakeClock(),
    metricsProvider: workqueueMetricsProvider(registry),
  });
  const stop = new AbortController();
  stops.push(stop);
  const kube = unreachableKube();
  const controller = new Controller<Obj>({
    name: "things",
    resource,
    kube,
    informerFactory,
    informer,
    queue,
    reconcile,
    logger: quiet,
    workers: 3,
    metricsRegistry: registry,
  });
  void informer.run(stop.signal);
  await until(() => informer.hasSynced(), "informer synced");
  return { controller, queue, stop };
}

test("controller_runtime_* metrics: pre-initialised, then counted per result for success, error and requeueAfter", async () => {
  const registry = new Registry();
  const outcomes: Array<() => ReconcileResult | undefined> = [
    () => undefined,
    () => {
      throw new Error("boom");
    },
    () => ({ requeueAfter: 5_000 }),
    () => {
      throw new TerminalError("bad spec");
    },
  ];
  const activeDuring: Array<number | undefined> = [];
  const { controller, queue, stop } = await metricsController(registry, async () => {
    activeDuring.push(await value(registry, "controller_runtime_active_workers", { controller: "things" }));
    return outcomes.shift()!();
  });
  const c = { controller: "things" };
  for (const result of ["success", "error", "requeue", "requeue_after"]) {
    assert.equal(
      await value(registry, "controller_runtime_reconcile_total", { ...c, result }),
      0,
      `result=${result} starts at 0`,
    );
  }
  assert.equal(await value(registry, "controller_runtime_reconcile_errors_total", c), 0);
  assert.equal(await value(registry, "controller_runtime_max_concurrent_reconciles", c), 3);
  assert.equal(await value(registry, "controller_runtime_active_workers", c), 0);

  queue.add("ns/a");
  await controller.processNextWorkItem(stop.signal); // success
  queue.add("ns/a");
  await controller.processNextWorkItem(stop.signal); // error: requeued rate-limited
  queue.forget("ns/a");
  queue.add("ns/a");
  await controller.processNextWorkItem(stop.signal); // requeueAfter
  queue.add("ns/a");
  await controller.processNextWorkItem(stop.signal); // terminal error

  assert.deepEqual(activeDuring, [1, 1, 1, 1], "one worker is active while reconcile runs");
  assert.equal(await value(registry, "controller_runtime_active_workers", c), 0);
  assert.equal(await value(registry, "controller_runtime_reconcile_total", { ...c, result: "success" }), 1);
  assert.equal(await value(registry, "controller_runtime_reconcile_total", { ...c, result: "error" }), 2);
  assert.equal(await value(registry, "controller_runtime_reconcile_total", { ...c, result: "requeue_after" }), 1);
  assert.equal(await value(registry, "controller_runtime_reconcile_total", { ...c, result: "requeue" }), 0);
  assert.equal(await value(registry, "controller_runtime_reconcile_errors_total", c), 2);
  assert.equal(await value(registry, "controller_runtime_terminal_reconcile_errors_total", c), 1);
  assert.equal(
    await value(
      registry,
      "controller_runtime_reconcile_time_seconds",
      c,
      "controller_runtime_reconcile_time_seconds_count",
    ),
    4,
  );
  // The queue under the controller counts its side: 4 adds by hand plus the error's and requeueAfter's retries.
  assert.equal(await value(registry, "workqueue_retries_total", { name: "things" }), 2);
  assert.equal(
    await value(
      registry,
      "workqueue_work_duration_seconds",
      { name: "things" },
      "workqueue_work_duration_seconds_count",
    ),
    4,
  );
  stop.abort();
});

// The upstream definitions, as controller-runtime registers them (so a dashboard built for a Go operator reads a
// crdgen operator unchanged): kubernetes-sigs/controller-runtime pkg/internal/controller/metrics/metrics.go
// (controller_runtime_*: ReconcileTotal, ReconcileErrors, TerminalReconcileErrors, ReconcilePanics, ReconcileTimeouts,
// ReconcileTime, WorkerCount, ActiveWorkers) and pkg/metrics/workqueue.go (workqueue_*: its Prometheus provider for
// client-go's util/workqueue). The native-histogram settings there (NativeHistogramBucketFactor and the like) have no
// text-format counterpart. leader_election_master_status (pkg/metrics/leaderelection.go) is checked where the elector
// records it (test/runtime/leaderelection/upstream.test.ts).
interface UpstreamMetric {
  name: string;
  type: "counter" | "gauge" | "histogram";
  help: string;
  labels: string[];
  buckets?: number[];
}

/** prometheus.ExponentialBuckets as client_golang computes it: repeated multiplication, not powers. */
function goExponentialBuckets(start: number, factor: number, count: number): number[] {
  const buckets: number[] = [];
  for (let i = 0; i < count; i++, start *= factor) buckets.push(start);
  return buckets;
}

const controllerLabel = ["controller"];
const queueLabels = ["name", "controller"];
const upstreamMetrics: UpstreamMetric[] = [
  {
    name: "controller_runtime_reconcile_total",
    type: "counter",
    help: "Total number of reconciliations per controller",
    labels: ["controller", "result"],
  },
  {
    name: "controller_runtime_reconcile_errors_total",
    type: "counter",
    help: "Total number of reconciliation errors per controller",
    labels: controllerLabel,
  },
  {
    name: "controller_runtime_terminal_reconcile_errors_total",
    type: "counter",
    help: "Total number of terminal reconciliation errors per controller",
    labels: controllerLabel,
  },
  {
    name: "controller_runtime_reconcile_panics_total",
    type: "counter",
    help: "Total number of reconciliation panics per controller",
    labels: controllerLabel,
  },
  {
    name: "controller_runtime_reconcile_timeouts_total",
    type: "counter",
    help: "Total number of reconciliation timeouts per controller",
    labels: controllerLabel,
  },
  {
    name: "controller_runtime_reconcile_time_seconds",
    type: "histogram",
    help: "Length of time per reconciliation per controller",
    labels: controllerLabel,
    buckets: [
      0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5,
      1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
    ],
  },
  {
    name: "controller_runtime_max_concurrent_reconciles",
    type: "gauge",
    help: "Maximum number of concurrent reconciles per controller",
    labels: controllerLabel,
  },
  {
    name: "controller_runtime_active_workers",
    type: "gauge",
    help: "Number of currently used workers per controller",
    labels: controllerLabel,
  },
  {
    name: "workqueue_depth",
    type: "gauge",
    help: "Current depth of workqueue by workqueue and priority",
    labels: ["name", "controller", "priority"],
  },
  {
    name: "workqueue_adds_total",
    type: "counter",
    help: "Total number of adds handled by workqueue",
    labels: queueLabels,
  },
  {
    name: "workqueue_queue_duration_seconds",
    type: "histogram",
    help: "How long in seconds an item stays in workqueue before being requested",
    labels: queueLabels,
    buckets: goExponentialBuckets(10e-9, 10, 12),
  },
  {
    name: "workqueue_work_duration_seconds",
    type: "histogram",
    help: "How long in seconds processing an item from workqueue takes.",
    labels: queueLabels,
    buckets: goExponentialBuckets(10e-9, 10, 12),
  },
  {
    name: "workqueue_unfinished_work_seconds",
    type: "gauge",
    help:
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
      "Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at " +
      "which this increases.",
    labels: queueLabels,
  },
  {
    name: "workqueue_longest_running_processor_seconds",
    type: "gauge",
    help: "How many seconds has the longest running processor for workqueue been running.",
    labels: queueLabels,
  },
  {
    name: "workqueue_retries_total",
    type: "counter",
    help: "Total number of retries handled by workqueue",
    labels: queueLabels,
  },
];

/** One metric family of a Prometheus text exposition: HELP, TYPE and its samples' names and labels. */
interface ScrapedFamily {
  help?: string;
  type?: string;
  samples: Array<{ name: string; labels: Record<string, string> }>;
}

function parseExposition(text: string): Map<string, ScrapedFamily> {
  const families = new Map<string, ScrapedFamily>();
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { samples: [] }));
    return f;
  };
  for (const line of text.split("\n")) {
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      const f = family(meta[2]!);
      if (meta[1] === "HELP") f.help = meta[3]!.replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
      else f.type = meta[3]!;
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!sample) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    const base = sample[1]!.replace(/_(bucket|sum|count)$/, "");
    family(families.has(sample[1]!) ? sample[1]! : base).samples.push({ name: sample[1]!, labels });
  }
  return families;
}

test("the exposition after a reconcile has exactly controller-runtime's metrics: names, HELP, TYPE, label sets and buckets", async () => {
  const registry = new Registry();
  const { controller, queue, stop } = await metricsController(registry, () => Promise.resolve(undefined));
  queue.add("ns/a");
  await controller.processNextWorkItem(stop.signal);
  stop.abort();
  const scraped = parseExposition(await registry.metrics());

  assert.deepEqual(
    [...scraped.keys()].sort(),
    upstreamMetrics.map((m) => m.name).sort(),
    "every upstream metric is exposed, and nothing else",
  );
  for (const upstream of upstreamMetrics) {
    const family = scraped.get(upstream.name)!;
    assert.equal(family.help, upstream.help, `${upstream.name}: HELP`);
    assert.equal(family.type, upstream.type, `${upstream.name}: TYPE`);
    assert.ok(family.samples.length > 0, `${upstream.name}: a series after one reconcile`);
    for (const sample of family.samples) {
      const { le, ...labels } = sample.labels;
      assert.deepEqual(Object.keys(labels).sort(), [...upstream.labels].sort(), `${sample.name}: label set`);
      assert.equal(le !== undefined, sample.name.endsWith("_bucket"), `${sample.name}: le only on buckets`);
    }
    if (upstream.buckets) {
      const series = JSON.stringify(upstream.labels.map((l) => family.samples[0]!.labels[l]));
      const bounds = family.samples
        .filter((s) => s.name.endsWith("_bucket") && JSON.stringify(upstream.labels.map((l) => s.labels[l])) === series)
        .map((s) => s.labels.le!);
      // Compared as numbers: Go spells an upper bound with %g (1e-08), JavaScript with toString (1e-8).
      assert.deepEqual(bounds.slice(0, -1).map(Number), upstream.buckets, `${upstream.name}: bucket list`);
      assert.equal(bounds.at(-1), "+Inf", `${upstream.name}: the last bucket is +Inf`);
    }
  }
  assert.deepEqual(
    scraped.get("workqueue_depth")!.samples.map((s) => s.labels),
    [{ name: "things", controller: "things", priority: "" }],
    'a queue without priorities reports priority "", as controller-runtime\'s NewDepthMetric',
  );
});

async function get(port: number, path: string): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text(), type: res.headers.get("content-type") };
}

test("probe server: /healthz 200 while alive, /readyz 500 naming the failing check until ready, /metrics in Prometheus text", async () => {
  const registry = new Registry();
  const queue = newQueue<string>({ name: "probed", metricsProvider: workqueueMetricsProvider(registry) });
  queue.add("x");
  let synced = false;
  const probes = await startProbeServer({
    port: 0,
    host: "127.0.0.1",
    registry,
    checks: {
      readyz: [
        { name: "informer-sync", check: () => synced },
        { name: "always", check: () => true },
      ],
    },
  });
  try {
    assert.deepEqual(await get(probes.port, "/healthz"), {
      status: 200,
      body: "ok",
      type: "text/plain; charset=utf-8",
    });
    const notReady = await get(probes.port, "/readyz");
    assert.equal(notReady.status, 500);
    assert.match(notReady.body, /^\[-\]informer-sync failed: check returned false$/m);
    assert.match(notReady.body, /^\[\+\]always ok$/m);
    assert.equal((await get(probes.port, "/readyz?exclude=informer-sync")).status, 200);
    assert.equal((await get(probes.port, "/readyz/informer-sync")).status, 500);
    assert.equal((await get(probes.port, "/readyz/always")).status, 200);
    synced = true;
    assert.deepEqual(await get(probes.port, "/readyz"), { status: 200, body: "ok", type: "text/plain; charset=utf-8" });
    assert.match((await get(probes.port, "/readyz?verbose")).body, /\[\+\]informer-sync ok/);

    const metrics = await get(probes.port, "/metrics");
    assert.equal(metrics.status, 200);
    assert.match(metrics.type ?? "", /^text\/plain; version=0\.0\.4/);
    assert.match(metrics.body, /^# TYPE workqueue_depth gauge$/m);
    assert.match(metrics.body, /^workqueue_adds_total\{name="probed",controller="probed"\} 1$/m);
    for (const name of [
      "workqueue_queue_duration_seconds",
      "workqueue_work_duration_seconds",
      "workqueue_retries_total",
      "workqueue_unfinished_work_seconds",
      "workqueue_longest_running_processor_seconds",
    ]) {
      assert.ok(metrics.body.includes(`# TYPE ${name} `), name);
    }
    assert.equal((await get(probes.port, "/nope")).status, 404);
  } finally {
    await probes.close();
  }
});

test("probe server: a failing liveness check gives /healthz 500 with its name and reason", async () => {
  const probes = await startProbeServer({
    port: 0,
    host: "127.0.0.1",
    registry: new Registry(),
    checks: {
      healthz: [
        {
          name: "event-loop",
          check: () => {
            throw new Error("stuck");
          },
        },
      ],
    },
  });
  try {
    const res = await get(probes.port, "/healthz");
    assert.equal(res.status, 500);
    assert.match(res.body, /^\[-\]event-loop failed: stuck$/m);
    assert.match(res.body, /healthz check failed/);
  } finally {
    await probes.close();
  }
});

test("cacheSyncedCheck makes /readyz wait for a running controller's caches, and /metrics shows its controller_runtime_* series", async () => {
  const registry = new Registry();
  let releaseList: ((l: ReturnType<typeof list>) => void) | undefined;
  const lw = new FakeListerWatcher().queueList(() => new Promise((resolve) => (releaseList = resolve)));
  const informer = new SharedIndexInformer<Obj>({ listerWatcher: lw });
  const informerFactory = new SharedInformerFactory();
  informerFactory.informerFor("things", () => informer);
  const queue = newRateLimitingQueue<string>({ name: "things", metricsProvider: workqueueMetricsProvider(registry) });
  const kube = unreachableKube();
  const controller = new Controller<Obj>({
    name: "things",
    resource,
    kube,
    informerFactory,
    informer,
    queue,
    logger: quiet,
    metricsRegistry: registry,
    reconcile: () => Promise.resolve(undefined),
  });
  const probes = await startProbeServer({
    port: 0,
    host: "127.0.0.1",
    registry,
    checks: { readyz: [cacheSyncedCheck([controller])] },
  });
  const stop = new AbortController();
  stops.push(stop);
  try {
    const running = controller.run(stop.signal);
    await until(() => releaseList !== undefined, "the first LIST was issued");
    const waiting = await get(probes.port, "/readyz");
    assert.equal(waiting.status, 500);
    assert.match(waiting.body, /\[-\]informer-sync failed: caches not synced yet: things/);
    (releaseList as (l: ReturnType<typeof list>) => void)(list([], "5"));
    await until(() => controller.hasSynced(), "controller synced");
    assert.equal((await get(probes.port, "/readyz")).status, 200);
    const metrics = (await get(probes.port, "/metrics")).body;
    for (const name of [
      "controller_runtime_reconcile_total",
      "controller_runtime_reconcile_errors_total",
      "controller_runtime_reconcile_time_seconds",
      "controller_runtime_active_workers",
      "controller_runtime_max_concurrent_reconciles",
    ]) {
      assert.ok(metrics.includes(`# TYPE ${name} `), name);
    }
    assert.match(metrics, /^controller_runtime_reconcile_total\{controller="things",result="requeue_after"\} 0$/m);
    assert.match(metrics, /^controller_runtime_max_concurrent_reconciles\{controller="things"\} 1$/m);
    stop.abort();
    await running;
  } finally {
    await probes.close();
  }
});
