// Fault tests for the MySQLCluster informer against a real control plane: apiserver kills/restarts, 410 Gone after etcd
// compaction, reconnect backoff.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { ControlPlane } from "@crdgen/runtime/envtest";
import type { KubeClient, Logger } from "@crdgen/runtime";
import {
  type DeletedFinalStateUnknown,
  type ListerWatcher,
  SharedIndexInformer,
  isDeletedFinalStateUnknown,
  isResourceVersionTooOld,
  listerWatcherFor,
  unwrapDeleted,
} from "@crdgen/runtime/cache";
import { type ListOptions } from "@crdgen/runtime/client";
import {
  newMySQLClusterClient,
  type MySQLClusterVerbs,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import type { MySQLCluster } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";
import { eventually, startSampleControlPlane } from "./control-plane.js";

let plane: ControlPlane;
let kube: KubeClient;
/** Aborted in `after`, so every informer stops even when a test failed half way. */
const stopAll = new AbortController();
const running: Array<Promise<void>> = [];

before(async () => {
  plane = await startSampleControlPlane();
  kube = plane.kubeClient();
});

after(async () => {
  stopAll.abort();
  await Promise.allSettled(running);
  // before() may have failed before setting these.
  (kube as KubeClient | undefined)?.close();
  await (plane as ControlPlane | undefined)?.stop();
});

interface Call {
  kind: "list" | "watch";
  at: number;
  rv: string | undefined;
  /** A watch asking for the initial state (sendInitialEvents: a streaming list). */
  streaming?: boolean;
}

/**
 * Wraps the real ListerWatcher: records every LIST and WATCH that goes to the server, records 410s seen by watches,
 * and can "disconnect" the informer: disconnect() drops its current watch and holds every new LIST/WATCH until
 * reconnect(). That gives a deterministic window in which the informer is away while writes still go through the
 * real apiserver.
 */
class FaultyListerWatcher implements ListerWatcher<MySQLCluster> {
  readonly calls: Call[] = [];
  /** Times at which a watch ended with 410 Gone / Expired (ERROR event or error). */
  readonly gone: number[] = [];
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  private readonly active = new Set<AbortController>();

  constructor(private readonly inner: ListerWatcher<MySQLCluster>) {}

  disconnect(): void {
    if (this.gate === undefined) this.gate = new Promise<void>((resolve) => (this.openGate = resolve));
    for (const c of this.active) c.abort();
  }

  reconnect(): void {
    const open = this.openGate;
    this.gate = undefined;
    this.openGate = undefined;
    open?.();
  }

  count(kind: Call["kind"] | "any", from = 0, to = Infinity): number {
    return this.calls.filter((c) => (kind === "any" || c.kind === kind) && c.at >= from && c.at < to).length;
  }

  private async held(signal: AbortSignal | undefined): Promise<void> {
    while (this.gate !== undefined && !signal?.aborted) {
      await Promise.race([
        this.gate,
        new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true })),
      ]);
    }
  }

  async list(options: ListOptions, signal?: AbortSignal) {
    await this.held(signal);
    signal?.throwIfAborted();
    this.calls.push({ kind: "list", at: Date.now(), rv: options.resourceVersion });
    return this.inner.list(options, signal);
  }

  watch(options: ListOptions, signal: AbortSignal) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- a generator function (no arrow form exists) reads the wrapper through self
    const self = this;
    return (async function* () {
      await self.held(signal);
      if (signal.aborted) return;
      self.calls.push({
        kind: "watch",
        at: Date.now(),
        rv: options.resourceVersion,
        streaming: options.sendInitialEvents === true,
      });
      const ctrl = new AbortController();
      const onAbort = (): void => ctrl.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      self.active.add(ctrl);
      try {
        for await (const ev of self.inner.watch(options, ctrl.signal)) {
          if (ev.type === "ERROR" && isResourceVersionTooOld(ev.object)) self.gone.push(Date.now());
          yield ev;
        }
      } catch (err) {
        if (isResourceVersionTooOld(err)) self.gone.push(Date.now());
        // disconnect(): end the stream like a dropped connection.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- signal may abort during the watch above; TS keeps the narrowing across awaits
        if (!ctrl.signal.aborted || signal.aborted) throw err;
      } finally {
        self.active.delete(ctrl);
        signal.removeEventListener("abort", onAbort);
      }
    })();
  }
}

interface Recorded {
  type: "add" | "update" | "delete";
  name: string;
  rv: string | undefined;
  tombstone: boolean;
}

/** The informer's distinct log lines (numbers masked), for the test output. */
function logSummary(h: Harness): string {
  const lines = new Map<string, number>();
  for (const l of h.logs) {
    const k = l.replace(/\d+/g, "N").slice(0, 160);
    lines.set(k, (lines.get(k) ?? 0) + 1);
  }
  return [...lines].map(([l, n]) => `${n}x ${l}`).join(" | ");
}

interface Harness {
  informer: SharedIndexInformer<MySQLCluster>;
  lw: FaultyListerWatcher;
  events: Recorded[];
  logs: string[];
  clusters: MySQLClusterVerbs;
  stop(): Promise<void>;
}

/**
 * A namespace of its own holding the `seed` clusters, an informer over MySQLClusters in it (default reflector settings
 * unless useWatchList), handlers recording events.
 */
async function startHarness(
  namespace: string,
  options: { useWatchList?: boolean; seed?: string[] } = {},
): Promise<Harness> {
  await kube.request({
    method: "POST",
    path: "/api/v1/namespaces",
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
  });
  const client = newMySQLClusterClient(kube);
  for (const name of options.seed ?? []) await client.namespace(namespace).create(newCluster(name));
  const lw = new FaultyListerWatcher(listerWatcherFor(client.resource, { namespace }));
  const logs: string[] = [];
  const logger: Logger = {
    error: (m) => void logs.push(`error ${m}`),
    warn: (m) => void logs.push(`warn ${m}`),
    info: (m) => void logs.push(`info ${m}`),
    debug: (m) => void logs.push(`debug ${m}`),
    child: () => logger,
  };
  const informer = new SharedIndexInformer<MySQLCluster>({
    name: `mysqlclusters/${namespace}`,
    listerWatcher: lw,
    logger,
    ...(options.useWatchList ? { reflector: { useWatchList: true } } : {}),
  });
  const events: Recorded[] = [];
  informer.addEventHandler({
    addFunc: (o) =>
      void events.push({ type: "add", name: o.metadata.name!, rv: o.metadata.resourceVersion, tombstone: false }),
    updateFunc: (_old, o) =>
      void events.push({ type: "update", name: o.metadata.name!, rv: o.metadata.resourceVersion, tombstone: false }),
    deleteFunc: (d: MySQLCluster | DeletedFinalStateUnknown<MySQLCluster>) => {
      const o = unwrapDeleted(d);
      events.push({
        type: "delete",
        name: o.metadata.name!,
        rv: o.metadata.resourceVersion,
        tombstone: isDeletedFinalStateUnknown(d),
      });
    },
  });
  const ctrl = new AbortController();
  const onStopAll = (): void => ctrl.abort();
  stopAll.signal.addEventListener("abort", onStopAll, { once: true });
  const run = informer.run(ctrl.signal);
  running.push(run);
  assert.equal(
    await informer.waitForCacheSync(AbortSignal.any([ctrl.signal, AbortSignal.timeout(30_000)])),
    true,
    "initial sync",
  );
  return {
    informer,
    lw,
    events,
    logs,
    clusters: client.namespace(namespace),
    async stop() {
      ctrl.abort();
      stopAll.signal.removeEventListener("abort", onStopAll);
      await run;
    },
  };
}

const newCluster = (name: string): MySQLCluster => ({
  apiVersion: "example.com/v1",
  kind: "MySQLCluster",
  metadata: { name },
  spec: { replicas: 1, version: "8.0.36" },
});

async function snapshots(h: Harness): Promise<{ server: Record<string, string>; cache: Record<string, string> }> {
  const toMap = (items: MySQLCluster[]): Record<string, string> =>
    Object.fromEntries(
      items
        .map((o): [string, string] => [o.metadata.name!, o.metadata.resourceVersion ?? ""])
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  const server = toMap((await h.clusters.list()).items);
  return { server, cache: toMap(h.informer.getIndexer().list()) };
}

/** Waits until the cache holds exactly the server's objects (names and resourceVersions); fails with the difference. */
async function assertInSync(h: Harness, what: string, timeoutMs = 60_000): Promise<void> {
  const ok = await eventually(
    what,
    async () => {
      const s = await snapshots(h);
      return JSON.stringify(s.server) === JSON.stringify(s.cache) ? true : undefined;
    },
    timeoutMs,
  ).catch(() => false);
  if (ok) return;
  const s = await snapshots(h);
  assert.deepEqual(
    s.cache,
    s.server,
    `${what}: cache differs from the server's list\n--- informer log tail:\n${h.logs.slice(-10).join("\n")}`,
  );
}

/** After a (re)start, the CRD's endpoints may take a moment to be served again. */
async function waitServed(h: Harness): Promise<void> {
  await eventually("MySQLCluster endpoints served", () => h.clusters.list().then(() => true), 60_000);
}

async function update(h: Harness, name: string, replicas: number): Promise<void> {
  await h.clusters.patch(name, { type: "merge", body: { spec: { replicas } } });
}

function deletesOf(h: Harness, name: string): Recorded[] {
  return h.events.filter((e) => e.type === "delete" && e.name === name);
}

test("kube-apiserver killed mid-watch three times: after each restart creates, updates and deletes reach the cache, including deletes made while the informer was away", async () => {
  const t0 = Date.now();
  const h = await startHarness("faults-restart");
  try {
    for (const name of ["seed-a", "seed-b", "seed-c", "seed-d"]) await h.clusters.create(newCluster(name));
    await assertInSync(h, "seed objects in the cache");
    const deletedWhileAway: string[] = [];
    const deletedAll: string[] = [];
    const created = ["seed-a", "seed-b", "seed-c", "seed-d"];
    for (let round = 1; round <= 3; round++) {
      // Round 2 is the disconnected one: the informer is held off (its watch dropped, new LIST/WATCH held) from just
      // before the kill until every write of the round is done, so those writes happen while it is away. The other
      // rounds write as soon as the restarted apiserver serves the resource, racing the informer's reconnect.
      const away = round === 2;
      if (away) h.lw.disconnect();
      await plane.stopApiServer();
      await plane.startApiServer();
      await waitServed(h);
      if (!away) {
        // Connected rounds: first make sure the informer is back (a probe written after the restart reached the
        // cache), so the writes below must travel over its new watch and deletes arrive as real DELETED events.
        await h.clusters.create(newCluster(`r${round}-probe`));
        created.push(`r${round}-probe`);
        await eventually(
          `r${round}-probe in the cache`,
          () =>
            h.informer
              .getIndexer()
              .list()
              .some((o) => o.metadata.name === `r${round}-probe`)
              ? true
              : undefined,
          120_000,
        );
      }
      const victims = away ? ["seed-a", "seed-b"] : round === 1 ? ["seed-c"] : ["r1-a"];
      for (const name of [`r${round}-a`, `r${round}-b`]) {
        await h.clusters.create(newCluster(name));
        created.push(name);
      }
      await update(h, `r${round}-b`, 2);
      await update(h, "seed-d", 1 + round);
      for (const name of victims) {
        await h.clusters.delete(name);
        deletedAll.push(name);
        if (away) deletedWhileAway.push(name);
      }
      if (away) h.lw.reconnect();
      // The reflector's backoff may have grown during the outages (it resets only after 2 quiet minutes).
      await assertInSync(h, `cache equals the server after restart ${round}`, 150_000);
      for (const name of victims) {
        await eventually(
          `deleteFunc for ${name} (round ${round})`,
          () => (deletesOf(h, name).length > 0 ? true : undefined),
          10_000,
        );
        // While away the delete can only come from a relist (a tombstone) or a replayed watch event; once connected it
        // must be a watch DELETED event carrying the object, not a tombstone.
        if (!away)
          assert.equal(
            deletesOf(h, name)[0]!.tombstone,
            false,
            `${name} deleted while connected: a real DELETED event`,
          );
      }
    }
    for (const name of created) {
      assert.ok(
        h.events.some((e) => e.type === "add" && e.name === name),
        `addFunc for ${name}`,
      );
    }
    for (const name of deletedAll) {
      assert.equal(
        deletesOf(h, name).length,
        1,
        `exactly one deleteFunc for ${name}: ${JSON.stringify(deletesOf(h, name))}`,
      );
    }
    const survivors = created.filter((n) => !deletedAll.includes(n));
    for (const name of survivors)
      assert.equal(deletesOf(h, name).length, 0, `no deleteFunc for ${name}, which still exists`);
    const seedD = (await h.clusters.get("seed-d")).metadata.resourceVersion;
    assert.ok(
      h.events.some((e) => e.type === "update" && e.name === "seed-d" && e.rv === seedD),
      "updateFunc saw seed-d's last update",
    );
    assert.deepEqual(deletedWhileAway, ["seed-a", "seed-b"]);
    console.log(
      `# restarts: ${Date.now() - t0} ms, LIST ${h.lw.count("list")}, WATCH ${h.lw.count("watch")}, deletes ${JSON.stringify(h.events.filter((e) => e.type === "delete"))}`,
    );
  } finally {
    console.log(`# informer log: ${logSummary(h)}`);
    await plane.startApiServer();
    await h.stop();
  }
});

/** Compacts etcd to its current revision through the v3 HTTP/JSON gateway; returns that revision. */
async function compactEtcd(): Promise<number> {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${plane.etcdEndpoint}${path}`, { method: "POST", body: JSON.stringify(body) });
    assert.equal(res.status, 200, `etcd ${path}: ${res.status} ${await res.clone().text()}`);
    return (await res.json()) as { header?: { revision?: string } };
  };
  const range = await post("/v3/kv/range", { key: b64("/"), range_end: b64("0"), limit: 1 });
  const revision = Number(range.header?.revision);
  assert.ok(revision > 0, `etcd revision from ${JSON.stringify(range)}`);
  await post("/v3/kv/compaction", { revision: String(revision), physical: true });
  return revision;
}

/**
 * Makes the informer miss `writes` and the history behind them: drops its watch, writes, stops the apiserver, compacts
 * etcd past the informer's resourceVersion, restarts it and lets the informer back in; then waits until the cache
 * equals the server and checks that a watch got 410 Gone on the way.
 */
async function missWritesPastCompaction(
  h: Harness,
  writes: () => Promise<void>,
): Promise<{ lastRV: number; compacted: number; reconnectedAt: number }> {
  // Let the current watch live past 1 s so dropping it is not a "very short watch".
  await new Promise((r) => setTimeout(r, 1_500));
  const lastRV = Number(h.informer.lastSyncResourceVersion());
  h.lw.disconnect();
  await writes();
  await plane.stopApiServer();
  const compacted = await compactEtcd();
  assert.ok(
    compacted > lastRV,
    `compacted revision ${compacted} is newer than the informer's resourceVersion ${lastRV}`,
  );
  await plane.startApiServer();
  await waitServed(h);
  const reconnectedAt = Date.now();
  h.lw.reconnect();
  await assertInSync(h, "cache equals the server after 410");
  assert.ok(
    h.lw.gone.some((t) => t >= reconnectedAt),
    `a watch from resourceVersion ${lastRV} got 410 Gone`,
  );
  return { lastRV, compacted, reconnectedAt };
}

test("410 Gone: writes while the informer is away, etcd compacted past its resourceVersion, apiserver restarted: it relists, and the missed delete arrives as a tombstone", async () => {
  const t0 = Date.now();
  const h = await startHarness("faults-gone");
  try {
    await h.clusters.create(newCluster("g-keep"));
    await h.clusters.create(newCluster("g-doomed"));
    await assertInSync(h, "g-keep and g-doomed in the cache");
    const { lastRV, compacted, reconnectedAt } = await missWritesPastCompaction(h, async () => {
      await h.clusters.delete("g-doomed");
      await h.clusters.create(newCluster("g-new"));
      await update(h, "g-keep", 3);
    });
    const relists = h.lw.calls.filter((c) => c.kind === "list" && c.at >= reconnectedAt);
    assert.ok(relists.length >= 1, "the informer relisted after the 410");
    const doomed = deletesOf(h, "g-doomed");
    assert.equal(doomed.length, 1, `one deleteFunc for g-doomed: ${JSON.stringify(doomed)}`);
    assert.equal(doomed[0]!.tombstone, true, "the delete was missed, so it arrives as DeletedFinalStateUnknown");
    assert.ok(
      h.events.some((e) => e.type === "add" && e.name === "g-new"),
      "addFunc for g-new",
    );
    assert.equal(deletesOf(h, "g-keep").length, 0);
    console.log(
      `# 410: ${Date.now() - t0} ms, compacted at ${compacted} > ${lastRV}, relists ${JSON.stringify(relists)}`,
    );
  } finally {
    console.log(`# informer log: ${logSummary(h)}`);
    h.lw.reconnect();
    await plane.startApiServer();
    await h.stop();
  }
});

test("apiserver down for 60 s: reconnect attempts back off to about one per 30 s, and the informer recovers without a burst", async () => {
  const h = await startHarness("faults-backoff");
  try {
    await h.clusters.create(newCluster("b-before"));
    await assertInSync(h, "b-before in the cache");
    const stopped = Date.now();
    await plane.stopApiServer();
    // The outage starts when the informer first meets it: a stopping kube-apiserver may keep the watch open for
    // seconds (20 s on a loaded machine), and the backoff starts from that first failed attempt, not before.
    const first = await eventually(
      "a list/watch attempt after the apiserver stopped",
      () => h.lw.calls.find((c) => c.at >= stopped),
      60_000,
    );
    const down = first.at;
    const outageMs = 60_000;
    // A fixed wait is the test's input here: the outage's length.
    await new Promise((r) => setTimeout(r, outageMs - (Date.now() - down)));
    const up = Date.now();
    await plane.startApiServer();
    const total = h.lw.count("any", down, up);
    const lastHalf = h.lw.count("any", up - 30_000, up);
    const times = h.lw.calls.filter((c) => c.at >= down).map((c) => `${c.kind}+${((c.at - down) / 1000).toFixed(1)}s`);
    console.log(`# outage attempts: total ${total}, last 30 s ${lastHalf}: ${times.join(" ")}`);
    assert.ok(total >= 3, `the informer kept trying while the apiserver was down (${total} attempts)`);
    assert.ok(total <= 10, `at most ~10 attempts in a 60 s outage, got ${total}: ${times.join(" ")}`);
    assert.ok(lastHalf <= 2, `at most 2 attempts in the last 30 s of the outage, got ${lastHalf}: ${times.join(" ")}`);
    await waitServed(h);
    await h.clusters.create(newCluster("b-after"));
    // At the 30 s cap the jittered wait is up to 60 s, and a 410 after the restart costs one more step.
    await eventually(
      "b-after in the cache",
      () =>
        h.informer
          .getIndexer()
          .list()
          .some((o) => o.metadata.name === "b-after")
          ? true
          : undefined,
      180_000,
    );
    const recovered = Date.now();
    await assertInSync(h, "cache equals the server after the outage");
    const firstAfter = h.lw.calls.find((c) => c.at >= up);
    assert.ok(firstAfter, "an attempt after the apiserver came back");
    const burst = h.lw.count("any", firstAfter.at, firstAfter.at + 5_000);
    const all = h.lw.calls
      .filter((c) => c.at >= down)
      .map((c) => `${c.kind}@${c.rv ?? ""}+${((c.at - down) / 1000).toFixed(1)}s`);
    console.log(
      `# recovery: first attempt ${((firstAfter.at - up) / 1000).toFixed(1)} s after restart, cache caught up ${((recovered - up) / 1000).toFixed(1)} s after restart; calls ${all.join(" ")}`,
    );
    assert.ok(burst <= 3, `at most 3 attempts in the first 5 s of recovery, got ${burst}: ${all.join(" ")}`);
  } finally {
    console.log(`# informer log: ${logSummary(h)}`);
    await plane.startApiServer();
    await h.stop();
  }
});

test("streaming list (useWatchList): the initial state comes from a watch with sendInitialEvents and no LIST; changes follow on that stream; after 410 it streams the state again and the missed delete arrives as a tombstone", async () => {
  const seed = Array.from({ length: 20 }, (_, i) => `s-${i}`);
  const h = await startHarness("faults-watchlist", { useWatchList: true, seed });
  try {
    await assertInSync(h, "the 20 seeded clusters in the cache");
    assert.equal(h.informer.getIndexer().list().length, 20);
    assert.deepEqual(
      h.lw.calls.map((c) => `${c.kind}${c.streaming ? " streaming" : ""}`),
      ["watch streaming"],
      "synced by one streaming watch, no LIST",
    );
    await h.clusters.create(newCluster("w-new"));
    await update(h, "s-1", 4);
    await h.clusters.delete("s-2");
    await assertInSync(h, "create, update and delete after the streaming list");
    assert.equal(h.lw.count("watch"), 1, "the changes came over the same stream");
    assert.deepEqual(
      deletesOf(h, "s-2").map((d) => d.tombstone),
      [false],
    );

    const { reconnectedAt } = await missWritesPastCompaction(h, async () => {
      await h.clusters.delete("s-3");
      await h.clusters.create(newCluster("w-later"));
      await update(h, "s-4", 5);
    });
    const after410 = h.lw.calls.filter((c) => c.at >= reconnectedAt);
    assert.ok(
      after410.some((c) => c.streaming),
      `the state was streamed again: ${JSON.stringify(after410)}`,
    );
    assert.equal(h.lw.count("list"), 0, "never a LIST");
    assert.deepEqual(
      deletesOf(h, "s-3").map((d) => d.tombstone),
      [true],
      "the missed delete arrives as DeletedFinalStateUnknown",
    );
    assert.ok(
      h.events.some((e) => e.type === "add" && e.name === "w-later"),
      "addFunc for w-later",
    );
    console.log(
      `# streaming list: calls ${JSON.stringify(h.lw.calls.map((c) => ({ kind: c.kind, rv: c.rv, streaming: c.streaming })))}`,
    );
  } finally {
    console.log(`# informer log: ${logSummary(h)}`);
    h.lw.reconnect();
    await plane.startApiServer();
    await h.stop();
  }
});
