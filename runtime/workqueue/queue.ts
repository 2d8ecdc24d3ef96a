// The core work queue: FIFO order plus dirty/processing sets, as in client-go util/workqueue/queue.go.

import type { Clock } from "../clock/clock.js";
import type { MetricsProvider } from "../metrics/provider.js";
import { queueMetricsFor, type QueueMetrics } from "./metrics.js";

/** What get() resolves to: an item to process, or shutdown once the queue is shut down and empty. */
export type GetResult<T> = { item: T; shutdown: false } | { item: undefined; shutdown: true };

export interface Queue<T> {
  /** Marks item as needing processing. No-op if already queued, or after shutdown. */
  add(item: T): void;
  /** Number of items waiting to be handed out (not counting ones being processed). */
  len(): number;
  /** Waits for the next item; resolves shutdown:true only when shut down and nothing is left queued. */
  get(): Promise<GetResult<T>>;
  /** Marks item as processed; if it was added again meanwhile, it is queued again now. */
  done(item: T): void;
  /** Stops accepting adds; queued items are still handed out, then get() reports shutdown. */
  shutDown(): void;
  /** Like shutDown, and resolves once every item being processed is done (or shutDown() is called). */
  shutDownWithDrain(): Promise<void>;
  shuttingDown(): boolean;
}

export class BasicQueue<T> implements Queue<T> {
  // Order of items to hand out; `head` avoids O(n) shift(). Slots before head are emptied as items are handed out,
  // so the queue holds no reference to an item once it is done.
  private order: Array<T | undefined> = [];
  private head = 0;
  // Items that need processing (queued, or re-added while processing).
  private readonly dirty = new Set<T>();
  // Items handed out by get() and not yet done().
  private readonly processing = new Set<T>();
  // Pending get() calls, served first-come first-served.
  private readonly getters: Array<(r: GetResult<T>) => void> = [];
  // Pending shutDownWithDrain() calls.
  private drainWaiters: Array<() => void> = [];
  private shutting = false;

  /** metrics: the queue's metrics (see queueMetricsFor); none when undefined. */
  constructor(protected readonly metrics?: QueueMetrics<T>) {}

  add(item: T): void {
    if (this.shutting) return;
    if (this.dirty.has(item)) return;
    this.metrics?.add(item);
    this.dirty.add(item);
    // client-go: an item being processed is only re-queued by done(), so it never runs twice at once.
    if (this.processing.has(item)) return;
    this.push(item);
  }

  len(): number {
    return this.order.length - this.head;
  }

  get(): Promise<GetResult<T>> {
    if (this.len() > 0) return Promise.resolve(this.take());
    if (this.shutting) return Promise.resolve({ item: undefined, shutdown: true });
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(item: T): void {
    // client-go assumes done() pairs with get(); ignoring strays keeps an item from being queued twice.
    if (!this.processing.delete(item)) return;
    this.metrics?.done(item);
    if (this.dirty.has(item)) {
      this.push(item);
    } else if (this.processing.size === 0) {
      this.releaseDrainWaiters();
    }
  }

  shutDown(): void {
    this.shutting = true;
    this.metrics?.shutDown();
    // client-go: ShutDown after ShutDownWithDrain stops the drain wait.
    this.releaseDrainWaiters();
    this.releaseGetters();
  }

  shutDownWithDrain(): Promise<void> {
    this.shutting = true;
    this.releaseGetters();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.shutting;
  }

  private push(item: T): void {
    this.order.push(item);
    // Hand straight to the oldest waiting get(); the item moves to processing synchronously.
    const getter = this.getters.shift();
    if (getter !== undefined) getter(this.take());
  }

  private take(): GetResult<T> {
    const item = this.order[this.head] as T;
    this.order[this.head] = undefined;
    this.head++;
    if (this.head === this.order.length) {
      this.order = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
    this.dirty.delete(item);
    this.processing.add(item);
    this.metrics?.get(item);
    return { item, shutdown: false };
  }

  // After shutdown the queue can only shrink, so waiting getters (queue is empty) all learn of shutdown now.
  private releaseGetters(): void {
    if (this.len() > 0) return;
    for (const getter of this.getters.splice(0)) getter({ item: undefined, shutdown: true });
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

export interface QueueOptions {
  /** Names the queue's metrics (label `name`); an unnamed queue records none, as client-go. */
  name?: string;
  /** Where metrics go; default: the provider set by setDefaultMetricsProvider (the crdgen registry once @crdgen/runtime is imported). */
  metricsProvider?: MetricsProvider;
  /** Only used to time metrics. */
  clock?: Clock;
}

/** A plain work queue (client-go workqueue.NewWithConfig). */
export function newQueue<T>(options: QueueOptions = {}): Queue<T> {
  return new BasicQueue<T>(queueMetricsFor<T>(options.name, options.metricsProvider, options.clock));
}
