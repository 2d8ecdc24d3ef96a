// The controller loop: start informers, wait for their caches, then workers take keys off the queue and reconcile.
import type { KubeClient } from "../client/kube-client.js";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import { ResourceClient, apiVersionOf, groupResource } from "../client/resource-client.js";
import type { SharedIndexInformer } from "../cache/informer.js";
import { fanOutSignal, type FanOutSignal } from "../cache/fan-out-signal.js";
import { SharedInformerFactory } from "../cache/informer-factory.js";
import { informerKey, listerWatcherFor } from "../cache/resource-lister-watcher.js";
import { SharedIndexInformer as Informer } from "../cache/informer.js";
import type { ShardFilter } from "../cache/listerwatcher.js";
import { splitMetaNamespaceKey } from "../cache/keys.js";
import type { RateLimitingQueue } from "../workqueue/rate-limiting-queue.js";
import {
  controllerMetrics,
  type ControllerMetrics,
  type ReconcileOutcome,
  type Registry,
} from "../metrics/prometheus.js";
import { newEventRecorder, type EventRecorder } from "../events/event-recorder.js";
import { ensureFinalizer, removeFinalizer } from "./finalizer.js";
import { newLogger, type Logger } from "../log/logger.js";
import { TerminalError, type ReconcileContext, type ReconcileResult } from "./reconcile.js";
import { describePanic, isPanic, recoveredPanic } from "../panic/panic.js";
import { reconcileDeadline } from "./reconcile-deadline.js";
import { enqueueRequestForOwner, enqueueRequestsFromMapFunc, type WatchSpec } from "../handler/event-handlers.js";
import type { PrimaryWatchOptions } from "../handler/predicates.js";
import { keepManagedFieldsOf, newChildObjects, type ChildObjects } from "../children/child-objects.js";
import type { Sharding } from "../sharding/member.js";
import { ControllerShard, shardedInformerKey } from "./sharded.js";

/** Options a user passes to a generated new<Kind>Controller. */
export interface ControllerOptions extends PrimaryWatchOptions {
  name?: string;
  /** Concurrent reconciles; one key is never reconciled by two workers at once. Default 1, as controller-runtime. */
  workers?: number;
  /** Watch one namespace only (default: all). */
  namespace?: string;
  /** Share informers between controllers (one informer per resource, namespace and selector). */
  informerFactory?: SharedInformerFactory;
  /** How long to wait for the first LIST of every informer before giving up. Default 2 minutes, as controller-runtime. */
  cacheSyncTimeoutMs?: number;
  /** The finalizer the runtime holds while a finalize hook exists. Default `<group>/finalizer`. */
  finalizerName?: string;
  logger?: Logger;
  /** Where controller_runtime_* metrics go. Default: the crdgen registry (metricsRegistry). */
  metricsRegistry?: Registry;
  /**
   * Kinds this controller creates and owns (controller-runtime's Owns()): one informer each (shared through the
   * informer factory, in `namespace` if set) whose events enqueue the key of the child's controller owner of this
   * controller's kind, e.g. `[builtinResources.statefulSets, builtinResources.services]`. Same as calling owns().
   */
  owns?: readonly ResourceDescriptor[];
  /**
   * Other kinds whose events reconcile objects of this controller (controller-runtime's Watches() with
   * EnqueueRequestsFromMapFunc), e.g. Secrets carrying a label, mapped to the cluster they belong to.
   */
  watches?: readonly WatchSpec[];
  /** The server-side apply field manager of ctx.children.apply. Default: the controller name. */
  fieldManager?: string;
  /**
   * Recover a hook's panic (a TypeError, ReferenceError, ... thrown by the engine, or a thrown non-Error): count it
   * in controller_runtime_reconcile_panics_total and handle it as an error, `panic: <value> [recovered]`, requeued
   * with backoff. false: run() stops the controller and rejects with it. Default true, as controller-runtime.
   */
  recoverPanic?: boolean;
  /**
   * A deadline for each reconcile: ctx.signal aborts (reason: a TimeoutError "reconciliation timeout") once it passes,
   * counted in controller_runtime_reconcile_timeouts_total. The hook must pass the signal on: nothing is cut short.
   * Default: none, as controller-runtime's ReconciliationTimeout.
   */
  reconciliationTimeoutMs?: number;
  /**
   * controllerFor queues keys on a priority queue: adds from the initial list (and resyncs, updates that keep the
   * resourceVersion) go in with LOW_PRIORITY, so a change made while the startup backlog drains is reconciled first.
   * Default false, as controller-runtime's UsePriorityQueue when it came. A Controller built by hand uses its queue.
   */
  usePriorityQueue?: boolean;
  /**
   * Shard this controller across the replicas of a sharding group (runManager makes it from --sharding): the primary
   * informer lists and watches only this member's hash ranges, a key is reconciled only by the member that holds its
   * hash, and owned objects' events reach only their owner's member. Default: not sharded.
   */
  sharding?: Sharding;
}

/** controller-runtime's words when Start is called twice. */
const STARTED_TWICE =
  "controller was started more than once. This is likely to be caused by being added to a manager multiple times";

/** What the hooks did for one key: returned a result or failed. */
type HookOutcome =
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- the reconcile hook may return nothing
  { result: ReconcileResult | void } | { error: unknown };

/** A panic with recoverPanic off, on its way out of run() (Go's re-panic); value is what the hook threw. */
class UnrecoveredPanic extends Error {
  constructor(readonly value: unknown) {
    super("unrecovered panic in reconciler", { cause: value });
  }
}

export interface ControllerConfig<T extends KubernetesObject> extends ControllerOptions {
  name: string;
  resource: ResourceDescriptor<T>;
  kube: KubeClient;
  informerFactory: SharedInformerFactory;
  informer: SharedIndexInformer<T>;
  queue: RateLimitingQueue<string>;
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- as ControllerHooks.reconcile: `undefined` would reject reconcilers typed Promise<void>
  reconcile(ctx: ReconcileContext, obj: T): Promise<ReconcileResult | void>;
  finalize?(ctx: ReconcileContext, obj: T): Promise<void>;
}

export class Controller<T extends KubernetesObject> {
  readonly name: string;
  readonly queue: RateLimitingQueue<string>;
  readonly informer: SharedIndexInformer<T>;
  private readonly log: Logger;
  private readonly recorder: EventRecorder;
  private readonly resourceClient: ResourceClient<T>;
  private readonly finalizerName: string;
  private readonly metrics: ControllerMetrics;
  /** Keys a worker is reconciling right now (for the shutdown report). */
  private readonly inFlight = new Set<string>();
  private synced = false;
  /** Owned-kind informers by informer key (owns()). */
  private readonly owned = new Map<string, SharedIndexInformer<KubernetesObject>>();
  /** Informers of owned and watched kinds by "group/plural", for ctx.children. */
  private readonly cachedKinds = new Map<string, SharedIndexInformer<KubernetesObject>>();
  private readonly children: ChildObjects;
  /** The kinds owns() and watches() added, in order, for access(). */
  private readonly ownedKinds: ResourceDescriptor[] = [];
  private readonly watchedKinds: ResourceDescriptor[] = [];
  private started = false;
  private readonly shard: ControllerShard | undefined;

  constructor(private readonly config: ControllerConfig<T>) {
    this.name = config.name;
    this.queue = config.queue;
    this.informer = config.informer;
    this.log = (config.logger ?? newLogger()).child({ controller: config.name });
    this.recorder = newEventRecorder(config.kube, config.name, this.log);
    this.resourceClient = new ResourceClient<T>(config.kube, config.resource);
    this.finalizerName = config.finalizerName ?? `${config.resource.group || "core"}/finalizer`;
    this.metrics = controllerMetrics(config.metricsRegistry);
    this.metrics.register(this.name, config.workers ?? 1);
    const fieldManager = config.fieldManager ?? config.name;
    this.children = newChildObjects(config.kube, fieldManager, (r) => this.cachedKinds.get(kindKey(r)), config.name);
    if (config.sharding) {
      const primary = config.informer as unknown as SharedIndexInformer<KubernetesObject>;
      this.shard = new ControllerShard(config.sharding, config.name, primary, (key) => this.queue.add(key), this.log);
      this.shard.track(primary);
    }
    for (const owned of config.owns ?? []) this.owns(owned);
    for (const watch of config.watches ?? []) this.watches(watch);
  }

  /**
   * Watches `child` objects (controller-runtime's Owns()): their add, update and delete events enqueue the key of the
   * controller owner (the ownerReference with controller: true whose group and kind are this controller's resource).
   * The informer comes from the informer factory and must sync before workers start, so call this before run().
   * Returns the informer (its indexer is a cache of the owned objects).
   */
  owns<C extends KubernetesObject = KubernetesObject>(child: ResourceDescriptor<C>): SharedIndexInformer<C> {
    if (this.started) throw new Error(`controller ${this.name}: owns(${child.kind}) must be called before run()`);
    const scope = this.config.namespace ? { namespace: this.config.namespace } : {};
    const key = this.childInformerKey(informerKey(apiVersionOf(child), child.plural, scope));
    const existing = this.owned.get(key);
    if (existing) return existing as unknown as SharedIndexInformer<C>;
    const informer = this.config.informerFactory.informerFor<KubernetesObject>(
      key,
      () =>
        new Informer<KubernetesObject>({
          name: groupResource(child),
          listerWatcher: listerWatcherFor(new ResourceClient<KubernetesObject>(this.config.kube, child), scope),
          // ctx.children.apply compares against what this controller applied, so its managedFields entry stays.
          transform: keepManagedFieldsOf(this.config.fieldManager ?? this.config.name),
          logger: this.log,
          ...this.childShard(),
        }),
    );
    this.trackChild(informer);
    const toOwner = enqueueRequestForOwner(this.queue, this.config.resource);
    informer.addEventHandler(this.shard ? this.shard.routeByOwner(toOwner, this.config.resource) : toOwner);
    this.owned.set(key, informer);
    this.ownedKinds.push(child);
    this.cachedKinds.set(kindKey(child), informer);
    return informer as unknown as SharedIndexInformer<C>;
  }

  /**
   * Watches another kind (controller-runtime's Watches() with EnqueueRequestsFromMapFunc): each event of a
   * `watch.resource` object (matching `watch.labelSelector`) enqueues the keys `watch.mapToKeys` returns. The cache
   * of that kind is readable through ctx.children. Call before run().
   */
  watches<C extends KubernetesObject = KubernetesObject>(watch: WatchSpec<C>): SharedIndexInformer<C> {
    if (this.started)
      throw new Error(`controller ${this.name}: watches(${watch.resource.kind}) must be called before run()`);
    const scope = {
      ...(this.config.namespace ? { namespace: this.config.namespace } : {}),
      ...(watch.labelSelector ? { labelSelector: watch.labelSelector } : {}),
    };
    const { resource } = watch;
    const informer = this.config.informerFactory.informerFor<C>(
      this.childInformerKey(informerKey(apiVersionOf(resource), resource.plural, scope)),
      () =>
        new Informer<C>({
          name: groupResource(resource),
          listerWatcher: listerWatcherFor(new ResourceClient<C>(this.config.kube, resource), scope),
          transform: keepManagedFieldsOf<C>(this.config.fieldManager ?? this.config.name),
          logger: this.log,
          ...this.childShard<C>(),
        }),
    );
    this.trackChild(informer as unknown as SharedIndexInformer<KubernetesObject>);
    informer.addEventHandler(enqueueRequestsFromMapFunc(this.queue, (obj: C) => watch.mapToKeys(obj)));
    if (!this.cachedKinds.has(kindKey(resource)))
      this.cachedKinds.set(kindKey(resource), informer as unknown as SharedIndexInformer<KubernetesObject>);
    this.watchedKinds.push(resource);
    return informer;
  }

  /** In namespace mode an owned or watched kind's informer is sharded too (the API server filters it). */
  private childShard<C extends KubernetesObject>(): { reflector?: { shard: ShardFilter<C> } } {
    return this.shard?.field === "namespace" ? { reflector: { shard: this.shard.filter<C>() } } : {};
  }

  private childInformerKey(key: string): string {
    return this.shard?.field === "namespace" && this.config.sharding
      ? shardedInformerKey(key, this.config.sharding)
      : key;
  }

  private trackChild(informer: SharedIndexInformer<KubernetesObject>): void {
    if (this.shard?.field === "namespace") this.shard.track(informer);
  }

  /**
   * What this controller reads and writes through the API server, for least-privilege RBAC (rulesFor in
   * runtime/manager; runtime/deploy writes the operator's Roles from it): its resource, whether it holds a finalizer
   * on it, and the kinds owns() and watches() added.
   */
  access(): {
    resource: ResourceDescriptor;
    finalizer: boolean;
    owns: ResourceDescriptor[];
    watches: ResourceDescriptor[];
  } {
    return {
      resource: this.config.resource,
      finalizer: this.config.finalize !== undefined,
      owns: [...this.ownedKinds],
      watches: [...this.watchedKinds],
    };
  }

  /** A sharded controller runs on every replica; any other only in the leader (with leader election on). */
  needLeaderElection(): boolean {
    return this.config.sharding === undefined;
  }

  /** True once run() has seen every informer cache sync (a readiness check for the probe server). */
  hasSynced(): boolean {
    return this.synced;
  }

  /** The keys being reconciled right now; after shutdown starts, the reconciles run() still waits for. */
  inFlightKeys(): string[] {
    return [...this.inFlight];
  }

  /**
   * Runs until `signal` aborts, then stops taking keys (the queue refuses adds, and keys still queued are left alone),
   * lets in-flight reconciles finish (shutDownWithDrain) and resolves. runControllers bounds that wait. A controller
   * runs once: a second run() rejects, as controller-runtime's Start.
   */
  async run(parentSignal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(STARTED_TWICE);
    this.started = true;
    // Informers, workers and every reconcile's requests listen on it: one listener on the caller's signal.
    const run = fanOutSignal(parentSignal);
    // Until the last reconcile finished: the member keeps a bucket while a reconcile of it runs.
    const stopSharding = this.shard?.start();
    try {
      await this.runUntil(run);
    } finally {
      stopSharding?.();
      run.dispose();
    }
  }

  private async runUntil(run: FanOutSignal): Promise<void> {
    const { signal } = run;
    this.config.informerFactory.start(signal);
    const timeoutMs = this.config.cacheSyncTimeoutMs ?? 120_000;
    const synced = await waitWithTimeout(this.config.informerFactory.waitForCacheSync(signal), timeoutMs);
    if (!synced && !signal.aborted) {
      throw new Error(
        `controller ${this.name}: informer caches did not sync within ${timeoutMs / 1000}s (is the CRD installed and is the API server reachable?)`,
      );
    }
    if (synced && !signal.aborted) this.synced = true;
    const onAbort = () => {
      if (this.inFlight.size > 0)
        this.log.info("stopping: waiting for in-flight reconciles", { keys: [...this.inFlight] });
      void this.queue.shutDownWithDrain();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    this.log.info("starting workers", { workers: this.config.workers ?? 1 });
    // A panic that is not recovered stops every worker (Go's would end the process); the first one is thrown.
    let panic: { value: unknown } | undefined;
    const workers = Array.from({ length: this.config.workers ?? 1 }, () =>
      this.worker(signal).catch((value: unknown) => {
        panic ??= { value };
        run.abort();
      }),
    );
    await Promise.all(workers);
    this.log.info("stopped");
    if (panic) throw panic.value;
  }

  private async worker(signal: AbortSignal): Promise<void> {
    // After the signal a worker finishes its current reconcile and takes no further key, even one still queued.
    // Between two keys it yields to the event loop: with a backlog, queue.get() resolves at once, and reconciles that
    // never wait on I/O would otherwise keep timers (Lease renewals) and sockets from running until the queue is empty.
    while (!signal.aborted && (await this.processNextWorkItem(signal))) await yieldToEventLoop();
  }

  /**
   * One turn of a worker: get a key, reconcile it, then forget it or requeue it, then mark it done. False after
   * shutdown. Rejects only with a panic when recoverPanic is false.
   */
  async processNextWorkItem(signal: AbortSignal): Promise<boolean> {
    const { item: key, shutdown } = await this.queue.get();
    if (shutdown) return false;
    if (this.shard && !this.shard.begin(key)) {
      // Another member's key, or one this member is letting go: it queues the key itself when it may start it.
      this.queue.forget(key);
      this.queue.done(key);
      return true;
    }
    this.inFlight.add(key);
    this.metrics.workerStarted(this.name);
    const started = performance.now();
    try {
      await this.reconcileHandler(key, signal);
    } finally {
      this.metrics.observeReconcileTime(this.name, (performance.now() - started) / 1000);
      this.inFlight.delete(key);
      this.shard?.end(key);
      this.queue.done(key);
      this.metrics.workerFinished(this.name);
    }
    return true;
  }

  /**
   * Runs the hooks for key once, as a worker does but without touching the queue (controller-runtime's
   * Controller.Reconcile): under the panic guard and the reconciliation deadline. Resolves with the hook's result;
   * rejects with its error, a recovered panic's `panic: ... [recovered]` error, or (recoverPanic false) the panic.
   */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- the reconcile hook may return nothing
  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    try {
      return await this.reconcileKey(key, signal);
    } catch (error) {
      throw error instanceof UnrecoveredPanic ? error.value : error;
    }
  }

  /** controller-runtime's reconcileHandler: the queue and the metrics after one reconcile, in its order of checks. */
  private async reconcileHandler(key: string, signal: AbortSignal): Promise<void> {
    let outcome: HookOutcome;
    try {
      outcome = { result: await this.reconcileKey(key, signal) };
    } catch (error) {
      if (error instanceof UnrecoveredPanic) throw error.value;
      outcome = { error };
    }
    const label = resultLabel(outcome);
    const terminal = "error" in outcome && outcome.error instanceof TerminalError;
    if ("error" in outcome) {
      if (terminal) this.log.error("reconcile failed terminally; not requeued", { key, error: outcome.error });
      else
        this.log.error("reconcile failed; requeued with backoff", {
          key,
          error: outcome.error,
          requeues: this.queue.numRequeues(key),
        });
    }
    if (label === "requeue_after") {
      // RequeueAfter resets the failure count and schedules exactly one later run.
      this.queue.forget(key);
      this.queue.addAfter(key, (outcome as { result: ReconcileResult }).result.requeueAfter ?? 0);
    } else if (label === "requeue" || (label === "error" && !terminal)) {
      // An error, or requeue: true (not counted as an error): the backoff grows until a reconcile asks for nothing.
      this.queue.addRateLimited(key);
    } else if (label === "success") {
      this.queue.forget(key);
    }
    // A TerminalError is neither requeued nor forgotten (controller-runtime): the key's backoff stands, so a later
    // failure of the same key keeps backing off from where it was.
    this.metrics.reconciled(this.name, label, terminal);
  }

  /**
   * The hooks for key, level-triggered on the cache's current object, under the reconciliation deadline and the
   * panic guard (controller-runtime's Controller.Reconcile around the user's Reconcile). A panic with recoverPanic
   * off comes out as UnrecoveredPanic, so that no caller mistakes it for an error to requeue.
   */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- passes on config.reconcile's result, which may be void
  private async reconcileKey(key: string, controllerSignal: AbortSignal): Promise<ReconcileResult | void> {
    const timeoutMs = this.config.reconciliationTimeoutMs ?? 0;
    const deadline = timeoutMs > 0 ? reconcileDeadline(controllerSignal, timeoutMs) : undefined;
    let panicked = false;
    try {
      // Whatever event queued the key, the input is the cache's object now; gone means nothing left to reconcile
      // (finalizers handle cleanup before this).
      const obj = this.informer.getIndexer().getByKey(key);
      if (!obj) return;
      const ctx = this.reconcileContext(key, deadline?.signal ?? controllerSignal);
      if (!this.config.finalize) return await this.config.reconcile(ctx, obj);
      const finalizers = obj.metadata?.finalizers ?? [];
      if (obj.metadata?.deletionTimestamp) {
        if (!finalizers.includes(this.finalizerName)) return;
        await this.config.finalize(ctx, obj);
        await removeFinalizer(this.resourceClient, obj, this.finalizerName);
        return;
      }
      if (!finalizers.includes(this.finalizerName)) {
        // Add the finalizer before the first reconcile; the resulting update event queues the key again.
        await ensureFinalizer(this.resourceClient, obj, this.finalizerName);
        return;
      }
      return await this.config.reconcile(ctx, obj);
    } catch (thrown) {
      if (!isPanic(thrown)) throw thrown;
      panicked = true;
      this.metrics.reconcilePanicked(this.name);
      if (this.config.recoverPanic !== false) throw recoveredPanic(thrown);
      this.log.info(`Observed a panic in reconciler: ${describePanic(thrown)}`, { key });
      throw new UnrecoveredPanic(thrown);
    } finally {
      // Counted only when the deadline itself fired, not when the controller was stopping (nor after a panic, as Go).
      if (!panicked && deadline?.timedOut()) this.metrics.reconcileTimedOut(this.name);
      deadline?.dispose();
    }
  }

  private reconcileContext(key: string, signal: AbortSignal): ReconcileContext {
    const { namespace, name } = splitMetaNamespaceKey(key);
    return {
      key,
      namespace,
      name,
      log: this.log.child({ key, reconcileID: crypto.randomUUID() }),
      recorder: this.recorder,
      kube: this.config.kube,
      children: this.children,
      signal,
    };
  }
}

/** controller_runtime_reconcile_total's result label, in reconcileHandler's order: error, requeueAfter, requeue. */
function resultLabel(outcome: HookOutcome): ReconcileOutcome {
  if ("error" in outcome) return "error";
  if (outcome.result?.requeueAfter !== undefined && outcome.result.requeueAfter > 0) return "requeue_after";
  return outcome.result?.requeue ? "requeue" : "success";
}

/** Identifies a kind for the children cache lookup. */
function kindKey(resource: ResourceDescriptor): string {
  return `${resource.group}/${resource.plural}`;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function waitWithTimeout(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
