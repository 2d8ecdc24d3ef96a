// One reflector feeding one cache and any number of event handlers, delivered in order (client-go SharedIndexInformer).
import type { KubernetesObject } from "../client/types.js";
import { type Clock, realClock } from "../clock/clock.js";
import { defaultLogger, type Logger } from "../log/logger.js";
import { Indexer, type Indexers, NamespaceIndex, metaNamespaceIndexFunc } from "./indexer.js";
import type { DeletedFinalStateUnknown } from "./keys.js";
import type { ListerWatcher } from "./listerwatcher.js";
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
  /** Deliver updateFunc(obj, obj) for every cached object this often; 0/undefined = never; minimum 1000 ms. */
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
  /** Reflector tuning (page size, watch timeouts, backoff, sleep, random). */
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

  constructor(
    private readonly handler: ResourceEventHandler<T>,
    private readonly informer: { hasSynced(): boolean; unregister(l: Listener<T>): void; name: string },
    private readonly logger: Logger,
  ) {}

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
  private readonly resyncPeriodMs: number;
  private listeners: Array<Listener<T>> = [];
  private started = false;
  private stopped = false;
  private runPromise: Promise<void> | undefined;
  private syncWaiters = new Set<(synced: boolean) => void>();

  constructor(options: SharedIndexInformerOptions<T>) {
    this.name = options.name ?? "informer";
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? defaultLogger();
    const requested = options.resyncPeriodMs ?? 0;
    this.resyncPeriodMs = requested > 0 ? Math.max(requested, MIN_RESYNC_MS) : 0;
    this.indexer = new Indexer<T>({
      indexers: { [NamespaceIndex]: metaNamespaceIndexFunc, ...(options.indexers ?? {}) },
    });
    const userTransform = options.transform ?? dropManagedFields;
    const transform = options.freezeObjects ? (o: T): T => deepFreeze(userTransform(o)) : userTransform;
    this.sink = new IndexerSink<T>(this.indexer, (n) => this.distribute(n), transform);
    this.reflector = new Reflector<T>({
      ...(options.reflector ?? {}),
      listerWatcher: options.listerWatcher,
      sink: {
        add: (o) => this.sink.add(o),
        update: (o) => this.sink.update(o),
        delete: (o) => this.sink.delete(o),
        replace: (items, rv) => {
          this.sink.replace(items, rv);
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
    if (this.stopped) throw new Error(`${this.name}: cannot add an event handler to a stopped informer`);
    const listener = new Listener<T>(
      handler,
      { hasSynced: () => this.hasSynced(), unregister: (l) => this.unregister(l), name: this.name },
      this.logger,
    );
    // Replay and registration happen in one synchronous step, so no change can slip in between.
    this.listeners.push(listener);
    for (const obj of this.indexer.list()) listener.enqueue({ kind: "add", obj, initial: true });
    return listener;
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
    if (this.resyncPeriodMs <= 0) return () => undefined;
    let handle: unknown;
    const tick = (): void => {
      if (signal.aborted) return;
      // Before the first LIST there is nothing to resync.
      if (this.hasSynced()) this.sink.resync();
      handle = this.clock.setTimeout(tick, this.resyncPeriodMs);
    };
    handle = this.clock.setTimeout(tick, this.resyncPeriodMs);
    return () => this.clock.clearTimeout(handle);
  }

  private distribute(n: CacheNotification<T>): void {
    // Snapshot: a handler registered during delivery already got the current cache in its replay.
    const targets = this.listeners.slice();
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
        break;
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
