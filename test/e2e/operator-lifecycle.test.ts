// The generated MySQLCluster operator as a real process against a real kube-apiserver: graceful shutdown on SIGTERM
// (bounded), two processes under leader election (never both reconciling; takeover after kill -9 and after SIGTERM),
// and a conflicting status write that is retried with backoff until it converges.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import type { ControlPlane } from "@crdgen/runtime/envtest";
import { kubeLeaseLock } from "@crdgen/runtime/leaderelection";
import { type KubeClient } from "@crdgen/runtime";
import {
  newMySQLClusterClient,
  type MySQLClusterVerbs,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import { eventually, startSampleControlPlane } from "./control-plane.js";

const LEASE_MS = 3_000;
const RETRY_MS = 500;
const childScript = path.join(path.dirname(fileURLToPath(import.meta.url)), "operator-child.js");

let plane: ControlPlane;
let kube: KubeClient;
const children: ChildProcess[] = [];

before(async () => {
  plane = await startSampleControlPlane();
  kube = plane.kubeClient();
});

after(async () => {
  // A child left behind by a failed test would keep this process (and its pipes) alive, and keep reconciling.
  for (const proc of children) if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  await (plane as ControlPlane | undefined)?.stop(); // before() may have failed before setting it
});

interface ChildEvent {
  event: string;
  pid: number;
  at: number;
  key?: string;
  start?: number;
  message?: string;
  observedGeneration?: number;
  record?: { msg?: string; key?: string; error?: unknown; requeues?: number; level?: string };
}

/** Starts an operator process; its stdout events accumulate in `events`. */
function operator(env: Record<string, string>) {
  const proc = spawn(process.execPath, [childScript], {
    env: { ...process.env, KUBECONFIG_PATH: plane.kubeconfigPath, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(proc);
  const events: ChildEvent[] = [];
  let stderr = "";
  proc.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  readline.createInterface({ input: proc.stdout }).on("line", (line) => events.push(JSON.parse(line) as ChildEvent));
  let exitedAt = 0;
  proc.on("exit", () => (exitedAt = Date.now()));
  // Resolved on "close", not "exit": stdout may still hold the last lines when the process has exited.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("close", (code, signal) => resolve({ code, signal })),
  );
  const waitFor = (what: string, match: (e: ChildEvent) => boolean, timeoutMs = 20_000) =>
    eventually(`operator ${proc.pid}: ${what} (stderr: ${stderr.slice(-2000)})`, () => events.find(match), timeoutMs);
  return { proc, pid: proc.pid!, events, exited, waitFor, exitedAt: () => exitedAt, stderr: () => stderr };
}

async function createNamespace(name: string): Promise<MySQLClusterVerbs> {
  await kube.request({
    method: "POST",
    path: "/api/v1/namespaces",
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
  });
  return newMySQLClusterClient(kube).namespace(name);
}

const cluster = (name: string, replicas = 1) => ({
  apiVersion: "example.com/v1" as const,
  kind: "MySQLCluster" as const,
  metadata: { name },
  spec: { replicas, version: "8.0.36" },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const starts = (events: ChildEvent[]) => events.filter((e) => e.event === "start");

test("SIGTERM during a slow reconcile: it finishes, no key is taken after the signal, the Lease is released, exit 0", async () => {
  const clusters = await createNamespace("shutdown");
  await clusters.create(cluster("slow"));
  const op = operator({ NAMESPACE: "shutdown", LEASE: "shutdown", SLEEP_MS: "3000" });
  const start = await op.waitFor("start shutdown/slow", (e) => e.event === "start" && e.key === "shutdown/slow");
  const termAt = Date.now();
  op.proc.kill("SIGTERM");
  // Work that arrives during the drain: a new object and a change to the one being reconciled.
  await clusters.create(cluster("late"));
  await clusters.patch("slow", { type: "merge", body: { spec: { replicas: 2 } } });
  const exit = await op.exited;
  const shutdownMs = op.exitedAt() - termAt;
  console.log(`SIGTERM to exit with a reconcile in flight (3 s sleep): ${shutdownMs} ms`);
  assert.deepEqual(exit, { code: 0, signal: null }, op.stderr());
  const end = op.events.find((e) => e.event === "end" && e.key === "shutdown/slow");
  assert.ok(
    end && end.at >= start.at + 2_900 && end.at > termAt,
    "the in-flight reconcile ran to its end (3 s) after the signal",
  );
  assert.deepEqual(
    starts(op.events).filter((e) => e.at >= termAt),
    [],
    "no reconcile started after SIGTERM",
  );
  assert.equal(starts(op.events).length, 1, "only the one reconcile from before the signal");
  assert.equal(op.events.at(-1)?.event, "exit");
  assert.match(op.stderr(), /received SIGTERM: stopping 1 controller\(s\); in-flight reconciles get up to 30s/);
  // The Lease is given up after the drain (its release stamp is not before the reconcile's end).
  const lease = await kubeLeaseLock(kube, "default", "shutdown").get();
  assert.equal(lease?.spec?.holderIdentity, "");
  assert.ok(
    Date.parse(lease.spec.renewTime!) >= end.at - 1,
    `released at ${lease.spec.renewTime}, reconcile ended at ${new Date(end.at).toISOString()}`,
  );
  assert.ok(shutdownMs < 5_000, `exited ${shutdownMs} ms after SIGTERM`);
});

test("the graceful shutdown is bounded: a reconcile still running past the limit makes the process exit 1 naming its key", async () => {
  const clusters = await createNamespace("stuck");
  await clusters.create(cluster("stuck"));
  const op = operator({ NAMESPACE: "stuck", SLEEP_MS: "60000", SHUTDOWN_TIMEOUT_MS: "1500" });
  await op.waitFor("start stuck/stuck", (e) => e.event === "start" && e.key === "stuck/stuck");
  const termAt = Date.now();
  op.proc.kill("SIGTERM");
  const exit = await op.exited;
  const waitedMs = op.exitedAt() - termAt;
  console.log(`gave up on the stuck reconcile and exited ${waitedMs} ms after SIGTERM (limit 1.5 s)`);
  assert.deepEqual(exit, { code: 1, signal: null });
  const error = op.events.find((e) => e.event === "error");
  assert.match(
    error?.message ?? "",
    /^graceful shutdown timed out after 1\.5s; reconciles still running: mysqlclusters\.example\.com stuck\/stuck$/,
  );
  assert.ok(waitedMs >= 1_500 && waitedMs < 3_500, `exited ${waitedMs} ms after SIGTERM`);
  assert.equal(
    op.events.some((e) => e.event === "end"),
    false,
    "the stuck reconcile never finished",
  );
});

test("two operator processes under leader election: never both reconcile; kill -9 and SIGTERM of the leader hand over to the standby", async () => {
  const clusters = await createNamespace("ha");
  const names = ["ha-0", "ha-1", "ha-2"];
  for (const name of names) await clusters.create(cluster(name));
  const env = { NAMESPACE: "ha", LEASE: "ha", SLEEP_MS: "100" };
  const a = operator(env);
  const b = operator(env);
  // Keep changing the objects the whole time, so whoever leads always has work.
  let bumping = true;
  let bumps = 0;
  const bumper = (async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the test sets bumping = false while this loop runs
    while (bumping) {
      const name = names[bumps % names.length]!;
      await clusters
        .patch(name, { type: "merge", body: { spec: { replicas: (bumps % 5) + 1 } } })
        .catch(() => undefined);
      bumps++;
      await sleep(100);
    }
  })();
  const all = () => [a, b, ...extra];
  const extra: Array<ReturnType<typeof operator>> = [];
  try {
    const leading = await eventually(
      "a leader",
      () => all().find((p) => p.events.some((e) => e.event === "leading")),
      20_000,
    );
    const first = leading;
    const standby = first === a ? b : a;
    await first.waitFor("a reconcile", (e) => e.event === "end");
    await sleep(3_000); // longer than the Lease: the leader keeps renewing, the standby keeps waiting
    assert.equal(
      standby.events.some((e) => e.event === "leading" || e.event === "start"),
      false,
      "the standby does not reconcile",
    );

    // kill -9: no release; the standby takes over once the Lease expires.
    const killAt = Date.now();
    first.proc.kill("SIGKILL");
    await first.exited;
    const secondStart = await standby.waitFor("first reconcile after the kill", (e) => e.event === "start", 15_000);
    const leadingAt = standby.events.find((e) => e.event === "leading")!.at;
    console.log(
      `kill -9 of the leader: standby leading after ${leadingAt - killAt} ms, first reconcile after ${secondStart.at - killAt} ms`,
    );
    // Expiry counts from when the standby saw the last renewal (up to one jittered retry late), plus one more retry.
    assert.ok(
      leadingAt - killAt <= LEASE_MS + 2 * RETRY_MS * 2.2 + 1_000,
      `leading ${leadingAt - killAt} ms after kill -9`,
    );
    // Then its informers sync (nine kinds) before the first reconcile.
    assert.ok(secondStart.at - leadingAt <= 3_000, `first reconcile ${secondStart.at - leadingAt} ms after leading`);

    // A new standby; then SIGTERM to the leader: it drains, releases the Lease, and the standby leads at once.
    const third = operator(env);
    extra.push(third);
    await third.waitFor("ready", (e) => e.event === "ready");
    await sleep(2_000);
    assert.equal(
      third.events.some((e) => e.event === "leading" || e.event === "start"),
      false,
      "the new standby waits",
    );
    const termAt = Date.now();
    standby.proc.kill("SIGTERM");
    const thirdStart = await third.waitFor("first reconcile after SIGTERM", (e) => e.event === "start", 10_000);
    const exit = await standby.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, standby.stderr());
    const gracefulTakeover = third.events.find((e) => e.event === "leading")!.at - termAt;
    console.log(
      `SIGTERM of the leader: it exited after ${standby.exitedAt() - termAt} ms; standby leading after ${gracefulTakeover} ms, first reconcile after ${thirdStart.at - termAt} ms`,
    );
    // The Lease was released: one jittered retry plus the drain, where waiting out expiry takes ≥ LEASE_MS - RETRY_MS.
    assert.ok(gracefulTakeover <= RETRY_MS * 2.2 + 1_200, `leading ${gracefulTakeover} ms after SIGTERM`);
    await sleep(1_500);
    bumping = false;
    await bumper;
    third.proc.kill("SIGTERM");
    assert.deepEqual(await third.exited, { code: 0, signal: null });

    // Reconcile intervals of all three processes: never overlapping, and grouped by leader (A..., B..., C...).
    const intervals = all()
      .flatMap((p) => {
        // One worker: each start is followed by its end. A reconcile in flight at kill -9 lasted until the exit.
        const out: Array<{ pid: number; start: number; end: number }> = [];
        let open: number | undefined;
        for (const e of p.events) {
          if (e.event === "start") open = e.at;
          if (e.event === "end" && open !== undefined) {
            out.push({ pid: p.pid, start: open, end: e.at });
            open = undefined;
          }
        }
        if (open !== undefined) out.push({ pid: p.pid, start: open, end: p.exitedAt() });
        return out;
      })
      .sort((x, y) => x.start - y.start);
    for (let i = 1; i < intervals.length; i++) {
      const prev = intervals[i - 1]!;
      const cur = intervals[i]!;
      assert.ok(
        cur.start >= prev.end,
        `pid ${prev.pid} [${prev.start}, ${prev.end}] overlaps pid ${cur.pid} from ${cur.start}`,
      );
    }
    const leaders = intervals.map((i) => i.pid).filter((pid, i, all) => i === 0 || all[i - 1] !== pid);
    assert.deepEqual(
      leaders,
      [first.pid, standby.pid, third.pid],
      "each leader reconciles only between its leadership changes",
    );
    for (const p of all()) {
      const lead = p.events.find((e) => e.event === "leading");
      assert.ok(
        starts(p.events).every((s) => lead && s.at >= lead.at),
        `pid ${p.pid} reconciled only while leading`,
      );
    }
    console.log(
      `${intervals.length} reconciles over ${bumps} updates: ${leaders.map((pid) => `${pid}×${intervals.filter((i) => i.pid === pid).length}`).join(", ")}`,
    );
  } finally {
    bumping = false;
    await bumper;
  }
});

test("a 409 Conflict on updateStatus is an error requeue with backoff, not a crash, and status converges to the generation", async () => {
  const clusters = await createNamespace("conflict");
  await clusters.create(cluster("racy"));
  const op = operator({ NAMESPACE: "conflict", MODE: "status", SLEEP_MS: "150" });
  await op.waitFor("observedGeneration 1 written", (e) => e.event === "status" && e.observedGeneration === 1);
  // Change spec while reconciles hold the older cached object: their status PUTs carry a stale resourceVersion.
  const until = Date.now() + 3_000;
  for (let i = 0; i < 15 || Date.now() < until; i++) {
    await clusters.patch("racy", { type: "merge", body: { spec: { replicas: ((i + 1) % 5) + 1 } } });
    await sleep(60);
  }
  const converged = await eventually(
    "status.observedGeneration == generation",
    async () => {
      const obj = await clusters.get("racy");
      return obj.status?.observedGeneration === obj.metadata.generation ? obj : undefined;
    },
    30_000,
  );
  assert.ok((converged.metadata.generation ?? 0) > 10, `generation ${converged.metadata.generation}`);
  const conflicts = op.events.filter((e) => e.record?.msg === "reconcile failed; requeued with backoff");
  console.log(
    `${conflicts.length} conflicting status writes requeued; converged at generation ${converged.metadata.generation}`,
  );
  assert.ok(conflicts.length > 0, "some status writes conflicted");
  for (const c of conflicts) {
    assert.equal(c.record?.key, "conflict/racy");
    assert.equal(c.record.level, "error");
    assert.match(JSON.stringify(c.record.error), /409|[Cc]onflict/);
    assert.equal(typeof c.record.requeues, "number");
  }
  assert.equal(op.proc.exitCode, null, "the operator is still running");
  assert.equal(
    op.events.some((e) => e.event === "error"),
    false,
  );
  op.proc.kill("SIGTERM");
  assert.deepEqual(await op.exited, { code: 0, signal: null });
});
