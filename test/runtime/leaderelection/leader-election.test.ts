// Unit tests for LeaderElector on an in-memory Lease store and a fake clock: acquire, renew, expiry takeover,
// conflicts, release.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "@crdgen/runtime";
import { FakeClock } from "@crdgen/runtime/testing";
import {
  LeaderElector,
  microTime,
  type Lease,
  type LeaseLock,
  type LeaseSpec,
  type LeaderElectorOptions,
} from "@crdgen/runtime/leaderelection";
import { runControllers } from "@crdgen/runtime/manager";

const formatMicroTime = (ms: number): string => microTime(new Date(ms));

/** One Lease with resourceVersion semantics, shared by several candidates. */
class LeaseStore {
  lease: Lease | undefined;
  private rv = 0;
  writes = 0;
  /** Runs before an update is applied (to let a rival write first). */
  beforeUpdate: (() => void) | undefined;

  write(spec: LeaseSpec): Lease {
    this.writes++;
    this.lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "le", namespace: "ns", resourceVersion: String(++this.rv) },
      spec: { ...spec },
    };
    return structuredClone(this.lease);
  }

  /** A candidate's view; set broken to make its requests fail (a partitioned or hung leader). */
  view(): LeaseLock & { broken: boolean } {
    const conflict = (reason: string, code = 409) =>
      new ApiError({
        status: code,
        method: "PUT",
        path: "/le",
        body: { kind: "Status", code, reason, message: reason },
      });
    // The verbs are async so that a broken view's errors reject, as a real client's do.
    /* eslint-disable @typescript-eslint/require-await -- async only to turn throws into rejections */
    const view = {
      description: "ns/le",
      broken: false,
      get: async () => {
        if (view.broken) throw new Error("connection refused");
        return this.lease ? structuredClone(this.lease) : undefined;
      },
      create: async (spec: LeaseSpec) => {
        if (view.broken) throw new Error("connection refused");
        if (this.lease) throw conflict("AlreadyExists");
        return this.write(spec);
      },
      update: async (lease: Lease) => {
        if (view.broken) throw new Error("connection refused");
        this.beforeUpdate?.();
        if (lease.metadata.resourceVersion !== this.lease?.metadata.resourceVersion) throw conflict("Conflict");
        return this.write(lease.spec ?? {});
      },
      /* eslint-enable @typescript-eslint/require-await */
    };
    return view;
  }
}

interface Candidate {
  elector: LeaderElector;
  lock: ReturnType<LeaseStore["view"]>;
  stop: AbortController;
  done: Promise<string>;
  events: Array<{ what: "start" | "stop"; at: number }>;
  leaderSignal: AbortSignal | undefined;
  newLeaders: string[];
}

function candidate(
  store: LeaseStore,
  clock: FakeClock,
  identity: string,
  opts: {
    work?: (s: AbortSignal) => Promise<void>;
    lock?: ReturnType<LeaseStore["view"]>;
    releaseOnCancel?: boolean;
  } = {},
): Candidate {
  const c = {
    lock: opts.lock ?? store.view(),
    stop: new AbortController(),
    events: [],
    leaderSignal: undefined,
    newLeaders: [],
  } as unknown as Candidate;
  c.elector = new LeaderElector({
    lock: c.lock,
    identity,
    clock,
    jitterFactor: 0,
    releaseOnCancel: opts.releaseOnCancel ?? false,
    onStartedLeading: (signal) => {
      c.leaderSignal = signal;
      c.events.push({ what: "start", at: clock.now() });
      return opts.work?.(signal);
    },
    onStoppedLeading: () => void c.events.push({ what: "stop", at: clock.now() }),
    onNewLeader: (id) => void c.newLeaders.push(id),
  });
  c.done = c.elector.run(c.stop.signal);
  return c;
}

const flush = () => new Promise<void>((r) => setImmediate(r));

/** Moves the fake clock forward in 10 ms steps, letting the (in-memory, microtask) requests complete at each step. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  await flush();
  for (let t = 0; t < ms; t += 10) {
    clock.step(Math.min(10, ms - t));
    await flush();
  }
}

const START = Date.parse("2026-12-02T17:00:00Z");

test("a candidate creates the missing Lease and leads: holder, duration, MicroTime acquire/renew times, no transitions", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  const a = candidate(store, clock, "a");
  await advance(clock, 10);
  assert.equal(a.elector.isLeader(), true);
  assert.deepEqual(store.lease?.spec, {
    holderIdentity: "a",
    leaseDurationSeconds: 15,
    acquireTime: "2026-12-02T17:00:00.000000Z",
    renewTime: "2026-12-02T17:00:00.000000Z",
    leaseTransitions: 0,
  });
  assert.deepEqual(a.newLeaders, ["a"]);
  assert.equal(formatMicroTime(START + 1234), "2026-12-02T17:00:01.234000Z");
  a.stop.abort();
  assert.equal(await a.done, "released");
});

test("the leader renews every retryPeriod, keeping acquireTime and leaseTransitions", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  const a = candidate(store, clock, "a");
  await advance(clock, 10);
  const writes = store.writes;
  await advance(clock, 6_000);
  assert.equal(store.writes - writes, 3, "renewed at 2 s, 4 s and 6 s");
  assert.equal(store.lease?.spec?.renewTime, "2026-12-02T17:00:06.000000Z");
  assert.equal(store.lease.spec.acquireTime, "2026-12-02T17:00:00.000000Z");
  assert.equal(store.lease.spec.leaseTransitions, 0);
  a.stop.abort();
  await a.done;
});

test("a standby does not take a valid Lease, and two candidates starting together elect exactly one", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  const a = candidate(store, clock, "a");
  const b = candidate(store, clock, "b");
  await advance(clock, 60_000);
  assert.equal(a.elector.isLeader() !== b.elector.isLeader(), true, "exactly one leads");
  const leader = a.elector.isLeader() ? a : b;
  const standby = leader === a ? b : a;
  assert.equal(store.lease?.spec?.holderIdentity, leader.elector.identity);
  assert.equal(standby.events.length, 0);
  assert.equal(standby.elector.getLeader(), leader.elector.identity);
  assert.deepEqual(standby.newLeaders, [leader.elector.identity]);
  a.stop.abort();
  b.stop.abort();
  await Promise.all([a.done, b.done]);
});

// kubernetes/client-go tools/leaderelection/leaderelection.go, tryAcquireOrRenew: the record returned by Lock.Get is
// stored with setObservedRecord, which stamps observedTime = clock.Now() after the Get returned; isLeaseValid compares
// observedTime + leaseDuration with the attempt's start. leaderelection_test.go, TestTryAcquireOrRenew (case "don't
// acquire from led, acked object": a standby that has just observed a foreign holder does not acquire, the holder
// stays)
// has an instant fake Get; here the first GET takes 3 s of fake time, which must not count towards the holder's lease.
test("a standby counts a foreign Lease's duration from when its GET returned, not from when the request started", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  store.write({
    holderIdentity: "a", // a holder that never renews again
    leaseDurationSeconds: 15,
    acquireTime: formatMicroTime(START),
    renewTime: formatMicroTime(START),
    leaseTransitions: 0,
  });
  const latencyMs = 3_000;
  const view = store.view();
  const instantGet = view.get.bind(view);
  let gets = 0;
  view.get = async (signal) => {
    gets++;
    if (gets === 1) await new Promise<void>((resolve) => clock.setTimeout(resolve, latencyMs));
    return instantGet(signal);
  };
  const b = candidate(store, clock, "b", { lock: view });
  await advance(clock, latencyMs);
  assert.equal(gets, 1);
  assert.equal(b.elector.getLeader(), "a");
  // Observed at START + 3 s, so the Lease is valid until START + 18 s; attempts run every 2 s from START + 3 s on.
  // Stamped at the request's start instead, it would be taken by the attempt at START + 15 s.
  await advance(clock, 15_999); // START + 18.999 s, after the attempts at 15 s and 17 s
  assert.equal(b.elector.isLeader(), false, "not before observedTime + leaseDuration");
  assert.equal(b.events.length, 0);
  // Read through a call: TypeScript would keep store.lease narrowed across the awaits below.
  const spec = (): LeaseSpec | undefined => store.lease?.spec;
  assert.equal(spec()?.holderIdentity, "a");
  await advance(clock, 1); // the attempt at START + 19 s
  assert.equal(b.elector.isLeader(), true);
  assert.deepEqual(b.events, [{ what: "start", at: START + 19_000 }]);
  assert.equal(spec()?.holderIdentity, "b");
  assert.equal(spec()?.leaseTransitions, 1);
  assert.deepEqual(b.newLeaders, ["a", "b"]);
  b.stop.abort();
  await b.done;
});

test("a leader that cannot renew stops leading by renewDeadline; the standby takes over after leaseDuration, leaseTransitions + 1", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  const a = candidate(store, clock, "a");
  await advance(clock, 10);
  const b = candidate(store, clock, "b");
  await advance(clock, 3_990); // a renewed at 2 s and 4 s
  a.lock.broken = true; // a's last good renewal started at 4 s
  const breakAt = clock.now();
  await advance(clock, 30_000);
  assert.deepEqual(
    a.events.map((e) => e.what),
    ["start", "stop"],
  );
  assert.equal(a.leaderSignal?.aborted, true);
  assert.equal(await a.done, "lost");
  const aStop = a.events[1]!.at;
  assert.ok(aStop - breakAt <= 10_000, `a stopped ${aStop - breakAt} ms after its last renewal (renewDeadline 10 s)`);
  const bStart = b.events[0]!.at;
  assert.ok(bStart > aStop, "no overlap");
  // b saw a's 4 s renewal at its 4 s attempt (b retries every 2 s from 0.01 s): expiry at ~19 s, next attempt ≤ 2 s
  // later.
  assert.ok(
    bStart - breakAt >= 15_000 && bStart - breakAt <= 15_000 + 2_000 + 20,
    `b took over ${bStart - breakAt} ms after a's last renewal`,
  );
  assert.equal(store.lease?.spec?.holderIdentity, "b");
  assert.equal(store.lease.spec.leaseTransitions, 1);
  assert.equal(store.lease.spec.acquireTime, formatMicroTime(bStart));
  b.stop.abort();
  await b.done;
});

test("a 409 Conflict on takeover (a rival wrote first) means this candidate does not lead; it retries later", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  store.write({
    holderIdentity: "gone",
    leaseDurationSeconds: 15,
    renewTime: formatMicroTime(START),
    acquireTime: formatMicroTime(START),
    leaseTransitions: 4,
  });
  const b = candidate(store, clock, "b");
  await advance(clock, 14_000);
  assert.equal(b.elector.isLeader(), false, "the Lease is still valid by b's clock");
  let rivalWrites = 0;
  store.beforeUpdate = () => {
    // A rival takes the expired Lease just before b's update lands.
    store.beforeUpdate = undefined;
    rivalWrites++;
    store.write({
      holderIdentity: "rival",
      leaseDurationSeconds: 15,
      renewTime: formatMicroTime(clock.now()),
      acquireTime: formatMicroTime(clock.now()),
      leaseTransitions: 5,
    });
  };
  await advance(clock, 4_000);
  assert.equal(rivalWrites, 1);
  assert.equal(b.elector.isLeader(), false, "b lost the race (409) and the rival's Lease is fresh");
  assert.equal(store.lease?.spec?.holderIdentity, "rival");
  await advance(clock, 20_000); // the rival never renews: b takes over
  assert.equal(b.elector.isLeader(), true);
  assert.equal(store.lease.spec.leaseTransitions, 6);
  b.stop.abort();
  await b.done;
});

test("aborting the leader's signal drains its work, calls onStoppedLeading, then empties the Lease; the standby takes it at its next attempt", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  let drained = false;
  const a = candidate(store, clock, "a", {
    releaseOnCancel: true,
    work: (signal) =>
      new Promise<void>((resolve) =>
        signal.addEventListener("abort", () =>
          clock.setTimeout(() => {
            drained = true;
            resolve();
          }, 500),
        ),
      ),
  });
  await advance(clock, 10);
  const b = candidate(store, clock, "b");
  await advance(clock, 3_000);
  const abortAt = clock.now();
  a.stop.abort();
  await advance(clock, 300);
  assert.equal(a.elector.isLeader(), true, "still leading while the work drains");
  assert.equal(store.lease?.spec?.holderIdentity, "a");
  await advance(clock, 300);
  assert.equal(drained, true);
  assert.equal(await a.done, "released");
  assert.deepEqual(
    a.events.map((e) => e.what),
    ["start", "stop"],
  );
  assert.ok(["", "b"].includes(store.lease.spec.holderIdentity ?? "?"), "emptied (or already taken by b)");
  await advance(clock, 2_000);
  assert.equal(b.elector.isLeader(), true);
  assert.ok(
    b.events[0]!.at - abortAt <= 500 + 2_000 + 20,
    `b led ${b.events[0]!.at - abortAt} ms after the abort (500 ms drain + ≤ 1 retry)`,
  );
  assert.ok(b.events[0]!.at >= a.events[1]!.at, "no overlap");
  assert.equal(store.lease.spec.leaseTransitions, 1);
  b.stop.abort();
  await b.done;
});

test("release() empties the Lease with leaseDurationSeconds 1, like client-go's ReleaseOnCancel", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  const a = candidate(store, clock, "a");
  await advance(clock, 10);
  const released = a.elector.release();
  await advance(clock, 10);
  await released;
  assert.equal(await a.done, "released");
  assert.equal(store.lease?.spec?.holderIdentity, "");
  assert.equal(store.lease.spec.leaseDurationSeconds, 1);
  assert.equal(a.leaderSignal?.aborted, true);
});

test("a failing onStartedLeading releases the Lease (releaseOnCancel) and makes run reject with its error", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  const a = candidate(store, clock, "a", {
    releaseOnCancel: true,
    work: () => Promise.reject(new Error("controller crashed")),
  });
  const outcome = assert.rejects(a.done, /controller crashed/);
  await advance(clock, 10);
  await outcome;
  assert.equal(store.lease?.spec?.holderIdentity, "");
  assert.deepEqual(
    a.events.map((e) => e.what),
    ["start", "stop"],
  );
});

// client-go tools/leaderelection/leaderelection.go NewLeaderElector: its checks, in its order and words.
test("options are validated as in client-go", () => {
  const base = { lock: new LeaseStore().view(), onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
  const invalid = (options: Partial<LeaderElectorOptions>, message: string) =>
    assert.throws(() => new LeaderElector({ ...base, ...options }), { message: `LeaderElector: ${message}` });
  invalid({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }, "leaseDuration must be greater than renewDeadline");
  invalid(
    { renewDeadlineMs: 2_400, retryPeriodMs: 2_000 },
    "renewDeadline must be greater than retryPeriod*JitterFactor",
  );
  invalid({ leaseDurationMs: 0, renewDeadlineMs: -1, retryPeriodMs: -2 }, "leaseDuration must be greater than zero");
  invalid({ leaseDurationMs: 10, renewDeadlineMs: 0, retryPeriodMs: -1 }, "renewDeadline must be greater than zero");
  invalid({ leaseDurationMs: 10, renewDeadlineMs: 5, retryPeriodMs: 0 }, "retryPeriod must be greater than zero");
  invalid({ identity: "" }, "Lock identity is empty");
  assert.throws(
    () => new LeaderElector({ onStartedLeading: () => undefined, onStoppedLeading: () => undefined }),
    /either lock, or kube/,
  );
  assert.match(new LeaderElector(base).identity, /_[0-9a-f-]{36}$/);
});

test("runControllers: a failing controller stops the others and rejects only after they finished draining", async () => {
  const order: string[] = [];
  const slow = {
    name: "slow",
    run: (signal: AbortSignal) =>
      new Promise<void>((resolve) =>
        signal.addEventListener("abort", () =>
          setTimeout(() => {
            order.push("slow drained");
            resolve();
          }, 50),
        ),
      ),
  };
  const failing = { name: "failing", run: () => Promise.reject(new Error("boom")) };
  await assert.rejects(
    runControllers([slow, failing]).finally(() => order.push("rejected")),
    /boom/,
  );
  assert.deepEqual(order, ["slow drained", "rejected"]);
});

test("stopping while the winning request is in flight hands the Lease back without ever leading", async () => {
  const clock = new FakeClock(START);
  const store = new LeaseStore();
  const lock = store.view();
  let letCreate!: () => void;
  const gate = new Promise<void>((r) => (letCreate = r));
  const create = lock.create.bind(lock);
  lock.create = async (spec) => {
    await gate;
    return create(spec);
  };
  let started = false;
  const stop = new AbortController();
  const elector = new LeaderElector({
    lock,
    identity: "a",
    clock,
    releaseOnCancel: true,
    onStartedLeading: () => void (started = true),
    onStoppedLeading: () => undefined,
  });
  const done = elector.run(stop.signal);
  await flush();
  stop.abort();
  letCreate();
  assert.equal(await done, "stopped");
  assert.equal(started, false);
  assert.equal(store.lease?.spec?.holderIdentity, "");
});
