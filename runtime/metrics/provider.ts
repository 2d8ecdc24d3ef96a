// The metric interfaces the workqueue records through (client-go util/workqueue/metrics.go's MetricsProvider), so the
// queue needs no metrics library: metrics/prometheus.ts implements them on prom-client and installs itself as the
// default.

export interface GaugeMetric {
  inc(): void;
  dec(): void;
}
export interface SettableGaugeMetric {
  set(value: number): void;
}
export interface CounterMetric {
  inc(): void;
}
export interface HistogramMetric {
  observe(value: number): void;
}
/** The depth of a queue per priority (controller-runtime's DepthMetricWithPriority, for its priority queue). */
export interface DepthMetricWithPriority {
  inc(priority: number): void;
  dec(priority: number): void;
}

/** Creates the metrics of the queue called `name` (client-go workqueue.MetricsProvider). Calling twice with one name must be allowed. */
export interface MetricsProvider {
  newDepthMetric(name: string): GaugeMetric;
  newAddsMetric(name: string): CounterMetric;
  /** Seconds from add to get. */
  newLatencyMetric(name: string): HistogramMetric;
  /** Seconds from get to done. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** Sum of the seconds every in-flight item has been processing so far. */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  /** Seconds the longest-running in-flight item has been processing. */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  newRetriesMetric(name: string): CounterMetric;
  /** The depth per priority, for a priority queue (controller-runtime's MetricsProviderWithPriority). */
  newDepthMetricWithPriority?(name: string): DepthMetricWithPriority;
}

const noop = { inc() {}, dec() {}, set() {}, observe() {} };

/** Records nothing. */
export const noopMetricsProvider: MetricsProvider = {
  newDepthMetric: () => noop,
  newAddsMetric: () => noop,
  newLatencyMetric: () => noop,
  newWorkDurationMetric: () => noop,
  newUnfinishedWorkSecondsMetric: () => noop,
  newLongestRunningProcessorSecondsMetric: () => noop,
  newRetriesMetric: () => noop,
};

let globalProvider: MetricsProvider = noopMetricsProvider;

/**
 * Sets the provider used by queues created afterwards without an explicit one (client-go workqueue.SetProvider).
 * Importing @crdgen/runtime installs the Prometheus provider on the crdgen registry.
 */
export function setDefaultMetricsProvider(provider: MetricsProvider): void {
  globalProvider = provider;
}

export function defaultMetricsProvider(): MetricsProvider {
  return globalProvider;
}
