// The Reflector's sharded mode (KEP-5866): the selector rides on LIST and WATCH, the client applies the same test (a
// server without the feature sends everything), and reshard() drops what the shard lost and lists only what it gained
// at the last resourceVersion, then watches on from there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Indexer, Reflector, type ShardFilter, unwrapDeleted } from "@crdgen/runtime/cache";
import { type CacheNotification, IndexerSink } from "#runtime/cache/sink.js";
import {
  FakeListerWatcher,
  type Obj,
  TestClock,
  httpError,
  list,
  obj,
  recordingLogger,
  recordingSleep,
  until,
} from "../support/cache-fakes.js";

/** A shard of the names starting with one of `letters` (the test's stand-in for a hash range). */
function shard(letters: string, reports: boolean[] = []): ShardFilter<Obj> {
  return {
    selector: `letters(${letters})`,
    matches: (o) => letters.includes((o.metadata?.name ?? "")[0] ?? ""),
    reportServerFiltered: (filtered) => reports.push(filtered),
  };
}

/** The i-th watch the reflector opened. */
function watch(lw: FakeListerWatcher, i: number) {
  const w = lw.watches[i];
  assert.ok(w, `watch ${i} was opened`);
  return w;
}

function setup(lw: FakeListerWatcher, initial: ShardFilter<Obj>) {
  const indexer = new Indexer<Obj>();
  const notes: CacheNotification<Obj>[] = [];
  const sink = new IndexerSink<Obj>(indexer, (n) => notes.push(n));
  const reflector = new Reflector<Obj>({
    listerWatcher: lw,
    sink,
    clock: new TestClock(),
    sleep: recordingSleep(),
    random: () => 0.5,
    logger: recordingLogger(),
    shard: initial,
  });
  const ctrl = new AbortController();
  const done = reflector.run(ctrl.signal);
  const names = () => indexer.listKeys().sort();
  const stop = async (): Promise<void> => {
    ctrl.abort();
    await done;
  };
  return { indexer, notes, reflector, names, stop };
}

test("a server that ignores shardSelector: the client keeps only the shard and says the server did not filter", async () => {
  const reports: boolean[] = [];
  const lw = new FakeListerWatcher().queueList(list([obj("a1", "10"), obj("b1", "11"), obj("a2", "12")], "100"));
  const r = setup(lw, shard("a", reports));
  await until(() => lw.watches.length === 1, "watch");
  assert.equal(lw.listCalls[0]?.shardSelector, "letters(a)");
  assert.equal(watch(lw, 0).options.shardSelector, "letters(a)");
  assert.deepEqual(r.names(), ["a1", "a2"]);
  assert.deepEqual(reports, [false]);
  // Another shard's event is not stored, but its resourceVersion is progress: the next watch starts after it.
  watch(lw, 0).push({ type: "MODIFIED", object: obj("b1", "150") }, { type: "ADDED", object: obj("a3", "160") });
  watch(lw, 0).push({ type: "MODIFIED", object: obj("b1", "170") });
  watch(lw, 0).close();
  await until(() => lw.watches.length === 2, "second watch");
  assert.deepEqual(r.names(), ["a1", "a2", "a3"]);
  assert.equal(watch(lw, 1).options.resourceVersion, "170");
  await r.stop();
});

test("a server that filtered is reported as such", async () => {
  const reports: boolean[] = [];
  const lw = new FakeListerWatcher().queueList(list([obj("a1", "10")], "100"));
  const r = setup(lw, shard("a", reports));
  await until(() => lw.watches.length === 1, "watch");
  assert.deepEqual(reports, [true]);
  await r.stop();
});

test("reshard drops what the shard lost and lists only what it gained, at the last resourceVersion", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a1", "10"), obj("b1", "11")], "100"));
  const r = setup(lw, shard("ab"));
  await until(() => lw.watches.length === 1, "watch");
  watch(lw, 0).push({ type: "ADDED", object: obj("b2", "120") });
  await until(() => r.names().length === 3, "b2 stored");
  // The gained shard ("c") as of resourceVersion 120, the server filtering.
  lw.queueList(list([obj("c1", "90")], "120"));
  r.notes.length = 0;
  r.reflector.reshard(shard("ac"), shard("c"));
  await until(() => lw.watches.length === 2, "watch with the new selector");
  assert.deepEqual(lw.listCalls[1], {
    resourceVersion: "120",
    resourceVersionMatch: "Exact",
    shardSelector: "letters(c)",
    limit: 500,
  });
  assert.deepEqual(r.names(), ["a1", "c1"]);
  assert.deepEqual(
    r.notes.map(
      (n) => `${n.type} ${n.type === "add" || n.type === "delete" ? unwrapDeleted(n.obj).metadata?.name : ""}`,
    ),
    ["delete b1", "delete b2", "add c1"],
  );
  assert.equal(watch(lw, 1).options.resourceVersion, "120");
  assert.equal(watch(lw, 1).options.shardSelector, "letters(ac)");
  await r.stop();
});

test("reshard whose resourceVersion is gone relists the whole new shard", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a1", "10"), obj("b1", "11")], "100"));
  const r = setup(lw, shard("ab"));
  await until(() => lw.watches.length === 1, "watch");
  lw.queueList(httpError(410, "too old resource version"), list([obj("a1", "10"), obj("c1", "200")], "300"));
  r.reflector.reshard(shard("ac"), shard("c"));
  await until(() => lw.watches.length === 2, "watch after the relist");
  assert.equal(lw.listCalls[2]?.shardSelector, "letters(ac)");
  assert.deepEqual(r.names(), ["a1", "c1"]);
  assert.equal(watch(lw, 1).options.resourceVersion, "300");
  await r.stop();
});
