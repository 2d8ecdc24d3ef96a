// Metrics and probes: workqueue_* and controller_runtime_* series move as client-go and controller-runtime move them,
// and the probe server answers /healthz, /readyz and /metrics.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Controller, TerminalError, type ReconcileResult } from "@crdgen/runtime";
import { FakeClock } from "@crdgen/runtime/testing";
import {
  Registry,
  WORKQUEUE_DURATION_BUCKETS,
  metricsRegistry,
  workqueueMetricsProvider,
} from "@crdgen/runtime/metrics";
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

test("workqueue histograms use client-go's buckets, 1e-8 s to 10 s by factor 10", async () => {
  assert.deepEqual([...WORKQUEUE_DURATION_BUCKETS], [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10]);
  const registry = new Registry();
  const queue = newQueue<string>({ name: "buckets", metricsProvider: workqueueMetricsProvider(registry) });
  queue.add("x");
  await queue.get();
  queue.done("x");
  const text = await registry.metrics();
  assert.match(text, /workqueue_work_duration_seconds_bucket\{le="1e-8",name="buckets",controller="buckets"\} /);
  assert.match(text, /workqueue_queue_duration_seconds_bucket\{le="10",name="buckets",controller="buckets"\} 1/);
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
