// Leader election on a coordination.k8s.io/v1 Lease with client-go semantics: acquire, renew, take over after expiry,
// release.
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { KubeClient } from "../client/kube-client.js";
import { resourcePath } from "../client/resource-client.js";
import { builtinResources } from "../client/builtin-resources.js";
import { isNotFound } from "../client/api-error.js";
import { realClock, type Clock } from "../clock/clock.js";
import type { Logger } from "../log/logger.js";
import { microTime } from "../meta/micro-time.js";

/** coordination.k8s.io/v1 LeaseSpec; the times are RFC3339 MicroTime strings (`2026-12-02T17:00:00.000000Z`). */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [key: string]: unknown };
  spec?: LeaseSpec;
}

/** What the elector needs from storage: a Lease read, create and optimistic (resourceVersion) update. */
export interface LeaseLock {
  /** undefined when the Lease does not exist. */
  get(signal?: AbortSignal): Promise<Lease | undefined>;
  /** Rejects (409 AlreadyExists) when someone else created it first. */
  create(spec: LeaseSpec, signal?: AbortSignal): Promise<Lease>;
  /** Sends lease.metadata.resourceVersion; rejects with 409 Conflict when the Lease changed since. */
  update(lease: Lease, signal?: AbortSignal): Promise<Lease>;
  /** For logs: namespace/name. */
  readonly description: string;
}

/** A LeaseLock on a real API server: `/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}`. */
export function kubeLeaseLock(kube: KubeClient, namespace: string, name: string): LeaseLock {
  const item = resourcePath(builtinResources.leases, namespace, name);
  const collection = resourcePath(builtinResources.leases, namespace);
  const sig = (signal: AbortSignal | undefined) => (signal ? { signal } : {});
  return {
    description: `${namespace}/${name}`,
    async get(signal) {
      try {
        return await kube.request<Lease>({ method: "GET", path: item, ...sig(signal) });
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    create: (spec, signal) =>
      kube.request<Lease>({
        method: "POST",
        path: collection,
        body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name, namespace }, spec },
        ...sig(signal),
      }),
    update: (lease, signal) =>
      kube.request<Lease>({
        method: "PUT",
        path: item,
        body: { ...lease, apiVersion: "coordination.k8s.io/v1", kind: "Lease" },
        ...sig(signal),
      }),
  };
}

/** hostname + "_" + a random UUID, as controller-runtime builds its identity. */
export function defaultLeaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** client-go's LeaderMetric: told the lease name when this candidate starts (on) and stops (off) leading. */
export interface LeaderMetric {
  on(name: string): void;
  off(name: string): void;
}

export interface LeaderElectorOptions {
  /** Either kube (+ namespace, name) or a ready LeaseLock. */
  kube?: KubeClient;
  lock?: LeaseLock;
  namespace?: string;
  name?: string;
  /** Unique per candidate; default defaultLeaderIdentity(). An empty string is an error (client-go's). */
  identity?: string;
  /** How long a standby waits, from when it last saw the Lease change, before taking it over. Default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it gives up leading. Default 10 s. */
  renewDeadlineMs?: number;
  /** Interval between attempts (acquire: jittered). Default 2 s. */
  retryPeriodMs?: number;
  /** Acquire attempts wait retryPeriod × (1 + random × jitterFactor). Default 1.2 (client-go). */
  jitterFactor?: number;
  /**
   * Empty the Lease when run() stops on request (signal aborted, onStartedLeading failed) so a standby takes over at
   * its next attempt instead of after leaseDuration. Default false, as client-go's ReleaseOnCancel and
   * controller-runtime's LeaderElectionReleaseOnCancel: only safe when nothing the leader started outlives run().
   * release() always empties the Lease.
   */
  releaseOnCancel?: boolean;
  /** Called on becoming leader; the signal aborts when leadership ends. The returned promise is awaited on release. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called when leadership ends (lost, released, or the work failed). */
  onStoppedLeading(): void;
  /**
   * As client-go's OnNewLeader: after an attempt (or the release), when the observed holder differs from the last one
   * reported, including this candidate and "" (an emptied Lease); never twice in a row for the same holder.
   */
  onNewLeader?(identity: string): void;
  /**
   * Records leadership (runtime/metrics' leaderElectionMetric: leader_election_master_status); off from construction,
   * as client-go's NewLeaderElector.
   */
  metric?: LeaderMetric;
  /** The metric's `name` label (client-go's LeaderElectionConfig.Name); default the Lease name. */
  metricName?: string;
  clock?: Clock;
  logger?: Logger;
}

/**
 * How run() ended: "stopped" (signal aborted or release() before ever leading), "released" (led, then stopped leading
 * on request; the Lease is emptied with releaseOnCancel or release()), "lost" (could not renew within renewDeadline;
 * the caller should exit, like client-go users do).
 */
export type LeaderElectionOutcome = "stopped" | "released" | "lost";

/**
 * One candidate in a leader election, as client-go's LeaderElector. Expiry is judged on the local
 * clock from when this candidate last observed the Lease change (not the holder's renewTime), so clock skew is
 * harmless.
 */
export class LeaderElector {
  readonly identity: string;
  private readonly lock: LeaseLock;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly jitterFactor: number;
  private readonly clock: Clock;
  private readonly metricName: string;
  private observed: Lease | undefined;
  private observedTime = 0;
  private reportedLeader = "";
  private leading = false;
  private running = false;
  private releaseRequested = false;
  private readonly stop = new AbortController();
  private runPromise: Promise<LeaderElectionOutcome> | undefined;

  constructor(private readonly options: LeaderElectorOptions) {
    if (options.lock) this.lock = options.lock;
    else if (options.kube && options.namespace && options.name)
      this.lock = kubeLeaseLock(options.kube, options.namespace, options.name);
    else throw new Error("LeaderElector: give either lock, or kube with namespace and name");
    this.identity = options.identity ?? defaultLeaderIdentity();
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.jitterFactor = options.jitterFactor ?? 1.2;
    this.clock = options.clock ?? realClock;
    // client-go's NewLeaderElector checks, in its order and words (its JitterFactor constant is 1.2).
    const invalid = (reason: string) => new Error(`LeaderElector: ${reason}`);
    if (this.leaseDurationMs <= this.renewDeadlineMs) throw invalid("leaseDuration must be greater than renewDeadline");
    if (this.renewDeadlineMs <= this.retryPeriodMs * 1.2)
      throw invalid("renewDeadline must be greater than retryPeriod*JitterFactor");
    if (!(this.leaseDurationMs >= 1)) throw invalid("leaseDuration must be greater than zero");
    if (!(this.renewDeadlineMs >= 1)) throw invalid("renewDeadline must be greater than zero");
    if (!(this.retryPeriodMs >= 1)) throw invalid("retryPeriod must be greater than zero");
    if (this.identity === "") throw invalid("Lock identity is empty");
    this.metricName = options.metricName ?? options.name ?? this.lock.description;
    options.metric?.off(this.metricName);
  }

  /** True while this candidate leads (between onStartedLeading and onStoppedLeading). */
  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last observed on the Lease ("" when none). */
  getLeader(): string {
    return this.observed?.spec?.holderIdentity ?? "";
  }

  /**
   * Campaigns until the signal aborts or release() is called, leads while it holds the Lease, and returns when
   * leadership ends. Rejects with the error of onStartedLeading's promise if that fails (after releasing the Lease).
   * On "lost" it returns without waiting for onStartedLeading's work, which sees its signal aborted.
   */
  run(signal?: AbortSignal): Promise<LeaderElectionOutcome> {
    if (this.running) throw new Error("LeaderElector.run: already running");
    this.running = true;
    if (signal?.aborted) this.stop.abort();
    signal?.addEventListener("abort", () => this.stop.abort(), { once: true });
    this.runPromise = this.campaign();
    return this.runPromise;
  }

  /** Stops campaigning; a leader stops its work, then empties the Lease (whatever releaseOnCancel says). */
  async release(): Promise<void> {
    this.releaseRequested = true;
    this.stop.abort();
    await this.runPromise?.catch(() => undefined);
  }

  private async campaign(): Promise<LeaderElectionOutcome> {
    const log = this.options.logger?.child({ lease: this.lock.description, identity: this.identity });
    // Acquire.
    let lastRenewStart: number;
    for (;;) {
      if (this.stop.signal.aborted) return "stopped";
      const start = this.clock.now();
      const acquired = await this.withTimeout(this.renewDeadlineMs, (signal) => this.tryAcquireOrRenew(signal));
      this.maybeReportTransition();
      if (acquired) {
        lastRenewStart = start;
        break;
      }
      await this.sleep(this.retryPeriodMs * (1 + Math.random() * this.jitterFactor), this.stop.signal);
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may run during the awaited request above; TS keeps the narrowing across awaits
    if (this.stop.signal.aborted) {
      // Stopped while the winning request was in flight: start no work (hand the Lease back if asked to).
      if (this.shouldRelease()) await this.releaseLease();
      return "stopped";
    }
    log?.info("acquired lease");
    // Lead.
    this.leading = true;
    this.options.metric?.on(this.metricName);
    const lead = new AbortController();
    const wake = new AbortController();
    let failure: { error: unknown } | undefined;
    const work = Promise.resolve()
      .then(() => this.options.onStartedLeading(lead.signal))
      .then(
        () => undefined,
        (error: unknown) => {
          failure = { error };
          wake.abort();
        },
      );
    const onStop = () => wake.abort();
    this.stop.signal.addEventListener("abort", onStop, { once: true });
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have run (from the logger) since the check above; the listener would miss it
    if (this.stop.signal.aborted) wake.abort();
    let lost = false;
    try {
      // Renew every retryPeriod; give up when renewDeadline passes since the start of the last successful renewal.
      for (;;) {
        const deadline = lastRenewStart + this.renewDeadlineMs;
        await this.sleep(Math.min(this.retryPeriodMs, deadline - this.clock.now()), wake.signal);
        if (wake.signal.aborted) break;
        if (this.clock.now() >= deadline) {
          lost = true;
          break;
        }
        const start = this.clock.now();
        const renewed = await this.withTimeout(deadline - start, (signal) => this.tryAcquireOrRenew(signal));
        this.maybeReportTransition();
        if (renewed) lastRenewStart = start;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- wake may abort during the awaited renewal; TS keeps the narrowing across awaits
        if (wake.signal.aborted) break;
      }
    } finally {
      this.stop.signal.removeEventListener("abort", onStop);
    }
    lead.abort();
    if (lost) {
      // Someone else may take over once the Lease expires: report it at once (client-go's Run returns here too) and
      // leave the work winding down on its aborted signal; the caller is expected to exit (one error line is its to log).
      log?.info("failed to renew lease within the renew deadline");
      this.stopLeading();
      return "lost";
    }
    // Graceful: the work drains first, so a standby never leads while this candidate still works.
    await work;
    this.stopLeading();
    if (!this.shouldRelease()) log?.info("stopped leading; the lease expires after its duration");
    else if (await this.releaseLease()) log?.info("released lease");
    else log?.warn("could not release lease; a standby takes over when it expires");
    if (failure) throw failure.error;
    return "released";
  }

  private shouldRelease(): boolean {
    return this.releaseRequested || this.options.releaseOnCancel === true;
  }

  private stopLeading(): void {
    this.leading = false;
    this.options.metric?.off(this.metricName);
    try {
      this.options.onStoppedLeading();
    } catch (error) {
      this.options.logger?.error("onStoppedLeading threw", { error });
    }
  }

  /** One attempt, as client-go's tryAcquireOrRenew. True when this candidate holds a freshly renewed Lease. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const stamp = microTime(new Date(now));
    const desired: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.leaseDurationMs / 1000)),
      acquireTime: stamp,
      renewTime: stamp,
      leaseTransitions: 0,
    };
    // Fast path: the leader renews its last write without reading first.
    if (this.holdsObserved() && this.isLeaseValid(now) && this.observed) {
      const old = this.observed.spec ?? {};
      try {
        const updated = await this.lock.update(
          {
            ...this.observed,
            spec: { ...desired, acquireTime: old.acquireTime ?? stamp, leaseTransitions: old.leaseTransitions ?? 0 },
          },
          signal,
        );
        this.setObserved(updated);
        return true;
      } catch (error) {
        this.debug("lease renewal failed; rereading", error);
      }
    }
    let current: Lease | undefined;
    try {
      current = await this.lock.get(signal);
    } catch (error) {
      this.debug("lease read failed", error);
      return false;
    }
    if (!current) {
      try {
        this.setObserved(await this.lock.create(desired, signal));
        return true;
      } catch (error) {
        this.debug("lease create failed", error);
        return false;
      }
    }
    // Observed when the GET returned, not when the attempt began (client-go stamps observedTime after the Get): a slow
    // read must not count towards the holder's lease. Validity is still judged against the attempt's start, `now`.
    if (current.metadata.resourceVersion !== this.observed?.metadata.resourceVersion || !this.observed) {
      this.setObserved(current);
    }
    const old = current.spec ?? {};
    const holder = old.holderIdentity ?? "";
    if (holder !== "" && holder !== this.identity && this.isLeaseValid(now)) return false;
    const spec: LeaseSpec =
      holder === this.identity
        ? { ...desired, acquireTime: old.acquireTime ?? stamp, leaseTransitions: old.leaseTransitions ?? 0 }
        : { ...desired, leaseTransitions: (old.leaseTransitions ?? 0) + 1 };
    try {
      this.setObserved(await this.lock.update({ ...current, spec }, signal));
      return true;
    } catch (error) {
      // 409 Conflict: someone else wrote first (e.g. won the takeover); try again later.
      this.debug("lease update failed", error);
      return false;
    }
  }

  /** Empties the holder (leaseDurationSeconds 1) so a standby takes over without waiting; bounded by renewDeadline. */
  private async releaseLease(): Promise<boolean> {
    const deadline = this.clock.now() + this.renewDeadlineMs;
    while (this.clock.now() < deadline) {
      const lease = this.observed;
      if (!lease || lease.spec?.holderIdentity !== this.identity) return false;
      const stamp = microTime(new Date(this.clock.now()));
      try {
        const spec: LeaseSpec = {
          holderIdentity: "",
          leaseDurationSeconds: 1,
          acquireTime: stamp,
          renewTime: stamp,
          leaseTransitions: lease.spec.leaseTransitions ?? 0,
        };
        this.setObserved(
          await this.withTimeout(deadline - this.clock.now(), (signal) => this.lock.update({ ...lease, spec }, signal)),
        );
        this.maybeReportTransition();
        return true;
      } catch (error) {
        this.debug("lease release failed", error);
        const current = await this.withTimeout(deadline - this.clock.now(), (signal) => this.lock.get(signal)).catch(
          () => undefined,
        );
        if (current) this.setObserved(current);
        else await this.sleep(Math.min(this.retryPeriodMs, deadline - this.clock.now()));
      }
    }
    return false;
  }

  /** Records the Lease as seen now: expiry counts from this moment on the local clock. */
  private setObserved(lease: Lease): void {
    this.observed = lease;
    this.observedTime = this.clock.now();
  }

  /**
   * client-go's maybeReportTransition: once per attempt, so a takeover (GET shows the old holder, the update makes us
   * the holder) reports only the outcome.
   */
  private maybeReportTransition(): void {
    const holder = this.getLeader();
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    try {
      this.options.onNewLeader?.(holder);
    } catch (error) {
      this.options.logger?.error("onNewLeader threw", { error });
    }
  }

  private holdsObserved(): boolean {
    return this.observed?.spec?.holderIdentity === this.identity;
  }

  private isLeaseValid(now: number): boolean {
    const seconds = this.observed?.spec?.leaseDurationSeconds ?? 0;
    return this.observedTime + seconds * 1000 > now;
  }

  private debug(message: string, error: unknown): void {
    this.options.logger?.debug(message, {
      lease: this.lock.description,
      identity: this.identity,
      error: String(error),
    });
  }

  /** Runs fn with a signal that aborts after ms on the elector's clock (bounds the API requests of one attempt). */
  private async withTimeout<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const handle = this.clock.setTimeout(() => controller.abort(new Error("lease request timed out")), Math.max(0, ms));
    try {
      return await fn(controller.signal);
    } finally {
      this.clock.clearTimeout(handle);
    }
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted || ms <= 0) {
        resolve();
        return;
      }
      const done = () => {
        this.clock.clearTimeout(handle);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const handle = this.clock.setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}
