// One reflector feeding one cache and any number of event handlers, delivered in order (client-go SharedIndexInformer).
import type { KubernetesObject } from "../client/types.js";
import { type Clock, realClock } from "../clock/clock.js";
import { defaultLogger, type Logger } from "../log/logger.js";
import { Indexer, type Indexers, NamespaceIndex, metaNamespaceIndexFunc } from "./indexer.js";
import type { DeletedFinalStateUnknown } from "./keys.js";
import type { ListerWatcher, ShardFilter } from "./listerwatcher.js";
import { Reflector, type ReflectorOptions } from "./reflector.js";
import { type CacheNotification, IndexerSink } from "./sink.js";

/**
 * Callbacks for cache changes. They run after the cache holds the change; per handler one at a time and in order.
 * A returned promise is awaited before that handler's next notification (other handlers are not held up);
 * exceptions and rejections are logged and the next notification is delivered.
 * Objects are the cached objects: read-only.
 */
export interface ResourceEventHandler<T extends KubernetesObject> {
  /** isInInitialList: the object came from the first LIST, or is a replay of the cache to a late handler. */
  addFunc?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /** Also called with (obj, obj) on every resync period. */
  updateFunc?(oldObj: T, newObj: T): void | Promise<void>;
  /** A DeletedFinalStateUnknown when the delete was missed while disconnected (its obj may be stale). */
  deleteFunc?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

export interface ResourceEventHandlerRegistration {
  /** Stops delivery to this handler; notifications still buffered for it are dropped. */
  remove(): void;
  /** The informer has synced and this handler has been given every object of the initial state. */
  hasSynced(): boolean;
  /** This handler's resync period in effect, in ms (after client-go's adjustments); 0 = never resynced. */
  resyncPeriodMs(): number;
}

/** Drops metadata.managedFields (large, and never needed by controllers): the default transform. */
export function dropManagedFields<T extends KubernetesObject>(obj: T): T {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function deepFreeze<T>(obj: T): T {
  if (obj !== null && typeof obj === "object" && !Object.isFrozen(obj)) {
    Object.freeze(obj);
    for (const v of Object.values(obj as object)) deepFreeze(v);
  }
  return obj;
}

export interface SharedIndexInformerOptions<T extends KubernetesObject> {
  listerWatcher: ListerWatcher<T>;
  /**
   * Deliver updateFunc(obj, obj) for every cached object this often, to handlers added without a period of their
   * own (client-go defaultEventHandlerResyncPeriod); 0/undefined = never, and then no handler is ever resynced;
   * minimum 1000 ms.
   */
  resyncPeriodMs?: number;
  /** Applied to each object before it is stored (not to tombstones). Default: dropManagedFields. */
  transform?: (obj: T) => T;
  /** Extra indices; the namespace index is always present. */
  indexers?: Indexers<T>;
  name?: string;
  /** Deep-freeze cached objects so accidental mutation throws (a development aid, like KUBE_CACHE_MUTATION_DETECTOR). */
  freezeObjects?: boolean;
  clock?: Clock;
  /** Where the informer and its reflector log. Default: the shared pino logger (a controller passes its own down). */
  logger?: Logger;
  /** Reflector tuning (page size, watch timeouts, backoff, sleep, random, the shard). */
  reflector?: Omit<ReflectorOptions<T>, "listerWatcher" | "sink" | "name" | "clock" | "logger">;
}

/** client-go minimumResyncPeriod. */
const MIN_RESYNC_MS = 1000;

type Delivery<T extends KubernetesObject> =
  | { kind: "add"; obj: T; initial: boolean }
  | { kind: "update"; oldObj: T; newObj: T }
  | { kind: "delete"; obj: T | DeletedFinalStateUnknown<T> };

/** One handler with its own unbounded buffer (client-go processorListener), so an async handler never blocks the others. */
class Listener<T extends KubernetesObject> implements ResourceEventHandlerRegistration {
  private buffer: Array<Delivery<T> | undefined> = [];
  private head = 0;
  private draining = false;
  private removed = false;
  /** Initial-list adds queued but not yet delivered (synctrack). */
  private pendingInitial = 0;

  /** When this handler is next due for a resync (clock ms). */
  private nextResync = 0;

  constructor(
    private readonly handler: ResourceEventHandler<T>,
    private readonly informer: { hasSynced(): boolean; unregister(l: Listener<T>): void; name: string },
    private readonly logger: Logger,
    /** The period asked for, after the 1 s minimum and the informer's started-check (client-go requestedResyncPeriod). */
    readonly requestedResyncPeriodMs: number,
    private resyncPeriod: number,
    now: number,
  ) {
    this.determineNextResync(now);
  }

  resyncPeriodMs(): number {
    return this.resyncPeriod;
  }

  setResyncPeriod(ms: number): void {
    this.resyncPeriod = ms;
  }

  shouldResync(now: number): boolean {
    return this.resyncPeriod !== 0 && now >= this.nextResync;
  }

  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriod;
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    this.buffer = [];
    this.head = 0;
    this.pendingInitial = 0;
    this.informer.unregister(this);
  }

  hasSynced(): boolean {
    return this.informer.hasSynced() && this.pendingInitial === 0;
  }

  enqueue(d: Delivery<T>): void {
    if (this.removed) return;
    if (d.kind === "add" && d.initial) this.pendingInitial++;
    this.buffer.push(d);
    if (!this.draining) this.drain();
  }

  private drain(): void {
    this.draining = true;
    while (!this.removed && this.head < this.buffer.length) {
      const d = this.buffer[this.head] as Delivery<T>;
      this.buffer[this.head++] = undefined;
      // Drop the delivered prefix now and then so a long-busy handler does not keep a growing array of holes.
      if (this.head > 1024 && this.head * 2 > this.buffer.length) {
        this.buffer = this.buffer.slice(this.head);
        this.head = 0;
      }
      const result = this.deliver(d);
      if (result !== undefined) {
        // Async handler: continue with its next notification only when this one settles.
        result.then(
          () => this.delivered(d),
          (err: unknown) => {
            this.logFailure(d, err);
            this.delivered(d);
          },
        );
        return;
      }
      this.settled(d);
    }
    this.buffer = [];
    this.head = 0;
    this.draining = false;
  }

  private delivered(d: Delivery<T>): void {
    if (this.removed) return;
    this.settled(d);
    this.drain();
  }

  /** Counts a delivered initial add (unless the handler was removed meanwhile, possibly by the handler itself). */
  private settled(d: Delivery<T>): void {
    if (!this.removed && d.kind === "add" && d.initial) this.pendingInitial--;
  }

  /** Calls the handler; returns a promise only when the handler returned one. */
  private deliver(d: Delivery<T>): Promise<unknown> | undefined {
    try {
      let r: unknown;
      if (d.kind === "add") r = this.handler.addFunc?.(d.obj, d.initial);
      else if (d.kind === "update") r = this.handler.updateFunc?.(d.oldObj, d.newObj);
      else r = this.handler.deleteFunc?.(d.obj);
      if (r !== null && typeof r === "object" && typeof (r as { then?: unknown }).then === "function") {
        return Promise.resolve(r);
      }
    } catch (err) {
      this.logFailure(d, err);
    }
    return undefined;
  }

  private logFailure(d: Delivery<T>, err: unknown): void {
    this.logger.error(
      `${this.informer.name}: ${d.kind} handler failed: ${err instanceof Error ? err.message : String(err)}`,
      { error: err },
    );
  }
}

/**
 * A shared informer: lists and watches one resource into an indexed cache and fans changes out to handlers.
 * Delivery order per informer follows the watch; handlers may be added before or after run().
 */
export class SharedIndexInformer<T extends KubernetesObject> {
  readonly name: string;
  private readonly indexer: Indexer<T>;
  private readonly sink: IndexerSink<T>;
  private readonly reflector: Reflector<T>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** The period handlers get when added without one (client-go defaultEventHandlerResyncPeriod). */
  private readonly defaultEventHandlerResyncPeriodMs: number;
  /** How often resync is checked: the smallest handler period before start (client-go resyncCheckPeriod). */
  private resyncCheckPeriod: number;
  /** The handlers due in the resync being delivered (client-go's syncing listeners). */
  private resyncTargets: Array<Listener<T>> = [];
  private listeners: Array<Listener<T>> = [];
  /** A replace is storing or reporting its content (in steps): no resync meanwhile. */
  private replacing = false;
  /** The handlers a replace in progress reports to: those registered when it swapped the new content in. */
  private replaceTargets: Array<Listener<T>> | undefined;
  private started = false;
  private stopped = false;
  private runPromise: Promise<void> | undefined;
  private syncWaiters = new Set<(synced: boolean) => void>();

  constructor(options: SharedIndexInformerOptions<T>) {
    this.name = options.name ?? "informer";
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? defaultLogger();
    const requested = options.resyncPeriodMs ?? 0;
    this.defaultEventHandlerResyncPeriodMs = requested > 0 ? Math.max(requested, MIN_RESYNC_MS) : 0;
    this.resyncCheckPeriod = this.defaultEventHandlerResyncPeriodMs;
    this.indexer = new Indexer<T>({
      indexers: { [NamespaceIndex]: metaNamespaceIndexFunc, ...(options.indexers ?? {}) },
    });
    const userTransform = options.transform ?? dropManagedFields;
    const transform = options.freezeObjects ? (o: T): T => deepFreeze(userTransform(o)) : userTransform;
    this.sink = new IndexerSink<T>(
      this.indexer,
      (n) => this.distribute(n),
      transform,
      // A replace reports its changes in steps: to the handlers there at the swap. One added later got the new
      // content in its replay, and must not get its changes again.
      () => {
        this.replaceTargets = this.listeners.slice();
      },
    );
    this.reflector = new Reflector<T>({
      ...(options.reflector ?? {}),
      listerWatcher: options.listerWatcher,
      sink: {
        add: (o) => this.sink.add(o),
        update: (o) => this.sink.update(o),
        delete: (o) => this.sink.delete(o),
        retain: (keep) => this.sink.retain(keep),
        replace: (items, rv) => {
          this.replacing = true;
          const finish = (): void => {
            this.replacing = false;
            this.replaceTargets = undefined;
          };
          let steps: void | Promise<void> = undefined;
          try {
            steps = this.sink.replace(items, rv);
          } finally {
            if (!steps) finish();
          }
          if (steps) return steps.finally(finish).then(() => this.resolveWaiters(true));
          this.resolveWaiters(true);
        },
      },
      name: this.name,
      clock: this.clock,
      logger: this.logger,
    });
  }

  /**
   * Registers a handler. If the cache already holds objects (the informer is running), the handler first gets
   * each of them as addFunc(obj, true), before any later change (client-go AddEventHandler after start).
   */
  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandlerRegistration {
    return this.addEventHandlerWithResyncPeriod(handler, this.defaultEventHandlerResyncPeriodMs);
  }

  /**
   * addEventHandler with the handler's own resync period in ms (0 = never), with client-go's rules: below 1 s it is
   * raised to 1 s; before run() a period below the informer's check period lowers that period for all handlers,
   * after run() it is raised to the check period; an informer made with no resync period resyncs no handler. Only
   * the handlers that are due get a resync.
   */
  addEventHandlerWithResyncPeriod(
    handler: ResourceEventHandler<T>,
    resyncPeriodMs: number,
  ): ResourceEventHandlerRegistration {
    if (this.stopped) {
      throw new Error(`${this.name}: handler was not added to shared informer because it has stopped already`);
    }
    let period = resyncPeriodMs;
    if (period > 0) {
      if (period < MIN_RESYNC_MS) {
        this.logger.warn(
          `${this.name}: Warning: resync period is too small. Changing it to the minimum allowed value (resyncPeriod ${period} ms, minimumResyncPeriod ${MIN_RESYNC_MS} ms)`,
        );
        period = MIN_RESYNC_MS;
      }
      if (period < this.resyncCheckPeriod) {
        if (this.started) {
          this.logger.warn(
            `${this.name}: Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period (resyncPeriod ${period} ms, resyncCheckPeriod ${this.resyncCheckPeriod} ms)`,
          );
          period = this.resyncCheckPeriod;
        } else {
          this.resyncCheckPeriod = period;
          for (const l of this.listeners) {
            l.setResyncPeriod(this.determineResyncPeriod(l.requestedResyncPeriodMs, period));
          }
        }
      }
    }
    const listener = new Listener<T>(
      handler,
      { hasSynced: () => this.hasSynced(), unregister: (l) => this.unregister(l), name: this.name },
      this.logger,
      period,
      this.determineResyncPeriod(period, this.resyncCheckPeriod),
      this.clock.now(),
    );
    // Replay and registration happen in one synchronous step, so no change can slip in between.
    this.listeners.push(listener);
    for (const obj of this.indexer.list()) listener.enqueue({ kind: "add", obj, initial: true });
    return listener;
  }

  /** How often the informer checks which handlers are due for a resync, in ms; 0 = never (resyncCheckPeriod). */
  resyncCheckPeriodMs(): number {
    return this.resyncCheckPeriod;
  }

  /** client-go determineResyncPeriod: a handler's period given the informer's check period. */
  private determineResyncPeriod(desired: number, check: number): number {
    if (desired === 0) return 0;
    if (check === 0) {
      this.logger.warn(
        `${this.name}: Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing (desired ${desired} ms)`,
      );
      return 0;
    }
    if (desired < check) {
      this.logger.warn(
        `${this.name}: Warning: the specified resyncPeriod is being increased to resyncCheckPeriod (desired ${desired} ms, check ${check} ms)`,
      );
      return check;
    }
    return desired;
  }

  /** True once the first LIST has been stored and its notifications handed to the handlers. */
  hasSynced(): boolean {
    return this.sink.hasReplaced();
  }

  /** Resolves true once synced, false if signal aborts or the informer stops first. */
  waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    if (this.hasSynced()) return Promise.resolve(true);
    if (this.stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => done(false);
      const done = (synced: boolean): void => {
        this.syncWaiters.delete(done);
        signal?.removeEventListener("abort", onAbort);
        resolve(synced);
      };
      this.syncWaiters.add(done);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Runs the reflector (and the resync timer) until signal aborts. A second call returns the first run. */
  run(signal: AbortSignal): Promise<void> {
    if (this.started) {
      this.logger.warn(`${this.name}: informer already started`);
      return this.runPromise ?? Promise.resolve();
    }
    this.started = true;
    this.runPromise = this.runLoop(signal);
    return this.runPromise;
  }

  /** The cache; read it through a Lister. Objects are shared and read-only. */
  getIndexer(): Indexer<T> {
    return this.indexer;
  }

  /** Adds indices, before or after start; existing objects are indexed right away. */
  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  /** The resourceVersion of the last LIST / event / bookmark seen. */
  lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion();
  }

  /**
   * Moves a sharded informer to another shard (see Reflector.reshard): handlers get deletes for the objects it drops
   * and adds for the ones it gains.
   */
  reshard(next: ShardFilter<T> | undefined, gained: ShardFilter<T> | undefined): void {
    this.reflector.reshard(next, gained);
  }

  isStopped(): boolean {
    return this.stopped;
  }

  private async runLoop(signal: AbortSignal): Promise<void> {
    const stopResync = this.startResync(signal);
    try {
      await this.reflector.run(signal);
    } finally {
      stopResync();
      this.stopped = true;
      this.resolveWaiters(false);
    }
  }

  private startResync(signal: AbortSignal): () => void {
    const period = this.resyncCheckPeriod;
    if (period <= 0) return () => undefined;
    let handle: unknown;
    const tick = (): void => {
      if (signal.aborted) return;
      // Before the first LIST there is nothing to resync; during a replace the next tick does it (handlers get the
      // replace's changes before any resync of them).
      if (this.hasSynced() && !this.replacing) this.resyncDueHandlers();
      handle = this.clock.setTimeout(tick, period);
    };
    handle = this.clock.setTimeout(tick, period);
    return () => this.clock.clearTimeout(handle);
  }

  /** client-go sharedProcessor.shouldResync + Resync: every cached object, to the handlers that are due only. */
  private resyncDueHandlers(): void {
    const now = this.clock.now();
    const due = this.listeners.filter((l) => l.shouldResync(now));
    if (due.length === 0) return;
    for (const l of due) l.determineNextResync(now);
    this.resyncTargets = due;
    try {
      this.sink.resync();
    } finally {
      this.resyncTargets = [];
    }
  }

  private distribute(n: CacheNotification<T>): void {
    // Snapshot: a handler registered during delivery already got the current cache in its replay.
    const targets = this.replaceTargets ?? this.listeners.slice();
    let d: Delivery<T>;
    switch (n.type) {
      case "add":
        d = { kind: "add", obj: n.obj, initial: n.isInInitialList };
        break;
      case "update":
        // Same resourceVersion = nothing changed (e.g. a relist); client-go only passes those to handlers that are
        // due for a resync, and resync here is a separate atomic step, so none is.
        if (n.isSync) return;
        d = { kind: "update", oldObj: n.oldObj, newObj: n.newObj };
        break;
      case "sync":
        d = { kind: "update", oldObj: n.obj, newObj: n.obj };
        for (const l of this.resyncTargets) l.enqueue(d);
        return;
      case "delete":
        d = { kind: "delete", obj: n.obj };
        break;
    }
    for (const l of targets) l.enqueue(d);
  }

  private unregister(l: Listener<T>): void {
    this.listeners = this.listeners.filter((x) => x !== l);
  }

  private resolveWaiters(synced: boolean): void {
    if (synced && !this.hasSynced()) return;
    for (const w of Array.from(this.syncWaiters)) w(synced);
  }
}
