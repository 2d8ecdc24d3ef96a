// Keeps a DeltaSink in step with the API server: LIST, then WATCH from the list's resourceVersion, forever (client-go
// Reflector).
import type { KubernetesObject, ListOptions, WatchEvent } from "../client/types.js";
import {
  type ListerWatcher,
  type ObjectType,
  type ShardFilter,
  WatchErrorEvent,
  isResourceVersionTooLarge,
  isResourceVersionTooOld,
  isRetriableWatchError,
  isStreamInterrupted,
} from "./listerwatcher.js";
import { metaNamespaceKeyFunc } from "./keys.js";
import type { DeltaSink } from "./sink.js";
import { type Clock, type SleepFunc, realClock, sleepOn } from "../clock/clock.js";
import { defaultLogger, type Logger } from "../log/logger.js";
import { Backoff, type BackoffSettings } from "../wait/backoff.js";
import { ListPager } from "./list-pager.js";
import { filterSteps, forEachSteps, runSteps } from "./paced.js";

/** client-go's reflector backoff: 800 ms doubling to 30 s, jitter 1.0, reset after 2 quiet minutes. */
export const reflectorBackoff: Readonly<BackoffSettings> = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 1,
  resetAfterMs: 120_000,
};

/** Any of reflectorBackoff's settings, replaced. */
export type ReflectorBackoffOptions = Partial<BackoffSettings>;

export interface ReflectorOptions<T extends KubernetesObject> {
  listerWatcher: ListerWatcher<T>;
  sink: DeltaSink<T>;
  /** Used in log lines, e.g. "mysqlclusters.example.com". */
  name?: string;
  /**
   * LIST page size for every LIST, relists at a resourceVersion included (client-go WatchListPageSize). Unset:
   * tools/pager's 500 for lists at RV "" or "0" (and for all once the watch cache turned out to be off), and
   * unpaginated lists at a specific RV so that the watch cache can serve them.
   */
  pageSize?: number;
  /**
   * Watch timeoutSeconds is uniform in [min, 2·min). Default and floor 300 (client-go defaultMinWatchTimeout): a
   * smaller value is ignored, as client-go ignores a MinWatchTimeout below 5 minutes.
   */
  minWatchTimeoutSeconds?: number;
  /** Tests only: a minimum watch timeout below the 300 s floor (short watches against a test API server). */
  testMinWatchTimeoutSeconds?: number;
  /**
   * The apiVersion and kind of the watched objects (client-go expectedGVK). A watch event carrying another type is
   * logged as an error and dropped, neither stored nor counted as progress. Default: the ListerWatcher's objectType.
   */
  expectedType?: ObjectType;
  /**
   * Extra seconds after timeoutSeconds before the reflector itself abandons a watch the server did not close
   * (kube-rs WATCH_IDLE_TIMEOUT_MARGIN): guards against half-open connections. Default 5.
   */
  watchDeadlineMarginSeconds?: number;
  backoff?: ReflectorBackoffOptions;
  clock?: Clock;
  /** Waits between retries; defaults to a sleep on clock. */
  sleep?: SleepFunc;
  /** Uniform [0,1) source for jitter and watch timeouts. Default Math.random. */
  random?: () => number;
  /** Where diagnostics go (debug for relists, warn for retried watches, error for failures). Default: the shared pino logger. */
  logger?: Logger;
  /**
   * Streaming list (client-go WatchListClient, KEP-3157): get the initial state as the first events of a WATCH
   * (`sendInitialEvents=true`) instead of a LIST, so the API server streams objects from its watch cache instead of
   * building one large response. The same stream then carries the changes. If the server refuses it (older than
   * 1.27, or the feature off) the reflector falls back to LIST for that round. Default: false, or true when the
   * environment has client-go's feature gate `KUBE_FEATURE_WatchListClient=true` (so a whole operator can opt in).
   */
  useWatchList?: boolean;
  /**
   * List and watch one shard only (KEP-5866 shardSelector, applied by the client too). reshard() moves to another:
   * objects outside it leave the store, and only what it gains is listed.
   */
  shard?: ShardFilter<T>;
}

type WatchOutcome = "closed" | "expired";

/** client-go defaultMinWatchTimeout, in seconds. */
const MIN_WATCH_TIMEOUT_SECONDS = 300;

/** The bookmark annotation that ends a streaming list's initial events (metav1.InitialEventsAnnotationKey). */
export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/** The initial state a streaming list collects until its end bookmark, keyed like the cache. */
interface InitialEvents<T> {
  objects: Map<string, T>;
  ended: boolean;
}

const ABORTED = Symbol("aborted");

/**
 * LIST + WATCH loop. Never gives up and never exits the process: every failure is logged and retried with
 * backoff. run() resolves once signal aborts.
 */
export class Reflector<T extends KubernetesObject> {
  private readonly lw: ListerWatcher<T>;
  private readonly sink: DeltaSink<T>;
  private readonly name: string;
  private readonly pageSize: number | undefined;
  private readonly minWatchTimeout: number;
  private readonly expectedType: ObjectType | undefined;
  private readonly deadlineMargin: number;
  private readonly clock: Clock;
  private readonly sleep: SleepFunc;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly backoff: Backoff;
  private readonly useWatchList: boolean;

  private lastRV = "";
  /** Set after a 410/too-large LIST: the next LIST must be a quorum read (RV ""). */
  private lastRVUnavailable = false;
  /** The RV "0" LIST came back paginated, so the watch cache is off: keep paginating (client-go paginatedResult). */
  private paginatedResult = false;
  private running = false;
  private shard: ShardFilter<T> | undefined;
  /** A shard to move to, applied between two watches. */
  private pendingReshard: { next: ShardFilter<T> | undefined; gained: ShardFilter<T> | undefined } | undefined;
  /** Aborts the watch in progress (reshard() ends it so the next one carries the new selector). */
  private currentWatch: AbortController | undefined;

  constructor(options: ReflectorOptions<T>) {
    this.lw = options.listerWatcher;
    this.sink = options.sink;
    this.name = options.name ?? "reflector";
    this.pageSize = options.pageSize;
    this.minWatchTimeout =
      options.testMinWatchTimeoutSeconds ?? Math.max(MIN_WATCH_TIMEOUT_SECONDS, options.minWatchTimeoutSeconds ?? 0);
    this.expectedType = options.expectedType ?? options.listerWatcher.objectType;
    this.deadlineMargin = options.watchDeadlineMarginSeconds ?? 5;
    this.clock = options.clock ?? realClock;
    this.sleep = options.sleep ?? sleepOn(this.clock);
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? defaultLogger();
    this.backoff = new Backoff({ ...reflectorBackoff, ...options.backoff }, this.clock, this.random);
    this.useWatchList = options.useWatchList ?? process.env["KUBE_FEATURE_WatchListClient"] === "true";
    this.shard = options.shard;
  }

  /**
   * Moves to another shard: `next` is the whole new shard (undefined: everything), `gained` what it adds to the current
   * one (undefined: nothing). Between two watches the store drops what next refuses and the reflector LISTs only
   * `gained`, at its last resourceVersion (resourceVersionMatch=Exact), so that the next WATCH from that version
   * misses nothing; if that version is gone it relists the whole shard. Takes effect at once when not running.
   */
  reshard(next: ShardFilter<T> | undefined, gained: ShardFilter<T> | undefined): void {
    if (!this.running) {
      this.shard = next;
      return;
    }
    // A second change before the first was applied: the gains add up (both lists are filtered by next anyway).
    const earlier = this.pendingReshard?.gained;
    this.pendingReshard = { next, gained: earlier && gained ? joinFilters(earlier, gained) : (gained ?? earlier) };
    this.currentWatch?.abort();
  }

  /** The resourceVersion of the last LIST, watch event or bookmark applied ("" before the first LIST). */
  lastSyncResourceVersion(): string {
    return this.lastRV;
  }

  /** Runs LIST+WATCH until signal aborts. Calling it again while running is logged and ignored. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) {
      this.logger.warn(`${this.name}: reflector is already running`);
      return;
    }
    this.running = true;
    try {
      // Like wait.BackoffUntil(ListAndWatch, sliding): every return from listAndWatch costs one backoff step.
      while (!signal.aborted) {
        try {
          await this.listAndWatch(signal);
        } catch (err) {
          if (isAborted(signal)) break;
          this.logger.error(`${this.name}: list/watch failed, will retry: ${describe(err)}`, { error: err });
        }
        if (isAborted(signal)) break;
        await this.sleep(this.backoff.next(), signal);
      }
    } finally {
      this.running = false;
    }
  }

  private async listAndWatch(signal: AbortSignal): Promise<void> {
    // With useWatchList the first watch of this round streams the initial state; otherwise LIST first.
    let initial: InitialEvents<T> | undefined = this.useWatchList ? { objects: new Map(), ended: false } : undefined;
    if (!initial) await this.list(signal);
    while (!signal.aborted) {
      if (this.pendingReshard && !(await this.applyReshard(signal, initial))) return;
      let outcome: WatchOutcome;
      try {
        outcome = await this.watchOnce(signal, initial);
      } catch (err) {
        if (isAborted(signal)) return;
        if (initial && !initial.ended && !isRetriableWatchError(err)) {
          // client-go: any other failure of the streaming list falls back to a standard LIST for this round.
          this.logger.debug(`${this.name}: streaming list failed, falling back to LIST: ${describe(err)}`);
          initial = undefined;
          await this.list(signal);
          continue;
        }
        if (!isRetriableWatchError(err)) throw err;
        // 429 / connection refused: the server is alive but busy; keep the RV and watch again after backoff.
        this.logger.warn(`${this.name}: watch refused, retrying: ${describe(err)}`);
        await this.sleep(this.backoff.next(), signal);
        continue;
      }
      if (outcome === "expired") {
        // Relist at the last RV (LIST with RV means "not older than"), after the caller's backoff step. A streaming
        // list whose RV is gone streams again at RV "" (the most recent state), like client-go.
        this.logger.debug(`${this.name}: watch expired at resourceVersion ${this.lastRV}, relisting`);
        if (initial && !initial.ended) this.lastRVUnavailable = true;
        return;
      }
      if (initial?.ended) initial = undefined;
      else if (initial && !isAborted(signal) && !this.pendingReshard) {
        // Nothing stored yet: back off (the caller's step), then stream the initial state again.
        throw new Error(
          `streaming list: the watch from resourceVersion ${JSON.stringify(this.lastRV)} closed before its initial events ended`,
        );
      }
      // Closed cleanly (server timeout or our deadline): watch again from the last RV, no relist, no backoff.
    }
  }

  private relistResourceVersion(): string {
    if (this.lastRVUnavailable) return "";
    // Never synced: RV "0" lets the apiserver serve the LIST from its watch cache.
    return this.lastRV === "" ? "0" : this.lastRV;
  }

  private async list(signal: AbortSignal): Promise<void> {
    const rv = this.relistResourceVersion();
    // One pager per LIST, its page size chosen for the first resourceVersion and kept for the retry (client-go).
    const pager = new ListPager<T>((options, sig) => this.lw.list(options, sig), { pageSize: this.listPageSize(rv) });
    const shard = this.shard;
    const shardSelector = shardSelectorOption(shard);
    let result: { items: T[]; resourceVersion: string; paginated: boolean };
    try {
      result = await pager.list({ resourceVersion: rv, ...shardSelector }, signal);
      // Only the RV "0" list tells whether the watch cache serves this resource: a quorum read is always paginated.
      if (rv === "0" && result.paginated) this.paginatedResult = true;
    } catch (err) {
      // 410 (the pager already tried a full list at rv if only a continue token expired) or a too-large RV: the
      // server cannot serve rv; retry at once as a quorum read (RV "").
      if (signal.aborted || !(isResourceVersionTooOld(err) || isResourceVersionTooLarge(err))) throw err;
      this.logger.debug(`${this.name}: list at resourceVersion ${JSON.stringify(rv)} unavailable, listing with ""`);
      this.lastRVUnavailable = true;
      result = await pager.list({ resourceVersion: this.relistResourceVersion(), ...shardSelector }, signal);
    }
    if (signal.aborted) return;
    const items = shard ? await this.inShard(shard, result.items) : result.items;
    const stored = this.sink.replace(items, result.resourceVersion);
    if (stored) await stored;
    this.lastRV = result.resourceVersion;
    this.lastRVUnavailable = false;
  }

  /**
   * The items of shard, telling it whether the server had already filtered them. Hashing a large list is done in
   * chunks with a turn of the event loop between them.
   */
  private async inShard(shard: ShardFilter<T>, items: T[]): Promise<T[]> {
    const filtered = runSteps(filterSteps(items, (o) => shard.matches(o)));
    const kept = filtered instanceof Promise ? await filtered : filtered;
    if (shard.selector !== undefined && items.length > 0) shard.reportServerFiltered?.(kept.length === items.length);
    return kept;
  }

  /**
   * Applies a pending reshard between two watches: drops what the new shard refuses, lists what it gained at the last
   * resourceVersion. False when that version is gone and the caller must relist (after its backoff step).
   */
  private async applyReshard(signal: AbortSignal, initial: InitialEvents<T> | undefined): Promise<boolean> {
    const pending = this.pendingReshard;
    if (!pending) return true;
    this.pendingReshard = undefined;
    const { next, gained } = pending;
    this.shard = next;
    // Still streaming the initial state: the next watch streams it again with the new selector.
    if (initial && !initial.ended) return true;
    if (next) await this.sink.retain?.((o) => next.matches(o));
    if (!gained) return true;
    const pager = new ListPager<T>((options, sig) => this.lw.list(options, sig), { pageSize: 500 });
    try {
      const result = await pager.list(
        {
          resourceVersion: this.lastRV,
          resourceVersionMatch: "Exact",
          ...shardSelectorOption(gained),
        },
        signal,
      );
      if (signal.aborted) return true;
      const added = runSteps(forEachSteps(await this.inShard(gained, result.items), (obj) => this.sink.update(obj)));
      if (added) await added;
      this.logger.debug(`${this.name}: shard changed, listed ${result.items.length} gained objects`);
      return true;
    } catch (err) {
      if (signal.aborted || !(isResourceVersionTooOld(err) || isResourceVersionTooLarge(err))) throw err;
      this.logger.debug(`${this.name}: shard changed and resourceVersion ${this.lastRV} is gone: relisting`);
      return false;
    }
  }

  /** client-go's page size rules for one LIST at rv; 0 = unpaginated. */
  private listPageSize(rv: string): number {
    if (this.pageSize !== undefined) return this.pageSize;
    // The RV "0" list came back paginated, so the watch cache is off: keep the default pages.
    if (this.paginatedResult) return 500;
    // A list at a specific RV is unpaginated so that the watch cache can serve it (no thundering herd on etcd);
    // RV "0" keeps the limit, which the watch cache ignores anyway.
    return rv !== "" && rv !== "0" ? 0 : 500;
  }

  /** One WATCH; with `initial` (not yet ended) it first streams the initial state, stored at its end bookmark. */
  private async watchOnce(signal: AbortSignal, initial?: InitialEvents<T>): Promise<WatchOutcome> {
    const timeoutSeconds = Math.min(
      2 * this.minWatchTimeout - 1,
      Math.floor(this.minWatchTimeout * (1 + this.random())),
    );
    const streaming = initial !== undefined && !initial.ended;
    const startRV = streaming && this.lastRVUnavailable ? "" : this.lastRV;
    const shard = this.shard;
    if (streaming) initial.objects.clear(); // a retry streams the whole initial state again
    const options = this.watchOptions(startRV, timeoutSeconds, streaming);
    const ctrl = new AbortController();
    this.currentWatch = ctrl;
    const onParentAbort = (): void => ctrl.abort();
    signal.addEventListener("abort", onParentAbort, { once: true });
    // A record, not a `let`: flow analysis would keep a local flag at `false` though the timer callback sets it.
    const deadline = { hit: false };
    const deadlineTimer = this.clock.setTimeout(
      () => {
        deadline.hit = true;
        ctrl.abort();
      },
      (timeoutSeconds + this.deadlineMargin) * 1000,
    );
    // A watch started at RV ""/"0" begins with synthetic ADDED events in no RV order: don't track their RVs
    // until the first other event (client-go propagateRVFromStart). A streaming list collects its initial events
    // apart and takes its RV from the end bookmark; every event after that advances the RV, ADDED ones included.
    let propagateRV = streaming || (startRV !== "" && startRV !== "0");
    const started = this.clock.now();
    let events = 0;
    let iterator: AsyncIterator<WatchEvent<T>> | undefined;
    try {
      iterator = this.lw.watch(options, ctrl.signal)[Symbol.asyncIterator]();
      for (;;) {
        const r = await nextOrAbort(iterator, ctrl.signal);
        if (r === ABORTED || r.done) break;
        const ev = r.value;
        if (ev.type === "ERROR") {
          const err = new WatchErrorEvent(ev.object);
          if (isResourceVersionTooOld(err)) return "expired";
          throw err;
        }
        if (this.isUnexpectedType(ev.object)) continue;
        events++;
        // Another shard's object (a server that ignores the selector): not stored, but its version is progress.
        const foreign = shard !== undefined && ev.type !== "BOOKMARK" && !shard.matches(ev.object);
        if (streaming && !initial.ended) {
          const stored = foreign ? undefined : this.collectInitial(initial, ev);
          if (stored) await stored;
          continue;
        }
        if (ev.type !== "ADDED") propagateRV = true;
        if (!foreign) this.apply(ev);
        const rv = ev.object.metadata?.resourceVersion;
        if (propagateRV && rv) this.lastRV = rv;
      }
    } catch (err) {
      if (ctrl.signal.aborted) return "closed";
      if (isResourceVersionTooOld(err)) return "expired";
      if (isStreamInterrupted(err) && (events > 0 || this.clock.now() - started >= 1000)) {
        this.logger.warn(
          `${this.name}: watch stream interrupted, watching again from resourceVersion ${this.lastRV}: ${describe(err)}`,
        );
        return "closed";
      }
      throw err;
    } finally {
      this.clock.clearTimeout(deadlineTimer);
      if (this.currentWatch === ctrl) this.currentWatch = undefined;
      signal.removeEventListener("abort", onParentAbort);
      ctrl.abort();
      if (iterator?.return) iterator.return().catch(() => undefined);
    }
    if (!deadline.hit && !signal.aborted && !this.pendingReshard && events === 0 && this.clock.now() - started < 1000) {
      // client-go VeryShortWatchError: something between us and the server is closing watches; relist after backoff.
      throw new Error(`very short watch: watch from resourceVersion ${startRV} closed within 1s without events`);
    }
    return "closed";
  }

  private watchOptions(startRV: string, timeoutSeconds: number, streaming: boolean): ListOptions {
    return {
      resourceVersion: startRV,
      timeoutSeconds,
      allowWatchBookmarks: true,
      ...shardSelectorOption(this.shard),
      // "Not older than" startRV; RV "" asks for the most recent state (a consistent read).
      ...(streaming ? { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" as const } : {}),
    };
  }

  /** Logs and reports an object of another apiVersion/kind than the watched one (client-go handleAnyWatch). */
  private isUnexpectedType(obj: T): boolean {
    const want = this.expectedType;
    if (!want || (obj.apiVersion === want.apiVersion && obj.kind === want.kind)) return false;
    this.logger.error(
      `${this.name}: expected type ${gvkString(want)}, but watch event object had type ${gvkString(obj)}`,
    );
    return true;
  }

  /**
   * Before its end bookmark a streaming list's events build the initial state, which then replaces the store (a
   * promise while a large replace is in progress).
   */
  private collectInitial(initial: InitialEvents<T>, ev: WatchEvent<T>): void | Promise<void> {
    if (ev.type === "ERROR") return;
    if (ev.type === "BOOKMARK") {
      if (ev.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== "true") return;
      const rv = ev.object.metadata.resourceVersion ?? "";
      const ended = (): void => {
        this.lastRV = rv;
        this.lastRVUnavailable = false;
        initial.ended = true;
        initial.objects.clear();
      };
      const stored = this.sink.replace([...initial.objects.values()], rv);
      if (stored) return stored.then(ended);
      ended();
      return;
    }
    try {
      const key = metaNamespaceKeyFunc(ev.object);
      if (ev.type === "DELETED") initial.objects.delete(key);
      else initial.objects.set(key, ev.object);
    } catch (err) {
      this.logger.error(`${this.name}: unable to apply ${ev.type} event: ${describe(err)}`, { error: err });
    }
  }

  private apply(ev: WatchEvent<T>): void {
    if (ev.type === "ERROR") return;
    try {
      switch (ev.type) {
        case "ADDED":
          this.sink.add(ev.object);
          break;
        case "MODIFIED":
          this.sink.update(ev.object);
          break;
        case "DELETED":
          this.sink.delete(ev.object);
          break;
        case "BOOKMARK":
          // Carries only a resourceVersion; no object changed.
          break;
      }
    } catch (err) {
      // client-go logs store errors and keeps watching; one malformed object must not stop the stream.
      this.logger.error(`${this.name}: unable to apply ${ev.type} event: ${describe(err)}`, { error: err });
    }
  }
}

/**
 * The iterator's next event, or ABORTED as soon as signal aborts (a ListerWatcher may not end its stream promptly).
 * Not Promise.race against one long-lived abort promise: every race would leave a reaction on it holding that
 * event, so a watch would keep every event it ever delivered alive until it ends.
 */
function nextOrAbort<E>(iterator: AsyncIterator<E>, signal: AbortSignal): Promise<IteratorResult<E> | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    // If the abort comes first, a later rejection of next() has nobody to tell: it settles this promise no more.
    iterator.next().then(
      (r) => {
        signal.removeEventListener("abort", onAbort);
        resolve(r);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes the iterator's rejection on unchanged
        reject(err);
      },
    );
  });
}

/** Go's schema.GroupVersionKind.String(): "example.com/v1, Kind=Thing", "/v1, Kind=Pod" for the core group. */
function gvkString(t: { apiVersion?: string; kind?: string }): string {
  const apiVersion = t.apiVersion ?? "";
  const slash = apiVersion.lastIndexOf("/");
  const group = slash >= 0 ? apiVersion.slice(0, slash) : "";
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  return `${group}/${version}, Kind=${t.kind ?? ""}`;
}

/**
 * Reads signal.aborted afresh. TypeScript keeps `signal.aborted` narrowed by an earlier check across awaits,
 * though the signal may abort during any of them.
 */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A shard that is either of two (a reshard's gains added to another's not yet applied). */
function joinFilters<T extends KubernetesObject>(a: ShardFilter<T>, b: ShardFilter<T>): ShardFilter<T> {
  return {
    selector: a.selector === undefined || b.selector === undefined ? undefined : `${a.selector} || ${b.selector}`,
    matches: (obj) => a.matches(obj) || b.matches(obj),
    reportServerFiltered: (filtered) => a.reportServerFiltered?.(filtered),
  };
}

/** The list/watch option that asks the server for a shard's objects only (none when the shard has no selector). */
function shardSelectorOption(
  shard: Pick<ShardFilter<KubernetesObject>, "selector"> | undefined,
): Pick<ListOptions, "shardSelector"> {
  return shard?.selector !== undefined ? { shardSelector: shard.selector } : {};
}
