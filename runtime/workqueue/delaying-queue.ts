// A work queue that can add items after a delay, as in client-go util/workqueue/delaying_queue.go.

import { realClock, type Clock } from "../clock/clock.js";
import type { MetricsProvider } from "../metrics/provider.js";
import { queueMetricsFor } from "./metrics.js";
import { BasicQueue, type Queue } from "./queue.js";
import { WaitingHeap } from "./waiting-heap.js";

export interface DelayingQueue<T> extends Queue<T> {
  /** Adds item once delayMs has passed (now if delayMs <= 0); a second call can only make it earlier. */
  addAfter(item: T, delayMs: number): void;
}

export interface DelayingQueueOptions {
  /** Names the queue's metrics (label `name`); an unnamed queue records none, as client-go. */
  name?: string;
  clock?: Clock;
  /** Where metrics go; default: the provider set by setDefaultMetricsProvider (the crdgen registry once @crdgen/runtime is imported). */
  metricsProvider?: MetricsProvider;
}

// client-go re-checks at least this often (its heartbeat); it also keeps each timer far below
// Node's 2^31-1 ms limit, past which setTimeout would fire immediately.
const MAX_WAIT_MS = 10_000;

export class BasicDelayingQueue<T> extends BasicQueue<T> implements DelayingQueue<T> {
  readonly name: string;
  protected readonly clock: Clock;
  private readonly waiting = new WaitingHeap<T>();
  private timer: unknown = undefined;
  private timerAt = Infinity;

  constructor(options: DelayingQueueOptions = {}) {
    const clock = options.clock ?? realClock;
    super(queueMetricsFor<T>(options.name, options.metricsProvider, clock));
    this.name = options.name ?? "";
    this.clock = clock;
  }

  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    // client-go counts every AddAfter as a retry, whatever the delay.
    this.metrics?.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    this.waiting.offer(item, this.clock.now() + delayMs);
    this.arm();
  }

  override shutDown(): void {
    this.stopWaiting();
    super.shutDown();
  }

  override shutDownWithDrain(): Promise<void> {
    // Items still waiting could never be added after shutdown, so drop them and their timer now.
    this.stopWaiting();
    return super.shutDownWithDrain();
  }

  // Keeps exactly one timer armed for the earliest ready time (capped at MAX_WAIT_MS).
  private arm(): void {
    const next = this.waiting.peekReadyAt();
    if (next === undefined) {
      this.disarm();
      return;
    }
    const now = this.clock.now();
    const at = Math.min(next, now + MAX_WAIT_MS);
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.disarm();
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => this.fire(), Math.max(0, at - now));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    for (let ready = this.waiting.popReady(now); ready !== undefined; ready = this.waiting.popReady(now)) {
      this.add(ready.item);
    }
    this.arm();
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private stopWaiting(): void {
    this.waiting.clear();
    this.disarm();
  }
}

/** A delaying work queue (client-go workqueue.NewDelayingQueue). */
export function newDelayingQueue<T>(options: DelayingQueueOptions = {}): DelayingQueue<T> {
  return new BasicDelayingQueue<T>(options);
}
