// ShardMember on an in-memory Lease store and a fake clock, members' rounds interleaved by the test: after every round
// no bucket may start on two members, and the group converges to the assignment through joins, a graceful leave, a
// kill (the Lease expires), a pause past the Lease (the paused member stops before anyone takes over), and in-flight
// reconciles that hold a bucket until they finish.
import { test } from "node:test";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { FakeClock } from "@crdgen/runtime/testing";
import { Registry } from "@crdgen/runtime/metrics";
import { ApiError, newLogger } from "@crdgen/runtime";
import { ShardMember } from "#runtime/sharding/member.js";
import { HELD_ANNOTATION, type MemberLease, type MemberLeaseStore } from "#runtime/sharding/lease-store.js";
import { assignBuckets, bucketRange } from "#runtime/sharding/assignment.js";

const BUCKETS = 16;
const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** Leases with resourceVersion semantics; list() is a consistent read of every write before it. */
class MemoryLeases implements MemberLeaseStore {
  readonly description = "memory";
  readonly leases = new Map<string, MemberLease>();
  private rv = 0;
  /** Makes every write fail (an API server outage for this member). */
  failWrites = new Set<string>();
  /** Runs before a write is answered (a reply the member reads late: the test moves the clock on). */
  beforeReply: ((name: string) => void) | undefined;

  list(): Promise<MemberLease[]> {
    return Promise.resolve([...this.leases.values()].map((l) => structuredClone(l)));
  }
  create(lease: MemberLease): Promise<MemberLease> {
    if (this.leases.has(lease.metadata.name)) return Promise.reject(conflict());
    return Promise.resolve(this.write(lease));
  }
  update(lease: MemberLease): Promise<MemberLease> {
    if (this.failWrites.has(lease.metadata.name)) return Promise.reject(new Error("unavailable"));
    const current = this.leases.get(lease.metadata.name);
    if (current?.metadata.resourceVersion !== lease.metadata.resourceVersion) return Promise.reject(conflict());
    const written = this.write(lease);
    this.beforeReply?.(lease.metadata.name);
    return Promise.resolve(written);
  }
  delete(name: string, resourceVersion?: string): Promise<void> {
    const current = this.leases.get(name);
    if (resourceVersion && current && current.metadata.resourceVersion !== resourceVersion)
      return Promise.reject(conflict());
    this.leases.delete(name);
    return Promise.resolve();
  }
  private write(lease: MemberLease): MemberLease {
    const stored = structuredClone({ ...lease, metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } });
    this.leases.set(stored.metadata.name, stored);
    return structuredClone(stored);
  }
}

/** A 409 as the API server answers it: Conflict for a stale write, AlreadyExists for a create of a taken name. */
const status409 = (reason: "Conflict" | "AlreadyExists") =>
  new ApiError({ status: 409, method: "PUT", path: "/leases", body: { kind: "Status", code: 409, reason } });
const conflict = () => status409("Conflict");

class Group {
  readonly clock = new FakeClock(1_000_000);
  readonly store = new MemoryLeases();
  readonly members = new Map<string, ShardMember>();
  /** In-flight hashes per member (a controller's reconciles). */
  readonly inFlight = new Map<string, bigint[]>();

  add(name: string): ShardMember {
    const m = new ShardMember({
      name: "g",
      identity: name,
      store: this.store,
      buckets: BUCKETS,
      clock: this.clock,
      registry: new Registry(),
      ...timings,
    });
    m.attach({ inFlightHashes: () => this.inFlight.get(name) ?? [] });
    this.members.set(name, m);
    return m;
  }

  /** Which members may start each bucket now; asserts it is at most one. */
  owners(): Array<string | undefined> {
    return Array.from({ length: BUCKETS }, (_, b) => {
      const hash = bucketRange(b, BUCKETS).start;
      const starting = [...this.members].filter(([, m]) => m.mayStart(hash)).map(([n]) => n);
      assert.ok(starting.length <= 1, `bucket ${b} may start on ${starting.join(" and ")}`);
      return starting[0];
    });
  }

  /** Every running member does one round, time moving on by step; the invariant is checked after each round. */
  async tick(running: readonly string[], stepMs = 500): Promise<void> {
    for (const name of running) {
      await this.members.get(name)?.round();
      this.owners();
    }
    this.clock.step(stepMs);
    this.owners();
  }

  async until(what: string, running: readonly string[], done: () => boolean, maxMs = 60_000): Promise<number> {
    const start = this.clock.now();
    while (!done()) {
      if (this.clock.now() - start > maxMs)
        assert.fail(`${what}: not within ${maxMs} ms (owners ${this.owners().join()})`);
      await this.tick(running);
    }
    return this.clock.now() - start;
  }

  /** Every bucket is started by the member the assignment over `live` gives it. */
  matches(live: readonly string[]): boolean {
    const want = assignBuckets(live, BUCKETS);
    const owners = this.owners();
    return [...want].every(([name, list]) => list.every((b) => owners[b] === name));
  }
}

test("members join one by one: the group converges to the assignment, never two on a bucket", async () => {
  const g = new Group();
  g.add("a");
  await g.until("a alone", ["a"], () => g.matches(["a"]));
  g.add("b");
  await g.until("a+b", ["a", "b"], () => g.matches(["a", "b"]));
  g.add("c");
  const took = await g.until("a+b+c", ["a", "b", "c"], () => g.matches(["a", "b", "c"]));
  assert.ok(took < timings.retryPeriodMs * 3, `join took ${took} ms`);
  assert.deepEqual(g.members.get("a")?.liveMembers(), ["a", "b", "c"]);
});

test("a bucket with a reconcile in flight moves only after it finishes", async () => {
  const g = new Group();
  g.add("a");
  await g.until("a alone", ["a"], () => g.matches(["a"]));
  const toB = assignBuckets(["a", "b"], BUCKETS).get("b") ?? [];
  const busy = toB[0] as number;
  g.inFlight.set("a", [bucketRange(busy, BUCKETS).start + 7n]);
  g.add("b");
  for (let i = 0; i < 20; i++) await g.tick(["a", "b"]);
  const owners = g.owners();
  // a stopped starting it (no longer assigned) and b may not start it yet: a still reconciles there.
  assert.equal(owners[busy], undefined);
  assert.ok(toB.filter((b) => b !== busy).every((b) => owners[b] === "b"));
  g.inFlight.set("a", []);
  await g.until("handover after the reconcile", ["a", "b"], () => g.matches(["a", "b"]));
});

test("a graceful leave hands over within a round; a kill only after the Lease expires", async () => {
  const g = new Group();
  for (const n of ["a", "b", "c"]) g.add(n);
  await g.until("a+b+c", ["a", "b", "c"], () => g.matches(["a", "b", "c"]));
  await g.members.get("c")?.leave();
  g.members.delete("c");
  const leave = await g.until("after c left", ["a", "b"], () => g.matches(["a", "b"]));
  assert.ok(leave <= timings.retryPeriodMs * 2, `leave took ${leave} ms`);

  g.add("d");
  await g.until("a+b+d", ["a", "b", "d"], () => g.matches(["a", "b", "d"]));
  // d is killed: its Lease stays, so its buckets wait for the expiry.
  g.members.delete("d");
  const killed = await g.until("after d was killed", ["a", "b"], () => g.matches(["a", "b"]));
  assert.ok(killed >= timings.leaseDurationMs - 1000, `took over after ${killed} ms, before the Lease expired`);
  assert.ok(killed <= timings.leaseDurationMs + 2 * timings.retryPeriodMs, `kill took ${killed} ms`);
});

test("a member paused past its Lease stops before the others take over, and rejoins without overlap", async () => {
  const g = new Group();
  for (const n of ["a", "b", "c"]) g.add(n);
  await g.until("a+b+c", ["a", "b", "c"], () => g.matches(["a", "b", "c"]));
  const c = g.members.get("c") as ShardMember;
  const mine = assignBuckets(["a", "b", "c"], BUCKETS).get("c") ?? [];
  // c is paused (SIGSTOP): time passes, its rounds do not run. Past renewDeadline it may start nothing, though no
  // round of its own ran since: mayStart reads the clock.
  let paused = 0;
  while (paused < timings.renewDeadlineMs) {
    await g.tick(["a", "b"]);
    paused += 500;
  }
  assert.ok(mine.every((b) => !c.mayStart(bucketRange(b, BUCKETS).start)));
  await g.until("a+b took over", ["a", "b"], () => g.matches(["a", "b"]));
  // SIGCONT: c's first round publishes nothing held; it then claims its buckets back through the protocol.
  await g.until("c back", ["c", "a", "b"], () => g.matches(["a", "b", "c"]));
});

test("a member that cannot write its Lease stops within the renew deadline", async () => {
  const g = new Group();
  for (const n of ["a", "b"]) g.add(n);
  await g.until("a+b", ["a", "b"], () => g.matches(["a", "b"]));
  g.store.failWrites.add("b");
  const b = g.members.get("b") as ShardMember;
  const start = g.clock.now();
  await g.until("b stopped", ["a", "b"], () => b.heldRanges().length === 0, timings.leaseDurationMs);
  assert.ok(g.clock.now() - start <= timings.renewDeadlineMs + 500);
  await g.until("a took over", ["a", "b"], () => g.matches(["a"]));
});

/** The buckets the assignment over a+b gives b start on b, and on b only. */
function bStartsItsBuckets(g: Group): boolean {
  const mine = assignBuckets(["a", "b"], BUCKETS).get("b") ?? [];
  const owners = g.owners();
  return mine.length > 0 && mine.every((bucket) => owners[bucket] === "b");
}

test("a round whose timer ran late, past the renew deadline, keeps the buckets when its renewal succeeds", async () => {
  const g = new Group();
  for (const n of ["a", "b"]) g.add(n);
  await g.until("a+b", ["a", "b"], () => g.matches(["a", "b"]));
  const b = g.members.get("b") as ShardMember;
  // b's event loop is busy (a large LIST): its next round runs 1 s past the renew deadline, a goes on.
  const late = timings.renewDeadlineMs + 1000;
  for (let t = 0; t < late; t += 500) await g.tick(["a"]);
  assert.equal(b.heldRanges().length, 0, "past its deadline b starts nothing");
  await b.round();
  assert.ok(bStartsItsBuckets(g), "b renewed before anyone could count its Lease expired: it goes on");
});

test("a renewal sent in time whose reply is read past the renew deadline keeps the buckets", async () => {
  const g = new Group();
  for (const n of ["a", "b"]) g.add(n);
  await g.until("a+b", ["a", "b"], () => g.matches(["a", "b"]));
  const b = g.members.get("b") as ShardMember;
  await g.tick(["a", "b"]);
  // b's next round starts in time, 9.5 s after its last renewal; the write is answered at once, but b's event loop
  // reads the reply 1 s later, past the deadline of that last renewal.
  for (let t = 500; t < timings.renewDeadlineMs - 500; t += 500) await g.tick(["a"]);
  g.store.beforeReply = (name) => {
    if (name === "b") g.clock.step(1000);
  };
  await b.round();
  g.store.beforeReply = undefined;
  assert.ok(bStartsItsBuckets(g), "the renewal counts from when it was sent");
});

test("a renewal read past the Lease's keep limit drops every bucket, before the others take over", async () => {
  const g = new Group();
  for (const n of ["a", "b"]) g.add(n);
  await g.until("a+b", ["a", "b"], () => g.matches(["a", "b"]));
  const b = g.members.get("b") as ShardMember;
  await g.tick(["a", "b"]);
  g.store.beforeReply = (name) => {
    if (name === "b") g.clock.step(timings.leaseDurationMs);
  };
  await b.round();
  g.store.beforeReply = undefined;
  assert.equal(b.heldRanges().length, 0);
  // Its next write says it holds nothing; it then claims its buckets anew.
  await b.round();
  assert.match(g.store.leases.get("b")?.metadata.annotations?.[HELD_ANNOTATION] ?? "?", /^0+$/);
  await g.until("b back", ["a", "b"], () => g.matches(["a", "b"]));
});

test("the Lease of a member killed long ago is deleted; live members' Leases stay", async () => {
  const g = new Group();
  for (const n of ["a", "b", "c"]) g.add(n);
  await g.until("a+b+c", ["a", "b", "c"], () => g.matches(["a", "b", "c"]));
  g.members.delete("c");
  await g.until("a+b", ["a", "b"], () => g.matches(["a", "b"]));
  assert.ok(g.store.leases.has("c"), "kept while it may still be a slow member");
  const start = g.clock.now();
  // 10 Lease durations after it last changed (it was last seen changing up to a Lease duration before start).
  await g.until("c's Lease deleted", ["a", "b"], () => !g.store.leases.has("c"), 200_000);
  assert.ok(g.clock.now() - start >= 8 * timings.leaseDurationMs, `deleted after ${g.clock.now() - start} ms`);
  assert.deepEqual([...g.store.leases.keys()].sort(), ["a", "b"]);
});

test("a member whose Lease name another group's Lease holds says so once, at error level, and never starts", async () => {
  const lines: string[] = [];
  const logger = newLogger({ level: "debug", write: (line: string) => lines.push(line) });
  const store = new MemoryLeases();
  const clock = new FakeClock(1_000_000);
  // Taken by a Lease this group's list does not show: another group's member named the same.
  const taken: MemberLeaseStore = {
    description: "memory/group=g",
    list: () => store.list(),
    create: (lease) => (lease.metadata.name === "a" ? Promise.reject(status409("AlreadyExists")) : store.create(lease)),
    update: (lease) => store.update(lease),
    delete: (name, rv) => store.delete(name, rv),
  };
  const a = new ShardMember({ name: "g", identity: "a", store: taken, buckets: BUCKETS, clock, logger, ...timings });
  for (let round = 0; round < 5; round++) {
    await a.round();
    clock.step(timings.retryPeriodMs);
  }
  assert.equal(a.heldRanges().length, 0);
  const errors = lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === "error");
  assert.equal(errors.length, 1, lines.join(""));
  assert.match(errors[0]?.msg ?? "", /taken by a Lease outside this sharding group/);
});

test("run: a killed member's buckets are taken over just after its Lease expires, not up to a retryPeriod later", async () => {
  const clock = new FakeClock(1_000_000);
  const store = new MemoryLeases();
  // When member a first read each version of b's Lease: a counts b's Lease duration from then.
  const aFirstSaw = new Map<string, number>();
  const seenBy = (name: string): MemberLeaseStore => ({
    description: "memory",
    list: async () => {
      const leases = await store.list();
      const version = leases.find((l) => l.metadata.name === "b")?.metadata.resourceVersion;
      if (name === "a" && version !== undefined && !aFirstSaw.has(version)) aFirstSaw.set(version, clock.now());
      return leases;
    },
    create: (lease) => store.create(lease),
    update: (lease) => store.update(lease),
    delete: (n, rv) => store.delete(n, rv),
  });
  const member = (name: string) =>
    new ShardMember({ name: "g", identity: name, store: seenBy(name), buckets: BUCKETS, clock, ...timings });
  const a = member("a");
  const b = member("b");
  const stopA = new AbortController();
  const stopB = new AbortController();
  const runs = [a.run(stopA.signal), b.run(stopB.signal)];
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 50) {
      clock.step(50);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const holdsAll = (m: ShardMember) => m.heldRanges().reduce((n, r) => n + (r.end - r.start), 0n) === 1n << 64n;
  await advance(10_000);
  assert.ok(a.heldRanges().length > 0 && b.heldRanges().length > 0, "a and b share the space");
  // Killed (no leave): b's Lease stays as last written.
  stopB.abort();
  const bLastVersion = store.leases.get("b")?.metadata.resourceVersion ?? "";
  let tookOver: number | undefined;
  for (let waited = 0; waited < 30_000 && tookOver === undefined; waited += 50) {
    await advance(50);
    if (holdsAll(a)) tookOver = clock.now();
  }
  assert.ok(tookOver !== undefined, "a took over b's buckets");
  const aSawLast = aFirstSaw.get(bLastVersion);
  assert.ok(aSawLast !== undefined, "a read b's last Lease");
  const after = tookOver - aSawLast;
  assert.ok(after >= timings.leaseDurationMs, `took over ${after} ms after reading b's last Lease: before it expired`);
  // Expiry, then one claim confirmed by the next round (100 ms later), within the 50 ms steps of this loop.
  assert.ok(after <= timings.leaseDurationMs + 300, `took over ${after} ms after reading b's last Lease`);
  stopA.abort();
  await Promise.all(runs);
});

test("renewals leave nothing on the member's long-lived signal (no AbortSignal.any dependants, no listeners)", async () => {
  const g = new Group();
  const a = g.add("a");
  const stop = new AbortController();
  for (let i = 0; i < 50; i++) {
    await a.round(stop.signal);
    g.clock.step(500);
  }
  assert.ok(a.heldRanges().length > 0, "a renewed and holds its buckets");
  assert.equal(getEventListeners(stop.signal, "abort").length, 0);
  // Node keeps every AbortSignal.any() result in each source's kDependantSignals, long-lived sources included
  // (nodejs/node#55351): one entry per renewal that no GC releases.
  const dependants = Object.getOwnPropertySymbols(stop.signal).find((s) => s.description === "kDependantSignals");
  const set = dependants && (stop.signal as unknown as Record<symbol, Set<unknown> | undefined>)[dependants];
  assert.equal(set?.size ?? 0, 0);
});
