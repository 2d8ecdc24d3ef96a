// Ports of client-go tools/leaderelection/leaderelection_test.go (Lease lock): TestTryAcquireOrRenewLeases,
// TestReleaseLeaseLeases, TestReleaseOnCancellation_Leases; and controller-runtime's leader_election_master_status.
// Upstream drives tryAcquireOrRenew on an elector whose observed state it presets; here each case runs the elector on
// a fake clock against a scripted lock (each call takes the next reaction of its verb, like the fake clientset's
// reactors; a call with none left is an error) and stops it once the attempt under test is done.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "@crdgen/runtime/testing";
import { LeaderElector, type Lease, type LeaseLock, type LeaseSpec } from "@crdgen/runtime/leaderelection";
import { Registry, leaderElectionMetric } from "@crdgen/runtime/metrics";

type Verb = "get" | "create" | "update";
type Reaction = (lease?: Lease) => Lease | undefined;

/** A LeaseLock's get answers a 404 with undefined (kubeLeaseLock maps errors.IsNotFound so). */
const notFound: Reaction = () => undefined;

const leaseWith = (spec: LeaseSpec): Lease => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name: "bar", namespace: "foo", resourceVersion: "1" },
  spec,
});

/** The fake clientset: scripted reactions per verb, every call recorded. */
function scriptedLock(reactions: Array<{ verb: Verb; react: Reaction }>) {
  const actions: Verb[] = [];
  const unexpected: Verb[] = [];
  /** What create/update calls stored, in order. */
  const written: LeaseSpec[] = [];
  const take = (verb: Verb, lease?: Lease): Promise<Lease | undefined> => {
    actions.push(verb);
    const i = reactions.findIndex((r) => r.verb === verb);
    if (i < 0) {
      unexpected.push(verb);
      return Promise.reject(new Error(`unreachable action: ${verb}`));
    }
    const [reaction] = reactions.splice(i, 1);
    const result = reaction!.react(lease);
    if (verb !== "get" && result) written.push(structuredClone(result.spec ?? {}));
    return Promise.resolve(structuredClone(result));
  };
  const lock: LeaseLock = {
    description: "foo/bar",
    get: () => take("get"),
    create: async (spec) => (await take("create", leaseWith(spec)))!,
    update: async (lease) => (await take("update", lease))!,
  };
  return { lock, actions, unexpected, written };
}

const flush = () => new Promise<void>((r) => setImmediate(r));
async function advance(clock: FakeClock, ms: number): Promise<void> {
  await flush();
  for (let t = 0; t < ms; t += 10) {
    clock.step(Math.min(10, ms - t));
    await flush();
  }
}

const returnsGiven: Reaction = (lease) => lease;

interface TryAcquireCase {
  name: string;
  reactions: Array<{ verb: Verb; react: Reaction }>;
  /** Upstream's retryAfter: the first attempt fails, the one this much later succeeds. */
  retryAfterMs?: number;
  expectSuccess: boolean;
  transitionLeader: boolean;
  outHolder: string;
  /** onNewLeader's calls; default [outHolder]. run() reports after every attempt, as client-go's acquire loop. */
  reported?: string[];
}

const lockObject = (spec: LeaseSpec | undefined) => () => leaseWith(spec ?? {});

// leaderelection_test.go testTryAcquireOrRenew's table, for leases.
const tryAcquireCases: TryAcquireCase[] = [
  {
    name: "acquire from no object",
    reactions: [
      { verb: "get", react: notFound },
      { verb: "create", react: returnsGiven },
    ],
    expectSuccess: true,
    transitionLeader: false,
    outHolder: "baz",
  },
  {
    name: "acquire from object without annotations",
    reactions: [
      { verb: "get", react: lockObject(undefined) },
      { verb: "update", react: returnsGiven },
    ],
    expectSuccess: true,
    transitionLeader: true,
    outHolder: "baz",
  },
  {
    name: "acquire from led object with the lease duration seconds",
    reactions: [
      { verb: "get", react: lockObject({ holderIdentity: "bing", leaseDurationSeconds: 3 }) },
      { verb: "get", react: lockObject({ holderIdentity: "bing", leaseDurationSeconds: 3 }) },
      { verb: "update", react: returnsGiven },
    ],
    retryAfterMs: 3_000,
    reported: ["bing", "baz"],
    expectSuccess: true,
    transitionLeader: true,
    outHolder: "baz",
  },
  {
    name: "acquire from unled object",
    reactions: [
      { verb: "get", react: lockObject({}) },
      { verb: "update", react: returnsGiven },
    ],
    expectSuccess: true,
    transitionLeader: true,
    outHolder: "baz",
  },
  {
    // Upstream presets an observation long past; a holder with no leaseDurationSeconds is expired at once.
    name: "acquire from led, unacked object",
    reactions: [
      { verb: "get", react: lockObject({ holderIdentity: "bing" }) },
      { verb: "update", react: returnsGiven },
    ],
    expectSuccess: true,
    transitionLeader: true,
    outHolder: "baz",
  },
  {
    name: "acquire from empty led, acked object",
    reactions: [
      { verb: "get", react: lockObject({ holderIdentity: "" }) },
      { verb: "update", react: returnsGiven },
    ],
    expectSuccess: true,
    transitionLeader: true,
    outHolder: "baz",
  },
  {
    // Upstream's record has no duration and stays valid only because its observedTime is stamped nanoseconds after
    // `now`; with a fake clock both are equal, so the acked holder's record carries the elector's 10 s duration.
    name: "don't acquire from led, acked object",
    reactions: [{ verb: "get", react: lockObject({ holderIdentity: "bing", leaseDurationSeconds: 10 }) }],
    expectSuccess: false,
    transitionLeader: false,
    outHolder: "bing",
  },
  {
    name: "renew already acquired object",
    reactions: [
      { verb: "get", react: lockObject({ holderIdentity: "baz" }) },
      { verb: "update", react: returnsGiven },
    ],
    expectSuccess: true,
    transitionLeader: false,
    outHolder: "baz",
  },
];

for (const c of tryAcquireCases) {
  // client-go leaderelection_test.go TestTryAcquireOrRenewLeases.
  test(`TestTryAcquireOrRenewLeases: ${c.name}`, async () => {
    const clock = new FakeClock(Date.parse("2026-12-02T17:00:00Z"));
    const reactionCount = c.reactions.length;
    const { lock, actions, unexpected, written } = scriptedLock(c.reactions);
    const reported: string[] = [];
    let started = 0;
    const retryPeriodMs = c.retryAfterMs ?? 3_000;
    const elector = new LeaderElector({
      lock,
      identity: "baz",
      clock,
      jitterFactor: 0,
      leaseDurationMs: 10_000,
      renewDeadlineMs: 5_000,
      retryPeriodMs,
      onStartedLeading: () => {
        started++;
      },
      onStoppedLeading: () => undefined,
      onNewLeader: (identity) => void reported.push(identity),
    });
    const stop = new AbortController();
    const done = elector.run(stop.signal);
    // The attempt under test (and, with retryAfter, the one after it), then stop before the next renewal.
    await advance(clock, (c.retryAfterMs ?? 0) + 10);
    assert.equal(elector.isLeader(), c.expectSuccess, "result of tryAcquireOrRenew");
    assert.equal(started, c.expectSuccess ? 1 : 0);
    stop.abort();
    await done;
    assert.equal(elector.getLeader(), c.outHolder, "observed holder");
    assert.deepEqual(unexpected, [], "unreachable action: the client was called too many times");
    assert.equal(actions.length, reactionCount, `API interactions: ${actions.join(", ")}`);
    if (c.expectSuccess) assert.equal(written.at(-1)?.leaseTransitions, c.transitionLeader ? 1 : 0, "transitioned");
    assert.deepEqual(reported, c.reported ?? [c.outHolder], "reported leader");
  });
}

function elector(
  lock: LeaseLock,
  clock: FakeClock,
  extra: Partial<ConstructorParameters<typeof LeaderElector>[0]> = {},
) {
  const events: string[] = [];
  const le = new LeaderElector({
    lock,
    identity: "baz",
    clock,
    jitterFactor: 0,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 2_000,
    retryPeriodMs: 1_000,
    onStartedLeading: () => void events.push("baz became leader"),
    onStoppedLeading: () => void events.push("baz stopped leading"),
    onNewLeader: (identity) => void events.push(`new leader "${identity}"`),
    ...extra,
  });
  return { le, events };
}

// client-go leaderelection_test.go TestReleaseLeaseLeases, "release acquired lock from no object".
test("TestReleaseLeaseLeases: release acquired lock from no object", async () => {
  const clock = new FakeClock(Date.parse("2026-12-02T17:00:00Z"));
  const { lock, actions, unexpected, written } = scriptedLock([
    { verb: "get", react: notFound },
    { verb: "create", react: returnsGiven },
    { verb: "update", react: returnsGiven },
  ]);
  const { le, events } = elector(lock, clock, {
    leaseDurationMs: 10_000,
    renewDeadlineMs: 5_000,
    retryPeriodMs: 3_000,
  });
  const done = le.run();
  await advance(clock, 10);
  assert.equal(le.isLeader(), true);
  const released = le.release();
  await advance(clock, 10);
  await released;
  assert.equal(await done, "released");
  assert.equal(le.getLeader(), "", "holder after release");
  assert.deepEqual(unexpected, []);
  assert.deepEqual(actions, ["get", "create", "update"]);
  assert.equal(written.at(-1)?.leaseTransitions, 0, "leader should not have transitioned");
  assert.equal(written.at(-1)?.leaseDurationSeconds, 1);
  // The reported leader follows the release to "" (upstream calls maybeReportTransition after release()).
  assert.deepEqual(events, ['new leader "baz"', "baz became leader", "baz stopped leading", 'new leader ""']);
});

/** A Lease kept like upstream's lockObj, whose renewal (`blockOn`) hangs until resumed and then fails as cancelled. */
function cancellableStore(blockOn: "update" | "get") {
  let lease: Lease | undefined;
  let gets = 0;
  let updates = 0;
  let resume!: () => void;
  const resumed = new Promise<void>((r) => (resume = r));
  let renewCalled!: () => void;
  const onRenewCalled = new Promise<void>((r) => (renewCalled = r));
  const cancelled = () => new Error("context canceled");
  const lock: LeaseLock = {
    description: "foo/bar",
    get: async () => {
      gets++;
      if (lease && blockOn === "get" && gets >= 2) {
        renewCalled();
        await resumed;
        throw cancelled();
      }
      return structuredClone(lease);
    },
    create: (spec) => Promise.resolve(structuredClone((lease = leaseWith(spec)))),
    update: async (next) => {
      updates++;
      // The first renewal: blocks (update), or fails fast so the elector rereads the Lease (get).
      if (updates === 1) {
        if (blockOn === "get") throw new Error("conflict");
        renewCalled();
        await resumed;
        throw cancelled();
      }
      lease = structuredClone(next);
      return structuredClone(lease);
    },
  };
  return { lock, resume, onRenewCalled, lease: () => lease };
}

// client-go leaderelection_test.go TestReleaseOnCancellation_Leases: with ReleaseOnCancel, cancelling the context
// while a renewal hangs (its update, or its read) releases the Lease once the renewal returns the cancellation.
for (const blockOn of ["update", "get"] as const) {
  test(`TestReleaseOnCancellation_Leases: release acquired lock on cancellation of ${blockOn}`, async () => {
    const clock = new FakeClock(Date.parse("2026-12-02T17:00:00Z"));
    const store = cancellableStore(blockOn);
    const { le, events } = elector(store.lock, clock, { releaseOnCancel: true, onNewLeader: () => undefined });
    const stop = new AbortController();
    const done = le.run(stop.signal);
    await advance(clock, 10);
    assert.deepEqual(events, ["baz became leader"], "failed to become the leader");
    let renewCalled = false;
    void store.onRenewCalled.then(() => (renewCalled = true));
    await advance(clock, 1_000);
    assert.equal(renewCalled, true, "the elector failed to renew the lock");
    stop.abort();
    store.resume();
    await advance(clock, 100);
    assert.equal(await done, "released");
    assert.equal(store.lease()?.spec?.holderIdentity, "", "the lock was not released");
    assert.equal(store.lease()?.spec?.leaseDurationSeconds, 1);
    assert.deepEqual(events, ["baz became leader", "baz stopped leading"]);
  });
}

test("without releaseOnCancel (the default), cancelling stops leading and leaves the Lease to expire", async () => {
  const clock = new FakeClock(Date.parse("2026-12-02T17:00:00Z"));
  const store = cancellableStore("update");
  store.resume(); // renewals fail at once
  const { le, events } = elector(store.lock, clock, { onNewLeader: () => undefined });
  const stop = new AbortController();
  const done = le.run(stop.signal);
  await advance(clock, 10);
  stop.abort();
  assert.equal(await done, "released");
  assert.deepEqual(events, ["baz became leader", "baz stopped leading"]);
  assert.equal(store.lease()?.spec?.holderIdentity, "baz", "still held: a standby waits for leaseDuration");
});

// controller-runtime pkg/metrics/leaderelection.go: leader_election_master_status{name}, 1 while leading, else 0;
// client-go sets it off in NewLeaderElector, on after acquire, off when leading stops.
test("leader_election_master_status is 0 from construction, 1 while leading, 0 after", async () => {
  const clock = new FakeClock(Date.parse("2026-12-02T17:00:00Z"));
  const registry = new Registry();
  const status = async () => {
    const values = (await registry.getSingleMetric("leader_election_master_status")?.get())?.values ?? [];
    return values.map((v) => ({ labels: v.labels, value: v.value }));
  };
  const store = cancellableStore("update");
  store.resume();
  const { le } = elector(store.lock, clock, { metric: leaderElectionMetric(registry), metricName: "mysql-operator" });
  assert.deepEqual(await status(), [{ labels: { name: "mysql-operator" }, value: 0 }]);
  const stop = new AbortController();
  const done = le.run(stop.signal);
  await advance(clock, 10);
  assert.deepEqual(await status(), [{ labels: { name: "mysql-operator" }, value: 1 }]);
  stop.abort();
  await done;
  assert.deepEqual(await status(), [{ labels: { name: "mysql-operator" }, value: 0 }]);
  const text = await registry.metrics();
  assert.match(
    text,
    new RegExp(
      "^# HELP leader_election_master_status Gauge of if the reporting system is master of the relevant lease, " +
        "0 indicates backup, 1 indicates master\\. 'name' is the string used to identify the lease\\. " +
        "Please make sure to group by name\\.\\n# TYPE leader_election_master_status gauge\\n" +
        'leader_election_master_status\\{name="mysql-operator"\\} 0$',
      "m",
    ),
  );
});
