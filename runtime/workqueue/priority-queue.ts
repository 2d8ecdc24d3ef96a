// controller-runtime's priority queue (pkg/controller/priorityqueue): a rate-limited queue whose get() hands out the
// highest priority first (FIFO within one priority), so live events overtake the initial list's adds (priority -100).

import { realClock, type Clock } from "../clock/clock.js";
import { Heap } from "./heap-js.js";
import type { GetResult } from "./queue.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiters.js";
import type { DelayingQueue } from "./delaying-queue.js";
import type { MetricsProvider } from "../metrics/provider.js";
import { queueMetricsFor, type QueueMetrics } from "./metrics.js";

/** controller-runtime handler.LowPriority: what the initial list's add events are queued with. */
export const LOW_PRIORITY = -100;

/** controller-runtime priorityqueue.AddOpts. */
export interface AddOpts {
  /** Higher first; default 0. Adding a queued item again keeps the higher of the two priorities. */
  priority?: number;
  /** Delay before the item is ready; a queued item only ever moves earlier. */
  afterMs?: number;
  /** Delay by the rate limiter; with afterMs too, the shorter of the two (as controller-runtime). */
  rateLimited?: boolean;
}

/** A RateLimitingQueue with priorities (spelled out here: rate-limiting-queue.ts creates this queue on request). */
export interface PriorityQueue<T> extends DelayingQueue<T> {
  addRateLimited(item: T): void;
  forget(item: T): void;
  numRequeues(item: T): number;
  /** add with options: the handlers pass the event's priority this way (other queues take add(item) only). */
  add(item: T, opts?: AddOpts): void;
  addWithOpts(opts: AddOpts, ...items: T[]): void;
  /** get() with the priority the item was handed out at. */
  getWithPriority(): Promise<GetResult<T> & { priority: number }>;
}

export interface PriorityQueueOptions<T> {
  /** Names the queue's metrics (label `name`); an unnamed queue records none, as client-go. */
  name?: string;
  /** Where metrics go; default: the provider set by setDefaultMetricsProvider. Depth is labelled by priority. */
  metricsProvider?: MetricsProvider;
  rateLimiter?: RateLimiter<T>;
  clock?: Clock;
}

interface Entry<T> {
  readonly item: T;
  readonly priority: number;
  readonly readyAt: number;
  /** Insertion order: FIFO within one priority. */
  readonly seq: number;
  /** Waiting for readyAt, ready to hand out, or parked while the item is being processed. */
  state: "waiting" | "ready" | "parked";
  /** Counted in the depth and adds metrics: it was added without delay, or its delay has passed. */
  counted: boolean;
}

/** Ready items: highest priority first, then oldest. */
const readyFirst = <T>(a: Entry<T>, b: Entry<T>): number => b.priority - a.priority || a.seq - b.seq;
/** Waiting items: earliest ready time first. */
const dueFirst = <T>(a: Entry<T>, b: Entry<T>): number => a.readyAt - b.readyAt || a.seq - b.seq;

class BasicPriorityQueue<T> implements PriorityQueue<T> {
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter<T>;
  private readonly metrics: QueueMetrics<T> | undefined;
  /**
   * The live entry of every queued item (waiting, ready or parked). An entry's keys never change: a re-add that
   * raises the priority or moves the ready time earlier replaces it, and the heaps skip entries no longer live here.
   */
  private readonly entries = new Map<T, Entry<T>>();
  private readonly ready = new Heap<Entry<T>>(readyFirst);
  private readonly waiting = new Heap<Entry<T>>(dueFirst);
  /** Live entries in `ready` (the heap also holds stale ones). */
  private readyCount = 0;
  private readonly processing = new Set<T>();
  private readonly getters: Array<(r: GetResult<T> & { priority: number }) => void> = [];
  private drainWaiters: Array<() => void> = [];
  private seq = 0;
  private shutting = false;
  /** One timer, for the earliest waiting entry. */
  private timer: { handle: unknown; at: number } | undefined;

  constructor(options: PriorityQueueOptions<T>) {
    this.clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
    this.metrics = queueMetricsFor<T>(options.name, options.metricsProvider, options.clock, true);
  }

  addWithOpts(opts: AddOpts, ...items: T[]): void {
    if (this.shutting) return;
    const priority = opts.priority ?? 0;
    for (const item of items) {
      let delay = opts.afterMs ?? 0;
      if (opts.rateLimited) {
        const limited = this.rateLimiter.when(item);
        if (delay === 0 || limited < delay) delay = limited;
      }
      if (delay > 0) this.metrics?.retry();
      const readyAt = this.clock.now() + Math.max(0, delay);
      const existing = this.entries.get(item);
      if (existing === undefined) {
        this.place({ item, priority, readyAt, seq: this.seq++, state: "parked", counted: false });
        continue;
      }
      const raised = priority > existing.priority;
      if (!raised && readyAt >= existing.readyAt) continue;
      if (existing.state === "ready") this.readyCount--;
      if (raised && existing.counted) this.metrics?.updateDepthWithPriority(existing.priority, priority);
      this.place({
        item,
        priority: Math.max(priority, existing.priority),
        readyAt: Math.min(readyAt, existing.readyAt),
        // A raised priority queues the item behind those already at that priority (FIFO), as controller-runtime.
        seq: raised ? this.seq++ : existing.seq,
        state: "parked",
        counted: existing.counted,
      });
    }
    this.serve();
  }

  add(item: T, opts: AddOpts = {}): void {
    this.addWithOpts(opts, item);
  }

  addAfter(item: T, delayMs: number): void {
    this.addWithOpts({ afterMs: delayMs }, item);
  }

  addRateLimited(item: T): void {
    this.addWithOpts({ rateLimited: true }, item);
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Ready items not being processed (controller-runtime's Len). */
  len(): number {
    this.promoteDue();
    return this.readyCount;
  }

  async get(): Promise<GetResult<T>> {
    const { item, shutdown } = await this.getWithPriority();
    return shutdown ? { item: undefined, shutdown } : { item: item, shutdown };
  }

  getWithPriority(): Promise<GetResult<T> & { priority: number }> {
    // controller-runtime: once shut down, get() reports it at once, even with items still queued.
    if (this.shutting) return Promise.resolve({ item: undefined, shutdown: true, priority: 0 });
    const next = this.takeNext();
    if (next !== undefined) return Promise.resolve({ item: next.item, shutdown: false, priority: next.priority });
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(item: T): void {
    this.metrics?.done(item);
    this.processing.delete(item);
    // An item added again while it was processed waited, parked; now it may be handed out.
    const parked = this.entries.get(item);
    if (parked !== undefined) this.place(parked);
    if (this.processing.size === 0) for (const wake of this.drainWaiters.splice(0)) wake();
    this.serve();
  }

  shutDown(): void {
    this.shutting = true;
    this.metrics?.shutDown();
    this.clock.clearTimeout(this.timer?.handle);
    this.timer = undefined;
    for (const wake of this.drainWaiters.splice(0)) wake();
    for (const resolve of this.getters.splice(0)) resolve({ item: undefined, shutdown: true, priority: 0 });
  }

  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.shutting;
  }

  /** Makes entry the item's live entry, in the heap its ready time and the item's processing call for. */
  private place(entry: Entry<T>): void {
    this.entries.set(entry.item, entry);
    if (!entry.counted && entry.readyAt <= this.clock.now()) {
      entry.counted = true;
      this.metrics?.add(entry.item, entry.priority);
    }
    if (this.processing.has(entry.item)) {
      entry.state = "parked";
    } else if (entry.readyAt <= this.clock.now()) {
      entry.state = "ready";
      this.ready.push(entry);
      this.readyCount++;
    } else {
      entry.state = "waiting";
      this.waiting.push(entry);
    }
  }

  private isLive(entry: Entry<T>, state: Entry<T>["state"]): boolean {
    return entry.state === state && this.entries.get(entry.item) === entry;
  }

  /** Moves waiting entries whose time has come to the ready heap; drops stale ones on the way. */
  private promoteDue(): void {
    const now = this.clock.now();
    for (let top = this.waiting.peek(); top !== undefined; top = this.waiting.peek()) {
      if (this.isLive(top, "waiting")) {
        if (top.readyAt > now) return;
        this.place(top);
      }
      this.waiting.pop();
    }
  }

  /** The ready item to hand out: highest priority, then oldest; never one already being processed. */
  private takeNext(): Entry<T> | undefined {
    this.promoteDue();
    for (let top = this.ready.pop(); top !== undefined; top = this.ready.pop()) {
      if (!this.isLive(top, "ready")) continue;
      this.entries.delete(top.item);
      this.readyCount--;
      this.processing.add(top.item);
      this.metrics?.get(top.item, top.priority);
      return top;
    }
    return undefined;
  }

  private serve(): void {
    this.promoteDue();
    while (this.getters.length > 0) {
      const next = this.takeNext();
      if (next === undefined) break;
      this.getters.shift()!({ item: next.item, shutdown: false, priority: next.priority });
    }
    this.armTimer();
  }

  /** Keeps one timer set for the earliest waiting entry, to hand it out when it becomes ready. */
  private armTimer(): void {
    if (this.shutting) return;
    // Only stale entries are dropped here: one that fell due meanwhile gets a timer of 0, so serve() hands it out.
    while (this.waiting.length > 0 && !this.isLive(this.waiting.peek()!, "waiting")) this.waiting.pop();
    const next = this.waiting.peek();
    if (next?.readyAt === this.timer?.at) return;
    this.clock.clearTimeout(this.timer?.handle);
    this.timer = undefined;
    if (next === undefined) return;
    const handle = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.serve();
    }, next.readyAt - this.clock.now());
    this.timer = { handle, at: next.readyAt };
  }
}

/** controller-runtime priorityqueue.New: a RateLimitingQueue with priorities. */
export function newPriorityQueue<T>(options: PriorityQueueOptions<T> = {}): PriorityQueue<T> {
  return new BasicPriorityQueue<T>(options);
}
