// controller-runtime's priority queue (pkg/controller/priorityqueue): a rate-limited queue whose get() hands out the
// highest priority first (FIFO within one priority), so live events overtake the initial list's adds (priority -100).

import { realClock, type Clock } from "../clock/clock.js";
import type { GetResult } from "./queue.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiters.js";
import type { RateLimitingQueue } from "./rate-limiting-queue.js";

/** controller-runtime handler.LowPriority: what the initial list's add events are queued with. */
export const LOW_PRIORITY = -100;

/** controller-runtime priorityqueue.AddOpts. */
export interface AddOpts {
  /** Higher first; default 0. Adding a queued item again keeps the higher of the two priorities. */
  priority?: number;
  /** Delay before the item is ready; a queued item only ever moves earlier. */
  afterMs?: number;
  /** Delay by the rate limiter (after takes precedence when longer, as controller-runtime takes the max). */
  rateLimited?: boolean;
}

export interface PriorityQueue<T> extends RateLimitingQueue<T> {
  addWithOpts(opts: AddOpts, ...items: T[]): void;
  /** get() with the priority the item was handed out at. */
  getWithPriority(): Promise<GetResult<T> & { priority: number }>;
}

export interface PriorityQueueOptions<T> {
  rateLimiter?: RateLimiter<T>;
  clock?: Clock;
}

interface Entry {
  priority: number;
  readyAt: number;
  /** Insertion order: FIFO within one priority. */
  seq: number;
  timer?: unknown;
}

class BasicPriorityQueue<T> implements PriorityQueue<T> {
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter<T>;
  /** Queued items (ready or waiting); an item being processed is here only if added again meanwhile. */
  private readonly entries = new Map<T, Entry>();
  private readonly processing = new Set<T>();
  private readonly getters: Array<(r: GetResult<T> & { priority: number }) => void> = [];
  private drainWaiters: Array<() => void> = [];
  private seq = 0;
  private shutting = false;

  constructor(options: PriorityQueueOptions<T>) {
    this.clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  addWithOpts(opts: AddOpts, ...items: T[]): void {
    if (this.shutting) return;
    const priority = opts.priority ?? 0;
    for (const item of items) {
      let delay = Math.max(0, opts.afterMs ?? 0);
      if (opts.rateLimited) delay = Math.max(delay, this.rateLimiter.when(item));
      const readyAt = this.clock.now() + delay;
      const entry = this.entries.get(item);
      if (entry === undefined) {
        this.entries.set(item, { priority, readyAt, seq: this.seq++ });
        this.schedule(item);
        continue;
      }
      if (priority > entry.priority) {
        // A raised priority queues the item behind those already at that priority (FIFO), as controller-runtime.
        this.entries.delete(item);
        this.entries.set(item, { ...entry, priority, seq: this.seq++ });
      }
      if (readyAt < entry.readyAt) {
        this.entries.get(item)!.readyAt = readyAt;
        this.schedule(item);
      }
    }
    this.serve();
  }

  add(item: T): void {
    this.addWithOpts({}, item);
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
    let n = 0;
    const now = this.clock.now();
    for (const [item, e] of this.entries) if (e.readyAt <= now && !this.processing.has(item)) n++;
    return n;
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
    this.processing.delete(item);
    if (this.processing.size === 0) for (const wake of this.drainWaiters.splice(0)) wake();
    this.serve();
  }

  shutDown(): void {
    this.shutting = true;
    for (const e of this.entries.values()) this.clock.clearTimeout(e.timer);
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

  /** The ready item to hand out: highest priority, then oldest; never one already being processed. */
  private takeNext(): { item: T; priority: number } | undefined {
    const now = this.clock.now();
    let best: T | undefined;
    let bestEntry: Entry | undefined;
    for (const [item, e] of this.entries) {
      if (e.readyAt > now || this.processing.has(item)) continue;
      if (bestEntry === undefined || e.priority > bestEntry.priority) {
        best = item;
        bestEntry = e;
      }
    }
    if (bestEntry === undefined) return undefined;
    this.entries.delete(best as T);
    this.processing.add(best as T);
    return { item: best as T, priority: bestEntry.priority };
  }

  private serve(): void {
    while (this.getters.length > 0) {
      const next = this.takeNext();
      if (next === undefined) return;
      this.getters.shift()!({ item: next.item, shutdown: false, priority: next.priority });
    }
  }

  /** Wakes the getters when a waiting item becomes ready. */
  private schedule(item: T): void {
    const entry = this.entries.get(item)!;
    this.clock.clearTimeout(entry.timer);
    entry.timer = undefined;
    const wait = entry.readyAt - this.clock.now();
    if (wait > 0) entry.timer = this.clock.setTimeout(() => this.serve(), wait);
  }
}

/** controller-runtime priorityqueue.New: a RateLimitingQueue with priorities (no workqueue metrics yet). */
export function newPriorityQueue<T>(options: PriorityQueueOptions<T> = {}): PriorityQueue<T> {
  return new BasicPriorityQueue<T>(options);
}
