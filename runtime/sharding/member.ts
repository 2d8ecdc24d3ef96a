// One replica's membership in a sharding group: it renews its own Lease as leader election renews, reads every
// member's Lease, and takes the buckets the assignment gives it only once nobody else holds or claims them.
//
// Safety (no object reconciled by two members at once):
// - A member starts a bucket only after it published a claim and then, in a quorum read made after that write, saw no
//   other live member holding or claiming it. Of two members claiming at once, the later writer reads the earlier's
//   claim, so at most one starts; the other withdraws (the smaller name keeps a tied claim).
// - A member that loses a bucket in the assignment stops starting its keys at once, lets its in-flight reconciles
//   finish, and only then drops it from `held`; the gainer waits for that, or for the loser's Lease to expire.
// - A member that could not renew within renewDeadline (< leaseDuration) stops starting anything before any other
//   member may count its Lease as expired. If a renewal it sent succeeds before any other member may count its Lease
//   as expired (keepLimit), it goes on with its buckets; otherwise it holds nothing until it renews again (then it
//   claims anew).
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { isAlreadyExists } from "../client/api-error.js";
import type { KubeClient } from "../client/kube-client.js";
import { realClock, sleepOn, type Clock, type SleepFunc } from "../clock/clock.js";
import { defaultLogger, type Logger } from "../log/logger.js";
import { microTime } from "../meta/micro-time.js";
import type { Registry } from "prom-client";
import { DEFAULT_BUCKETS, assignBuckets, bucketOf, checkBucketCount, rangesOfBuckets } from "./assignment.js";
import { decodeBuckets, encodeBuckets } from "./bucket-set.js";
import type { ShardField } from "./hash.js";
import {
  BUCKETS_ANNOTATION,
  CLAIMED_ANNOTATION,
  HELD_ANNOTATION,
  SHARDING_GROUP_LABEL,
  kubeMemberLeaseStore,
  type MemberLease,
  type MemberLeaseStore,
} from "./lease-store.js";
import { shardingMetrics, type ShardingMetrics } from "./metrics.js";
import { rangesFraction, subtractRanges, type HashRange } from "./ranges.js";

export interface ShardMemberOptions {
  /** The group's name (--sharding): members of one group share the hash space. */
  name: string;
  /** Where the member Leases live, with kube; or a ready store. */
  kube?: KubeClient;
  namespace?: string;
  store?: MemberLeaseStore;
  /** This member's Lease name. Default `<name>-<hostname>-<random>`, cut to a valid name. */
  identity?: string;
  /** What is hashed: the object's uid (default), or its namespace (children and parents then share a member). */
  field?: ShardField;
  /** Buckets the space is cut into, a power of two; every member of a group must use the same. Default 256. */
  buckets?: number;
  /** As leader election: 15 s, 10 s, 2 s. A Lease unchanged for leaseDuration is a member gone. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  logger?: Logger;
  registry?: Registry;
}

/** What a controller hears from its member. */
export interface ShardListener {
  /** The ranges to list and watch changed; `gained` is what they add (list only that). */
  rangesChanged?(ranges: readonly HashRange[], gained: readonly HashRange[]): void;
  /** These ranges may be reconciled from now on: queue their cached objects. */
  acquired?(ranges: readonly HashRange[]): void;
}

/** What a member asks of a controller before letting a bucket go: the hashes it is reconciling now. */
export interface ShardWorkload {
  inFlightHashes(): Iterable<bigint>;
}

/**
 * The side of a member a controller uses: which ranges to list/watch, whether a key may start, and notifications.
 * ShardMember implements it.
 */
export interface Sharding {
  readonly name: string;
  readonly field: ShardField;
  /** held ∪ claimed ∪ assigned: what informers keep (a superset of what may be reconciled). */
  watchRanges(): readonly HashRange[];
  /** True when an object with this hash may start reconciling on this member now. */
  mayStart(hash: bigint): boolean;
  subscribe(listener: ShardListener): () => void;
  attach(workload: ShardWorkload): () => void;
  /** The registry its metrics go to (controllers add theirs there). */
  readonly registry: Registry | undefined;
}

interface Observation {
  resourceVersion: string;
  /** Local clock when this resourceVersion was first seen: expiry counts from here (skew-proof, as leader election). */
  seenAt: number;
  lease: MemberLease;
}

/** When an observed Lease counts as gone on this member's clock: its duration after its version was first seen. */
function expiresAt(o: Observation): number {
  return o.seenAt + (o.lease.spec?.leaseDurationSeconds ?? 0) * 1000;
}

/** A member of a sharding group. run() until stopped, then leave() to hand everything over at once. */
export class ShardMember implements Sharding {
  readonly name: string;
  readonly identity: string;
  readonly field: ShardField;
  readonly buckets: number;
  readonly registry: Registry | undefined;
  private readonly store: MemberLeaseStore;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly sleep: SleepFunc;
  private readonly log: Logger;
  private nameTakenReported = false;
  private readonly metrics: ShardingMetrics;
  private readonly listeners = new Set<ShardListener>();
  private readonly workloads = new Set<ShardWorkload>();
  private readonly observations = new Map<string, Observation>();

  /** Buckets this member reconciles. */
  private held = new Set<number>();
  /** Buckets asked for, not yet started. */
  private claimed = new Set<number>();
  /** What the last successful write published as claimed: only those can be confirmed by the read after it. */
  private publishedClaims = new Set<number>();
  private assigned = new Set<number>();
  private members: string[] = [];
  private own: MemberLease | undefined;
  private lastRenewStart: number | undefined;
  private watched: HashRange[] = [];
  private readyResolve: (() => void) | undefined;
  /** When the first round began. */
  private firstRound: number | undefined;
  private readonly readyPromise: Promise<void>;

  constructor(options: ShardMemberOptions) {
    this.name = options.name;
    this.field = options.field ?? "uid";
    this.buckets = checkBucketCount(options.buckets ?? DEFAULT_BUCKETS);
    this.identity = options.identity ?? defaultMemberName(options.name);
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (this.leaseDurationMs <= this.renewDeadlineMs)
      throw new Error("sharding: leaseDuration must be greater than renewDeadline");
    if (this.renewDeadlineMs <= this.retryPeriodMs) throw new Error("sharding: renewDeadline must exceed retryPeriod");
    if (options.store) this.store = options.store;
    else if (options.kube && options.namespace)
      this.store = kubeMemberLeaseStore(options.kube, options.namespace, options.name);
    else throw new Error("sharding: give either store, or kube with namespace");
    this.clock = options.clock ?? realClock;
    this.sleep = sleepOn(this.clock);
    this.log = (options.logger ?? defaultLogger()).child({ sharding: this.name, member: this.identity });
    this.registry = options.registry;
    this.metrics = shardingMetrics(options.registry);
    this.readyPromise = new Promise((resolve) => (this.readyResolve = resolve));
  }

  /** Resolves once rounds (own Lease written, members read) saw the same members for a retryPeriod. */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  watchRanges(): readonly HashRange[] {
    return this.watched;
  }

  /** The ranges this member reconciles now (none past its renew deadline). */
  heldRanges(): HashRange[] {
    return this.renewedInTime() ? rangesOfBuckets(this.held, this.buckets) : [];
  }

  /** Live members as last read, this one included while its Lease is valid. */
  liveMembers(): readonly string[] {
    return this.members;
  }

  mayStart(hash: bigint): boolean {
    if (!this.renewedInTime()) return false;
    const bucket = bucketOf(hash, this.buckets);
    return this.held.has(bucket) && this.assigned.has(bucket);
  }

  subscribe(listener: ShardListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  attach(workload: ShardWorkload): () => void {
    this.workloads.add(workload);
    return () => this.workloads.delete(workload);
  }

  /** Takes part in the group until signal aborts. The Lease stays (expiring) unless leave() follows. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let again = false;
      try {
        again = await this.round(signal);
      } catch (error) {
        this.log.warn("sharding round failed", { error: String(error) });
      }
      await this.sleep(this.nextRoundInMs(again), signal);
    }
  }

  /**
   * A pending release or a fresh claim is worth another round soon; otherwise renew every retryPeriod, or sooner, just
   * after another member's Lease expires: a killed member's buckets are taken over at Lease + the delay in seeing its
   * last renewal (< retryPeriod), not up to a retryPeriod later still.
   */
  private nextRoundInMs(again: boolean): number {
    let next = again ? Math.min(100, this.retryPeriodMs) : this.retryPeriodMs;
    const now = this.clock.now();
    for (const o of this.observations.values()) {
      if (!o.lease.spec?.holderIdentity) continue;
      // liveOthers counts a Lease gone once expiresAt(o) <= now: one millisecond past that.
      const expiresIn = expiresAt(o) - now;
      if (expiresIn >= 0) next = Math.min(next, expiresIn + 1);
    }
    return next;
  }

  /**
   * Lets everything go at once: call after the controllers stopped (their reconciles finished). Deletes the Lease, so
   * the others take over at their next round instead of after leaseDuration.
   */
  async leave(): Promise<void> {
    this.setHeld(new Set(), new Set());
    const rv = this.own?.metadata.resourceVersion;
    this.own = undefined;
    this.lastRenewStart = undefined;
    try {
      await this.store.delete(this.identity, rv);
      this.log.info("left the sharding group");
    } catch (error) {
      this.log.warn("could not delete the member Lease; it expires after its duration", { error: String(error) });
    }
  }

  /**
   * One round: renew (publishing held and claimed), read the group, then confirm, release and claim buckets. Past the
   * renew deadline nothing starts (mayStart), but a renewal seen to succeed before keepLimit() keeps the buckets: a
   * round whose timer ran late, or whose reply was read late, because the event loop was busy loses nothing.
   */
  async round(signal?: AbortSignal): Promise<boolean> {
    const start = this.clock.now();
    // Past the limit (e.g. the process was paused): others may count the Lease expired and have taken over, so drop
    // everything before writing, and publish nothing held.
    if (start >= this.keepLimit()) this.lose();
    const limit = this.keepLimit();
    const renewed = await this.renew(Math.min(this.renewDeadlineMs, limit - start), signal);
    // A write seen to finish past the limit may have come after someone else took over: it counts for nothing held.
    if (this.clock.now() >= limit) this.lose();
    // It counts from when it was sent: the Lease cannot have changed on the server before.
    if (renewed) this.lastRenewStart = start;
    if (!this.renewedInTime()) return false;
    const leases = await this.store.list(signal);
    this.observe(leases);
    await this.collectGarbage(signal);
    const others = this.liveOthers();
    const membersBefore = this.members.join(",");
    this.updateAssignment(others);
    const changed = this.settleBuckets(others);
    // Ready once the members stayed the same for a retryPeriod since the first round: replicas started together then
    // see each other before their informers list, instead of each listing everything first.
    this.firstRound ??= start;
    if (start - this.firstRound >= this.retryPeriodMs && membersBefore === this.members.join(",")) {
      this.readyResolve?.();
      this.readyResolve = undefined;
    }
    return changed || this.releasePending();
  }

  /** Stops reconciling everything at once: the renew deadline passed. */
  private lose(): void {
    if (this.held.size > 0 || this.claimed.size > 0)
      this.log.error("could not renew the member Lease within the renew deadline: stopped reconciling");
    this.setHeld(new Set(), new Set());
    this.publishedClaims = new Set();
    this.lastRenewStart = undefined;
  }

  private renewedInTime(): boolean {
    return this.lastRenewStart !== undefined && this.clock.now() < this.lastRenewStart + this.renewDeadlineMs;
  }

  /**
   * Until when a renewal still keeps the buckets (Infinity when none was made): another member counts this Lease as
   * gone only in a read made leaseDuration after it first saw the last renewal, and that read shows any write that
   * finished before. Half the gap between renew deadline and Lease is kept for clocks that run at different rates.
   */
  private keepLimit(): number {
    if (this.lastRenewStart === undefined) return Infinity;
    return this.lastRenewStart + (this.renewDeadlineMs + this.leaseDurationMs) / 2;
  }

  /** Writes the own Lease (creating it the first time); false when it could not. */
  private async renew(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const stamp = microTime(new Date(this.clock.now()));
    const lease: MemberLease = {
      metadata: {
        ...(this.own?.metadata ?? { name: this.identity }),
        name: this.identity,
        labels: { ...this.own?.metadata.labels, [SHARDING_GROUP_LABEL]: this.name },
        annotations: {
          ...this.own?.metadata.annotations,
          [HELD_ANNOTATION]: encodeBuckets(this.held, this.buckets),
          [CLAIMED_ANNOTATION]: encodeBuckets(this.claimed, this.buckets),
          [BUCKETS_ANNOTATION]: String(this.buckets),
        },
      },
      spec: {
        holderIdentity: this.identity,
        leaseDurationSeconds: Math.max(1, Math.ceil(this.leaseDurationMs / 1000)),
        acquireTime: this.own?.spec?.acquireTime ?? stamp,
        renewTime: stamp,
      },
    };
    const claims = new Set(this.claimed);
    const call = writeSignal(timeoutMs, signal);
    const both = call.signal;
    try {
      this.own = this.own ? await this.store.update(lease, both) : await this.store.create(lease, both);
      this.publishedClaims = claims;
      return true;
    } catch (error) {
      this.log.debug("member Lease write failed", { error: String(error) });
      // A conflict or a missing Lease: start from what the server has at the next round.
      this.own = (await this.store.list(both).catch(() => [])).find((l) => l.metadata.name === this.identity);
      // The name is taken, yet not by a Lease of this group: a member of another group (or a leftover) holds it, and
      // this member would retry forever without joining. Said once, at error level.
      if (isAlreadyExists(error) && !this.own && !this.nameTakenReported) {
        this.nameTakenReported = true;
        this.log.error(
          "the member Lease name is taken by a Lease outside this sharding group: give the member another identity",
          {
            lease: this.identity,
            store: this.store.description,
          },
        );
      }
      return false;
    } finally {
      call.dispose();
    }
  }

  private observe(leases: readonly MemberLease[]): void {
    const now = this.clock.now();
    const seen = new Set<string>();
    for (const lease of leases) {
      const name = lease.metadata.name;
      seen.add(name);
      if (name === this.identity) continue;
      const rv = lease.metadata.resourceVersion ?? "";
      const before = this.observations.get(name);
      if (before?.resourceVersion === rv) before.lease = lease;
      else this.observations.set(name, { resourceVersion: rv, seenAt: now, lease });
    }
    for (const name of this.observations.keys()) if (!seen.has(name)) this.observations.delete(name);
  }

  /**
   * Deletes the Leases of members gone long ago (unchanged for 10 Lease durations, at least a minute): a Deployment's
   * replicas get new names at every restart, and a killed one never deletes its own. The resourceVersion precondition
   * spares a Lease renewed meanwhile.
   */
  private async collectGarbage(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    for (const [name, o] of this.observations) {
      const duration = (o.lease.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (o.seenAt + Math.max(10 * duration, 60_000) > now) continue;
      try {
        await this.store.delete(name, o.resourceVersion, signal);
        this.observations.delete(name);
        this.log.info("deleted the Lease of a member gone long ago", { lease: name });
      } catch (error) {
        this.log.debug("could not delete a stale member Lease", { lease: name, error: String(error) });
      }
    }
  }

  /** The other members whose Lease changed within its duration (on this member's clock) and uses our bucket count. */
  private liveOthers(): Observation[] {
    const now = this.clock.now();
    const live: Observation[] = [];
    for (const o of this.observations.values()) {
      if (!o.lease.spec?.holderIdentity || expiresAt(o) <= now) continue;
      const buckets = Number(o.lease.metadata.annotations?.[BUCKETS_ANNOTATION] ?? this.buckets);
      if (buckets !== this.buckets) {
        this.log.warn("ignoring a member with another bucket count", { other: o.lease.metadata.name, buckets });
        continue;
      }
      live.push(o);
    }
    return live;
  }

  private updateAssignment(others: readonly Observation[]): void {
    const members = [this.identity, ...others.map((o) => o.lease.metadata.name)].sort();
    if (members.join(",") !== this.members.join(",")) {
      if (this.members.length > 0) this.metrics.rebalances.inc({ sharding: this.name });
      this.log.info("sharding members changed", { members });
      this.members = members;
      this.metrics.members.set({ sharding: this.name }, members.length);
    }
    this.assigned = new Set(assignBuckets(members, this.buckets).get(this.identity) ?? []);
  }

  /** Confirms claims, lets go of buckets no longer assigned and idle, claims free assigned ones; true if any changed. */
  private settleBuckets(others: readonly Observation[]): boolean {
    const { holders, claimants } = this.othersBuckets(others);
    const { held, claimed } = this.confirmClaims(holders, claimants);
    const busy = this.busyBuckets();
    for (const b of held) if (!this.assigned.has(b) && !busy.has(b)) held.delete(b);
    for (const b of this.assigned)
      if (!held.has(b) && !claimed.has(b) && !holders.has(b) && !claimants.has(b)) claimed.add(b);
    for (const b of held) if (holders.has(b)) this.log.error("a bucket held by two members", { bucket: b });
    return this.setHeld(held, claimed);
  }

  /** Who else holds and who else claims each bucket, from the live members' Leases. */
  private othersBuckets(others: readonly Observation[]): {
    holders: Map<number, string[]>;
    claimants: Map<number, string[]>;
  } {
    const holders = new Map<number, string[]>();
    const claimants = new Map<number, string[]>();
    const add = (map: Map<number, string[]>, value: string | undefined, name: string) => {
      for (const b of decodeBuckets(value, this.buckets)) map.set(b, [...(map.get(b) ?? []), name]);
    };
    for (const o of others) {
      add(holders, o.lease.metadata.annotations?.[HELD_ANNOTATION], o.lease.metadata.name);
      add(claimants, o.lease.metadata.annotations?.[CLAIMED_ANNOTATION], o.lease.metadata.name);
    }
    return { holders, claimants };
  }

  /**
   * A claim is confirmed when it was published and the read after that write shows nobody else holding or claiming
   * the bucket; withdrawn when someone holds it or a smaller name claims it too; kept (to confirm later) otherwise.
   */
  private confirmClaims(
    holders: ReadonlyMap<number, string[]>,
    claimants: ReadonlyMap<number, string[]>,
  ): { held: Set<number>; claimed: Set<number> } {
    const held = new Set(this.held);
    const claimed = new Set<number>();
    for (const b of this.claimed) {
      if (!this.assigned.has(b) || holders.has(b)) continue;
      const rivals = claimants.get(b) ?? [];
      if (this.publishedClaims.has(b) && rivals.length === 0) held.add(b);
      else if (rivals.every((r) => r > this.identity)) claimed.add(b);
    }
    return { held, claimed };
  }

  /** Buckets with a reconcile in flight. */
  private busyBuckets(): Set<number> {
    const busy = new Set<number>();
    for (const w of this.workloads) for (const h of w.inFlightHashes()) busy.add(bucketOf(h, this.buckets));
    return busy;
  }

  private releasePending(): boolean {
    for (const b of this.held) if (!this.assigned.has(b)) return true;
    return false;
  }

  /** Sets held and claimed, tells listeners what changed; true if either changed. */
  private setHeld(held: Set<number>, claimed: Set<number>): boolean {
    const acquired = [...held].filter((b) => !this.held.has(b));
    const changed = acquired.length > 0 || held.size !== this.held.size || !sameSet(claimed, this.claimed);
    this.held = held;
    this.claimed = claimed;
    this.metrics.ownedFraction.set({ sharding: this.name }, rangesFraction(rangesOfBuckets(held, this.buckets)));
    const watch = rangesOfBuckets(new Set([...held, ...claimed, ...this.assigned]), this.buckets);
    const gained = subtractRanges(watch, this.watched);
    const rangesChanged = gained.length > 0 || subtractRanges(this.watched, watch).length > 0;
    this.watched = watch;
    for (const l of this.listeners) {
      if (rangesChanged) l.rangesChanged?.(watch, gained);
      if (acquired.length > 0) l.acquired?.(rangesOfBuckets(acquired, this.buckets));
    }
    if (acquired.length > 0 || changed) this.log.debug("buckets", { held: held.size, claimed: claimed.size });
    return changed;
  }
}

function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** `<name>-<hostname>-<8 random hex>`, lower-cased and cut to a DNS label's 63 characters. */
export function defaultMemberName(group: string): string {
  const host = hostname()
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-");
  const suffix = randomUUID().slice(0, 8);
  const head = `${group}-${host}`.slice(0, 63 - suffix.length - 1).replace(/-+$/, "");
  return `${head}-${suffix}`;
}

/**
 * A Lease write's signal: aborts with `parent` or after timeoutMs. Not AbortSignal.any([parent, timeout]): Node keeps
 * every such signal in the long-lived parent's dependants (about 75 bytes per renewal, never released:
 * nodejs/node#55351), which grew a member's heap for as long as it ran. dispose() detaches it once the write is over.
 */
function writeSignal(timeoutMs: number, parent?: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const call = new AbortController();
  const onAbort = (): void => call.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(
    () => call.abort(new DOMException("the member Lease write timed out", "TimeoutError")),
    Math.max(1, timeoutMs),
  );
  return {
    signal: call.signal,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onAbort);
    },
  };
}
