// Prometheus metrics under client-go's and controller-runtime's names, so existing dashboards work
// (client-go util/workqueue/metrics.go, controller-runtime pkg/metrics/workqueue.go and
// pkg/internal/controller/metrics/metrics.go).
import { Counter, Gauge, Histogram, Registry, exponentialBuckets } from "./prom-client.js";
import {
  setDefaultMetricsProvider,
  type CounterMetric,
  type DepthMetricWithPriority,
  type GaugeMetric,
  type HistogramMetric,
  type MetricsProvider,
  type SettableGaugeMetric,
} from "./provider.js";

export { Registry } from "./prom-client.js";

/**
 * The crdgen registry: where queues and controllers record unless given another one. Separate from prom-client's
 * global `register`, so an operator's own metrics there are not mixed in unless the user merges them
 * (`Registry.merge([metricsRegistry, register])`).
 */
export const metricsRegistry = new Registry();

/**
 * controller-runtime's workqueue histogram buckets (pkg/metrics/workqueue.go): ExponentialBuckets(10e-9, 10, 12), 1e-8 s
 * to 1000 s, computed by repeated multiplication as Go does, so 1e-5 is 9.999999999999999e-6 there too.
 */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = exponentialBuckets(10e-9, 10, 12);

/** controller-runtime's reconcile_time_seconds buckets (pkg/internal/controller/metrics/metrics.go). */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** The metric names, for dashboards and tests. */
export const METRIC_NAMES = {
  workqueueDepth: "workqueue_depth",
  workqueueAdds: "workqueue_adds_total",
  workqueueQueueDuration: "workqueue_queue_duration_seconds",
  workqueueWorkDuration: "workqueue_work_duration_seconds",
  workqueueUnfinishedWork: "workqueue_unfinished_work_seconds",
  workqueueLongestRunningProcessor: "workqueue_longest_running_processor_seconds",
  workqueueRetries: "workqueue_retries_total",
  reconcileTotal: "controller_runtime_reconcile_total",
  reconcileErrors: "controller_runtime_reconcile_errors_total",
  terminalReconcileErrors: "controller_runtime_terminal_reconcile_errors_total",
  reconcilePanics: "controller_runtime_reconcile_panics_total",
  reconcileTimeouts: "controller_runtime_reconcile_timeouts_total",
  reconcileTime: "controller_runtime_reconcile_time_seconds",
  maxConcurrentReconciles: "controller_runtime_max_concurrent_reconciles",
  activeWorkers: "controller_runtime_active_workers",
} as const;

// Labels as controller-runtime's workqueue metrics: `name` (client-go) and `controller`, both the queue name; the depth
// gauge also has `priority` ("" for a queue without priorities).
type QueueLabel = "name" | "controller";
type DepthLabel = QueueLabel | "priority";

class PrometheusWorkqueueMetricsProvider implements MetricsProvider {
  private readonly depth: Gauge<DepthLabel>;
  private readonly adds: Counter<QueueLabel>;
  private readonly latency: Histogram<QueueLabel>;
  private readonly workDuration: Histogram<QueueLabel>;
  private readonly unfinished: Gauge<QueueLabel>;
  private readonly longest: Gauge<QueueLabel>;
  private readonly retries: Counter<QueueLabel>;

  constructor(registry: Registry) {
    const labelNames: QueueLabel[] = ["name", "controller"];
    const registers = [registry];
    this.depth = new Gauge({
      name: METRIC_NAMES.workqueueDepth,
      help: "Current depth of workqueue by workqueue and priority",
      labelNames: [...labelNames, "priority"],
      registers,
    });
    this.adds = new Counter({
      name: METRIC_NAMES.workqueueAdds,
      help: "Total number of adds handled by workqueue",
      labelNames,
      registers,
    });
    this.latency = new Histogram({
      name: METRIC_NAMES.workqueueQueueDuration,
      help: "How long in seconds an item stays in workqueue before being requested",
      labelNames,
      buckets: [...WORKQUEUE_DURATION_BUCKETS],
      registers,
    });
    this.workDuration = new Histogram({
      name: METRIC_NAMES.workqueueWorkDuration,
      help: "How long in seconds processing an item from workqueue takes.",
      labelNames,
      buckets: [...WORKQUEUE_DURATION_BUCKETS],
      registers,
    });
    this.unfinished = new Gauge({
      name: METRIC_NAMES.workqueueUnfinishedWork,
      help:
        "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
        "Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
      labelNames,
      registers,
    });
    this.longest = new Gauge({
      name: METRIC_NAMES.workqueueLongestRunningProcessor,
      help: "How many seconds has the longest running processor for workqueue been running.",
      labelNames,
      registers,
    });
    this.retries = new Counter({
      name: METRIC_NAMES.workqueueRetries,
      help: "Total number of retries handled by workqueue",
      labelNames,
      registers,
    });
  }

  private labels(name: string): Record<QueueLabel, string> {
    return { name, controller: name };
  }

  newDepthMetric(name: string): GaugeMetric {
    const g = this.depth.labels({ ...this.labels(name), priority: "" });
    g.set(0);
    return { inc: () => g.inc(), dec: () => g.dec() };
  }
  newDepthMetricWithPriority(name: string): DepthMetricWithPriority {
    const labels = (priority: number) => ({ ...this.labels(name), priority: String(priority) });
    return {
      inc: (priority) => this.depth.inc(labels(priority)),
      dec: (priority) => this.depth.dec(labels(priority)),
    };
  }
  newAddsMetric(name: string): CounterMetric {
    const c = this.adds.labels(this.labels(name));
    c.inc(0);
    return { inc: () => c.inc() };
  }
  newLatencyMetric(name: string): HistogramMetric {
    const h = this.latency.labels(this.labels(name));
    return { observe: (v) => h.observe(v) };
  }
  newWorkDurationMetric(name: string): HistogramMetric {
    const h = this.workDuration.labels(this.labels(name));
    return { observe: (v) => h.observe(v) };
  }
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric {
    const g = this.unfinished.labels(this.labels(name));
    g.set(0);
    return { set: (v) => g.set(v) };
  }
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric {
    const g = this.longest.labels(this.labels(name));
    g.set(0);
    return { set: (v) => g.set(v) };
  }
  newRetriesMetric(name: string): CounterMetric {
    const c = this.retries.labels(this.labels(name));
    c.inc(0);
    return { inc: () => c.inc() };
  }
}

// prom-client refuses a second metric of one name in a registry, so there is one provider / recorder per registry.
const workqueueProviders = new WeakMap<Registry, MetricsProvider>();
const controllerRecorders = new WeakMap<Registry, ControllerMetrics>();

/** The workqueue MetricsProvider recording into registry (default: the crdgen registry). */
export function workqueueMetricsProvider(registry: Registry = metricsRegistry): MetricsProvider {
  let provider = workqueueProviders.get(registry);
  if (provider === undefined) {
    provider = new PrometheusWorkqueueMetricsProvider(registry);
    workqueueProviders.set(registry, provider);
  }
  return provider;
}

/** How a reconcile ended, as controller_runtime_reconcile_total's `result` label. */
export type ReconcileOutcome = "success" | "error" | "requeue" | "requeue_after";

/** Records controller-runtime's controller metrics; one per registry, shared by every controller using it. */
export class ControllerMetrics {
  private readonly total: Counter<"controller" | "result">;
  private readonly errors: Counter<"controller">;
  private readonly terminalErrors: Counter<"controller">;
  private readonly panics: Counter<"controller">;
  private readonly timeouts: Counter<"controller">;
  private readonly time: Histogram<"controller">;
  private readonly maxConcurrent: Gauge<"controller">;
  private readonly active: Gauge<"controller">;

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames = ["controller"] as const;
    this.total = new Counter({
      name: METRIC_NAMES.reconcileTotal,
      help: "Total number of reconciliations per controller",
      labelNames: ["controller", "result"],
      registers,
    });
    this.errors = new Counter({
      name: METRIC_NAMES.reconcileErrors,
      help: "Total number of reconciliation errors per controller",
      labelNames,
      registers,
    });
    this.terminalErrors = new Counter({
      name: METRIC_NAMES.terminalReconcileErrors,
      help: "Total number of terminal reconciliation errors per controller",
      labelNames,
      registers,
    });
    this.panics = new Counter({
      name: METRIC_NAMES.reconcilePanics,
      help: "Total number of reconciliation panics per controller",
      labelNames,
      registers,
    });
    this.timeouts = new Counter({
      name: METRIC_NAMES.reconcileTimeouts,
      help: "Total number of reconciliation timeouts per controller",
      labelNames,
      registers,
    });
    this.time = new Histogram({
      name: METRIC_NAMES.reconcileTime,
      help: "Length of time per reconciliation per controller",
      labelNames,
      buckets: [...RECONCILE_TIME_BUCKETS],
      registers,
    });
    this.maxConcurrent = new Gauge({
      name: METRIC_NAMES.maxConcurrentReconciles,
      help: "Maximum number of concurrent reconciles per controller",
      labelNames,
      registers,
    });
    this.active = new Gauge({
      name: METRIC_NAMES.activeWorkers,
      help: "Number of currently used workers per controller",
      labelNames,
      registers,
    });
  }

  /** Pre-initialises every series of controller to 0 (controller-runtime's initMetrics) and sets its worker count. */
  register(controller: string, maxConcurrentReconciles: number): void {
    for (const result of ["success", "error", "requeue", "requeue_after"] as const)
      this.total.inc({ controller, result }, 0);
    for (const counter of [this.errors, this.terminalErrors, this.panics, this.timeouts])
      counter.inc({ controller }, 0);
    this.active.set({ controller }, 0);
    this.maxConcurrent.set({ controller }, maxConcurrentReconciles);
  }

  workerStarted(controller: string): void {
    this.active.inc({ controller });
  }

  workerFinished(controller: string): void {
    this.active.dec({ controller });
  }

  /** How long one reconcile took, whatever its outcome (even a panic that is not recovered). */
  observeReconcileTime(controller: string, seconds: number): void {
    this.time.observe({ controller }, seconds);
  }

  /** One reconcile ended with outcome; terminal marks a TerminalError (counted as an error too). */
  reconciled(controller: string, outcome: ReconcileOutcome, terminal = false): void {
    this.total.inc({ controller, result: outcome });
    if (outcome === "error") this.errors.inc({ controller });
    if (terminal) this.terminalErrors.inc({ controller });
  }

  /** A hook panicked (see the controller's recoverPanic); a recovered panic is then counted as an error too. */
  reconcilePanicked(controller: string): void {
    this.panics.inc({ controller });
  }

  /** A reconcile outlived its reconciliationTimeoutMs. */
  reconcileTimedOut(controller: string): void {
    this.timeouts.inc({ controller });
  }
}

/** The controller metrics recording into registry (default: the crdgen registry). */
export function controllerMetrics(registry: Registry = metricsRegistry): ControllerMetrics {
  let recorder = controllerRecorders.get(registry);
  if (recorder === undefined) {
    recorder = new ControllerMetrics(registry);
    controllerRecorders.set(registry, recorder);
  }
  return recorder;
}

// As controller-runtime's init(): named queues created without a provider record into the crdgen registry.
setDefaultMetricsProvider(workqueueMetricsProvider(metricsRegistry));
