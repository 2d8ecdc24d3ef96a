// Leader election against a real kube-apiserver: one leader at a time, release on abort/SIGTERM, takeover after a kill
// -9, lost lease.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { LeaderElector, kubeLeaseLock, type Lease } from "@crdgen/runtime/leaderelection";
import { retryOnConflict, type KubeClient } from "@crdgen/runtime";
import { runControllers } from "@crdgen/runtime/manager";
import { eventually } from "./control-plane.js";

const LEASE_MS = 3_000;
const RENEW_MS = 2_000;
const RETRY_MS = 500;
const NS = "default";
const childScript = path.join(path.dirname(fileURLToPath(import.meta.url)), "leader-election-child.js");

let plane: ControlPlane;
let kube: KubeClient;
const children: ChildProcess[] = [];

before(async () => {
  plane = await startControlPlane();
  kube = plane.kubeClient();
});

after(async () => {
  // A child left behind by a failed test would keep this process (and its pipes) alive.
  for (const proc of children) if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  await (plane as ControlPlane | undefined)?.stop(); // before() may have failed before setting it
});

interface Interval {
  who: string;
  start: number;
  stop?: number;
}

/** An in-process candidate with the short test durations; its leading intervals go into `intervals`. */
function candidate(lease: string, identity: string, intervals: Interval[]) {
  const stop = new AbortController();
  const elector = new LeaderElector({
    kube,
    namespace: NS,
    name: lease,
    identity,
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: RENEW_MS,
    retryPeriodMs: RETRY_MS,
    releaseOnCancel: true,
    onStartedLeading: () => void intervals.push({ who: identity, start: Date.now() }),
    onStoppedLeading: () => {
      const open = intervals.findLast((i) => i.who === identity && i.stop === undefined);
      if (open) open.stop = Date.now();
    },
  });
  const done = elector.run(stop.signal);
  return { elector, stop, done };
}

function assertNoOverlap(intervals: Interval[]): void {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    assert.ok(
      prev.stop !== undefined && prev.stop <= cur.start,
      `${prev.who} [${prev.start}, ${prev.stop}] overlaps ${cur.who} from ${cur.start}`,
    );
  }
}

const getLease = (name: string) => kubeLeaseLock(kube, NS, name).get();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the child candidate; resolves its events as they arrive. */
function child(lease: string, identity: string) {
  const proc: ChildProcess = spawn(process.execPath, [childScript, plane.kubeconfigPath, NS, lease, identity], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(proc);
  const events: Array<{ event: string; at: number; message?: string }> = [];
  let stderr = "";
  proc.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  readline
    .createInterface({ input: proc.stdout! })
    .on("line", (line) => events.push(JSON.parse(line) as { event: string; at: number }));
  // "close", not "exit": stdout may still hold the last lines when the process has exited.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("close", (code, signal) => resolve({ code, signal })),
  );
  const waitFor = (event: string, timeoutMs = 15_000) =>
    eventually(
      `child ${identity} event ${event} (stderr: ${stderr})`,
      () => events.find((e) => e.event === event),
      timeoutMs,
    );
  return { proc, events, exited, waitFor };
}

test("two in-process candidates: exactly one leads, never both; aborting the leader hands the Lease to the standby within ~1 s", async () => {
  const intervals: Interval[] = [];
  const a = candidate("graceful", "a", intervals);
  const b = candidate("graceful", "b", intervals);
  await eventually("a leader", () => (intervals.length > 0 ? true : undefined), 10_000);
  await sleep(4_000); // longer than the lease: renewals keep the one leader
  assert.equal(intervals.length, 1, "one leader, no flapping");
  assert.equal(a.elector.isLeader() !== b.elector.isLeader(), true, "exactly one leads");
  const [leader, standby] = a.elector.isLeader() ? [a, b] : [b, a];
  const before = await getLease("graceful");
  assert.equal(before?.spec?.holderIdentity, leader.elector.identity);
  assert.equal(before.spec.leaseDurationSeconds, 3);
  assert.match(before.spec.renewTime ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

  const abortedAt = Date.now();
  leader.stop.abort();
  assert.equal(await leader.done, "released");
  await eventually("the standby leads", () => (standby.elector.isLeader() ? true : undefined), 5_000);
  const takeover = intervals[1]!.start - abortedAt;
  console.log(`graceful takeover after abort: ${takeover} ms`);
  // At most one jittered retry plus round trips; without the release it would wait for expiry (≥ LEASE_MS - RETRY_MS).
  assert.ok(takeover <= RETRY_MS * 2.2 + 800, `standby led ${takeover} ms after the leader's abort`);
  const after = await getLease("graceful");
  assert.equal(after?.spec?.holderIdentity, standby.elector.identity);
  assert.equal(after.spec.leaseTransitions, (before.spec.leaseTransitions ?? 0) + 1);
  standby.stop.abort();
  await standby.done;
  assertNoOverlap(intervals);
  assert.equal((await getLease("graceful"))?.spec?.holderIdentity, "", "the last leader released too");
});

test("a leader killed with SIGKILL (no release) is replaced once its Lease expires: within leaseDuration + the standby's retry lag", async () => {
  const leader = child("crash", "crasher");
  await leader.waitFor("start");
  const intervals: Interval[] = [];
  const standby = candidate("crash", "standby", intervals);
  // Follow the Lease to know the crashed leader's last renewal.
  let lastRenew = 0;
  const watching = setInterval(() => {
    void getLease("crash")
      .then((l) => {
        if (l?.spec?.holderIdentity === "crasher" && l.spec.renewTime)
          lastRenew = Math.max(lastRenew, Date.parse(l.spec.renewTime));
      })
      .catch(() => undefined);
  }, 50);
  try {
    await sleep(3_500);
    assert.equal(standby.elector.isLeader(), false, "the standby waits while the child renews");
    assert.equal(standby.elector.getLeader(), "crasher");
    const killedAt = Date.now();
    leader.proc.kill("SIGKILL");
    await leader.exited;
    await eventually("the standby leads", () => (standby.elector.isLeader() ? true : undefined), 10_000);
    const start = intervals[0]!.start;
    console.log(
      `crash takeover after kill -9: ${start - killedAt} ms (${start - lastRenew} ms after the last renewal)`,
    );
    assert.ok(
      start - lastRenew >= LEASE_MS,
      `took over ${start - lastRenew} ms after the last renewal, before the Lease expired`,
    );
    // Expiry is judged from when the standby saw the last renewal (≤ one jittered retry late), plus one more retry.
    assert.ok(
      start - killedAt <= LEASE_MS + 2 * RETRY_MS * 2.2 + 1_000,
      `took over ${start - killedAt} ms after the kill`,
    );
    assert.equal((await getLease("crash"))?.spec?.leaseTransitions, 1);
  } finally {
    clearInterval(watching);
    leader.proc.kill("SIGKILL");
    standby.stop.abort();
    await standby.done;
  }
});

test("runControllers in a child process: SIGTERM stops the probe controller, releases the Lease and exits 0", async () => {
  const proc = child("sigterm", "terminated");
  await proc.waitFor("start");
  assert.equal((await getLease("sigterm"))?.spec?.holderIdentity, "terminated");
  proc.proc.kill("SIGTERM");
  const exit = await proc.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.deepEqual(
    proc.events.map((e) => e.event),
    ["ready", "start", "stop", "exit"],
  );
  const lease = await getLease("sigterm");
  assert.equal(lease?.spec?.holderIdentity, "");
  assert.equal(lease.spec.leaseDurationSeconds, 1);
});

test("runControllers: a standby runs no controller; a leader whose Lease is taken away stops its controllers and rejects", async () => {
  const leader = child("stolen", "victim");
  await leader.waitFor("start");
  let standbyRan = false;
  const standbyStop = new AbortController();
  const standby = runControllers(
    [
      {
        name: "probe",
        run: () => {
          standbyRan = true;
          return Promise.resolve();
        },
      },
    ],
    {
      signal: standbyStop.signal,
      leaderElection: {
        kube,
        namespace: NS,
        name: "stolen",
        identity: "standby",
        leaseDurationMs: 30_000,
        renewDeadlineMs: 20_000,
        retryPeriodMs: RETRY_MS,
      },
    },
  );
  await sleep(1_500);
  assert.equal(standbyRan, false, "the standby does not run controllers while the child leads");
  // Someone else writes the Lease: the leader's renewals now conflict and the holder is valid, so it cannot renew.
  // The leader renews every retry period, so this write itself may meet a conflict: read afresh and write again.
  await retryOnConflict(async () => {
    const current = (await getLease("stolen")) as Lease;
    const stamp = new Date().toISOString().replace("Z", "000Z");
    await kubeLeaseLock(kube, NS, "stolen").update({
      ...current,
      spec: { ...current.spec, holderIdentity: "thief", renewTime: stamp, leaseDurationSeconds: 3600 },
    });
  });
  const stolenAt = Date.now();
  const exit = await leader.exited;
  const error = leader.events.find((e) => e.event === "error");
  console.log(`leader noticed the lost lease after ${error!.at - stolenAt} ms`);
  assert.deepEqual(exit, { code: 1, signal: null });
  assert.match(error?.message ?? "", /leader election lost/);
  const stop = leader.events.find((e) => e.event === "stop");
  assert.ok(
    stop && stop.at - stolenAt <= RENEW_MS + RETRY_MS + 500,
    "the probe controller was stopped within the renew deadline",
  );
  assert.equal(standbyRan, false);
  standbyStop.abort();
  await standby;
});

test("an operator whose API server stays away past the renew deadline: one `leader election lost` line, no stack trace, exit 1 at once", async () => {
  const script = path.join(path.dirname(childScript), "lease-lost-child.js");
  const proc = spawn(process.execPath, [script, plane.kubeconfigPath, NS, "outage"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(proc);
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    proc.on("close", (code) => resolve({ code, at: Date.now() })),
  );
  await eventually(
    `the child leads (stderr: ${stderr})`,
    () => (stdout.includes('"start"') ? true : undefined),
    15_000,
  );
  const outageAt = Date.now();
  let code: number | null, exitedAfter: number;
  try {
    await plane.stopApiServer();
    const exit = await exited;
    code = exit.code;
    exitedAfter = exit.at - outageAt;
  } finally {
    await plane.startApiServer();
  }
  console.log(`exit ${code} ${exitedAfter} ms after the API server went away; stderr:\n${stderr}`);
  assert.equal(code, 1);
  const lost = stderr.split("\n").filter((line) => line.includes("leader election lost"));
  assert.equal(lost.length, 1, "exactly one `leader election lost` line");
  assert.equal((JSON.parse(lost[0]!) as { level?: string }).level, "error");
  assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
  // The renew deadline plus one retry, not the hanging reconcile's minute.
  assert.ok(exitedAfter < RENEW_MS + RETRY_MS + 3_000, `exited ${exitedAfter} ms after the outage began`);
});
