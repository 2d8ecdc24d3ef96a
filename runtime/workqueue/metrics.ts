// The queue's side of the workqueue metrics: per-item timestamps turned into depth, latency and work-duration
// observations on a MetricsProvider (client-go util/workqueue/metrics.go defaultQueueMetrics).

import { realClock, type Clock } from "../clock/clock.js";
import {
  defaultMetricsProvider,
  type DepthMetricWithPriority,
  noopMetricsProvider,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricsProvider,
  type SettableGaugeMetric,
} from "../metrics/provider.js";

/** client-go's unfinished-work refresh period. */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

/** The queue's side of the metrics: timestamps per item (client-go defaultQueueMetrics). */
export class QueueMetrics<T> {
  private readonly depth: DepthMetricWithPriority;
  private readonly adds: CounterMetric;
  private readonly latency: HistogramMetric;
  private readonly workDuration: HistogramMetric;
  private readonly unfinished: SettableGaugeMetric;
  private readonly longest: SettableGaugeMetric;
  private readonly retries: CounterMetric;
  private readonly addTimes = new Map<T, number>();
  private readonly processingStartTimes = new Map<T, number>();
  private readonly now: () => number;
  private ticker: unknown;

  /** withPriority: the depth gauge is labelled by priority (a priority queue), when the provider can do so. */
  constructor(
    name: string,
    provider: MetricsProvider,
    private readonly clock: Clock = realClock,
    withPriority = false,
  ) {
    this.depth =
      (withPriority ? provider.newDepthMetricWithPriority?.(name) : undefined) ??
      ignorePriority(provider.newDepthMetric(name));
    this.adds = provider.newAddsMetric(name);
    this.latency = provider.newLatencyMetric(name);
    this.workDuration = provider.newWorkDurationMetric(name);
    this.unfinished = provider.newUnfinishedWorkSecondsMetric(name);
    this.longest = provider.newLongestRunningProcessorSecondsMetric(name);
    this.retries = provider.newRetriesMetric(name);
    // Date.now() only has millisecond resolution; most work items take less.
    this.now = clock === realClock ? () => performance.now() : () => clock.now();
  }

  add(item: T, priority = 0): void {
    this.adds.inc();
    this.depth.inc(priority);
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.now());
  }

  get(item: T, priority = 0): void {
    const now = this.now();
    this.depth.dec(priority);
    const added = this.addTimes.get(item);
    if (added !== undefined) {
      this.latency.observe((now - added) / 1000);
      this.addTimes.delete(item);
    }
    this.processingStartTimes.set(item, now);
    this.startTicker();
  }

  done(item: T): void {
    const started = this.processingStartTimes.get(item);
    if (started !== undefined) {
      this.workDuration.observe((this.now() - started) / 1000);
      this.processingStartTimes.delete(item);
    }
    this.updateUnfinishedWork();
    if (this.processingStartTimes.size === 0) this.stopTicker();
  }

  /** A queued item's priority was raised (controller-runtime's updateDepthWithPriorityMetric). */
  updateDepthWithPriority(oldPriority: number, newPriority: number): void {
    this.depth.dec(oldPriority);
    this.depth.inc(newPriority);
  }

  retry(): void {
    this.retries.inc();
  }

  /** Refreshes the unfinished-work gauges; runs every 500 ms while anything is processing, and on every done(). */
  updateUnfinishedWork(): void {
    const now = this.now();
    let total = 0;
    let longest = 0;
    for (const started of this.processingStartTimes.values()) {
      const seconds = (now - started) / 1000;
      total += seconds;
      if (seconds > longest) longest = seconds;
    }
    this.unfinished.set(total);
    this.longest.set(longest);
  }

  shutDown(): void {
    this.stopTicker();
  }

  // On the queue's clock, so a FakeClock drives the refresh; a real timer is unref'd: a gauge refresh must not keep
  // the process alive.
  private startTicker(): void {
    if (this.ticker !== undefined) return;
    const tick = () => {
      this.updateUnfinishedWork();
      arm();
    };
    const arm = () => {
      this.ticker = this.clock.setTimeout(tick, UNFINISHED_WORK_UPDATE_PERIOD_MS);
      (this.ticker as { unref?: () => void }).unref?.();
    };
    arm();
  }

  private stopTicker(): void {
    if (this.ticker === undefined) return;
    this.clock.clearTimeout(this.ticker);
    this.ticker = undefined;
  }
}

/** A depth gauge without priorities, as one with them (controller-runtime wraps a plain provider's gauge this way). */
function ignorePriority(depth: GaugeMetric): DepthMetricWithPriority {
  return { inc: () => depth.inc(), dec: () => depth.dec() };
}

/**
 * Queue metrics for `name` from `provider` (default: the global provider); undefined (no metrics) for an unnamed
 * queue, as client-go. withPriority: for a priority queue (depth per priority).
 */
export function queueMetricsFor<T>(
  name: string | undefined,
  provider: MetricsProvider | undefined,
  clock?: Clock,
  withPriority = false,
): QueueMetrics<T> | undefined {
  if (!name) return undefined;
  const p = provider ?? defaultMetricsProvider();
  if (p === noopMetricsProvider) return undefined;
  return new QueueMetrics<T>(name, p, clock, withPriority);
}
