// A delaying queue whose requeues wait as long as a RateLimiter says, as in client-go
// util/workqueue/rate_limiting_queue.go.

import type { Clock } from "../clock/clock.js";
import { BasicDelayingQueue, type DelayingQueue } from "./delaying-queue.js";
import type { MetricsProvider } from "../metrics/provider.js";
import { newPriorityQueue } from "./priority-queue.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiters.js";

export interface RateLimitingQueue<T> extends DelayingQueue<T> {
  /** Adds item after the delay the rate limiter gives it (counting one more requeue). */
  addRateLimited(item: T): void;
  /** Resets the limiter's tracking of item; does not remove it from the queue. */
  forget(item: T): void;
  /** How many times item has been requeued through addRateLimited since the last forget. */
  numRequeues(item: T): number;
}

export interface RateLimitingQueueOptions<T> {
  /** Names the queue's metrics (label `name`); an unnamed queue records none, as client-go. */
  name?: string;
  /** Where metrics go; default: the provider set by setDefaultMetricsProvider (the crdgen registry once @crdgen/runtime is imported). */
  metricsProvider?: MetricsProvider;
  /** Defaults to defaultControllerRateLimiter on the same clock. */
  rateLimiter?: RateLimiter<T>;
  clock?: Clock;
  /**
   * controller-runtime's UsePriorityQueue: a priority queue (newPriorityQueue) instead, which serves the keys that
   * handlers add with a higher priority first; its depth metric is labelled by priority.
   */
  priorityQueue?: boolean;
}

class BasicRateLimitingQueue<T> extends BasicDelayingQueue<T> implements RateLimitingQueue<T> {
  private readonly rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T>) {
    super({ name: options.name, clock: options.clock, metricsProvider: options.metricsProvider });
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}

/** A rate-limited work queue (client-go workqueue.NewRateLimitingQueueWithConfig). */
export function newRateLimitingQueue<T>(options: RateLimitingQueueOptions<T> = {}): RateLimitingQueue<T> {
  if (!options.priorityQueue) return new BasicRateLimitingQueue<T>(options);
  return newPriorityQueue<T>(options);
}
