// Unit tests for the Reflector's LIST/WATCH protocol against a scripted in-memory ListerWatcher.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { DeletedFinalStateUnknown, Indexer, Reflector, type ReflectorOptions } from "@crdgen/runtime/cache";
import { type CacheNotification, IndexerSink } from "#runtime/cache/sink.js";
import type { KubernetesList, ListOptions } from "@crdgen/runtime/client";
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

function setup(lw: FakeListerWatcher, extra: Partial<ReflectorOptions<Obj>> = {}) {
  const indexer = new Indexer<Obj>();
  const notes: CacheNotification<Obj>[] = [];
  const sink = new IndexerSink<Obj>(indexer, (n) => notes.push(n));
  const clock = new TestClock();
  const sleep = recordingSleep();
  const logger = recordingLogger();
  const reflector = new Reflector<Obj>({ listerWatcher: lw, sink, clock, sleep, random: () => 0.5, logger, ...extra });
  const ctrl = new AbortController();
  const done = reflector.run(ctrl.signal);
  const stop = async (): Promise<void> => {
    ctrl.abort();
    await done;
  };
  return { indexer, notes, reflector, clock, sleep, logger, stop };
}

test("reflector paginates the first list with limit 500 and resourceVersion 0", async () => {
  const lw = new FakeListerWatcher().queueList(
    list([obj("a", "10"), obj("b", "11")], "100", "tok1"),
    list([obj("c", "12")], "100"),
  );
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  assert.deepEqual(lw.listCalls, [
    { resourceVersion: "0", limit: 500 },
    { limit: 500, continue: "tok1" },
  ]);
  assert.deepEqual(r.indexer.listKeys().sort(), ["a", "b", "c"]);
  assert.equal(r.reflector.lastSyncResourceVersion(), "100");
  await r.stop();
});

test("watch starts from the list's resourceVersion with allowWatchBookmarks and a 300-600 s timeout", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  const opts = lw.watches[0]!.options;
  assert.equal(opts.resourceVersion, "100");
  assert.equal(opts.allowWatchBookmarks, true);
  assert.equal(opts.timeoutSeconds, 450); // random() = 0.5
  await r.stop();
  // And across the whole range of random(): [300, 600).
  for (const [rand, want] of [
    [0, 300],
    [0.999999, 599],
  ] as const) {
    const lw2 = new FakeListerWatcher().queueList(list([], "1"));
    const r2 = setup(lw2, { random: () => rand });
    await until(() => lw2.watches.length === 1, "watch");
    assert.equal(lw2.watches[0]!.options.timeoutSeconds, want);
    await r2.stop();
  }
});

test("watch events are applied to the store and advance the resourceVersion", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push(
    { type: "ADDED", object: obj("b", "101") },
    { type: "MODIFIED", object: obj("a", "102", { n: 2 }) },
    { type: "DELETED", object: obj("b", "103") },
    { type: "DELETED", object: obj("never-seen", "104") }, // unknown key: already gone, nothing to report
  );
  await until(() => r.reflector.lastSyncResourceVersion() === "104", "rv 104");
  assert.deepEqual(r.indexer.listKeys(), ["a"]);
  assert.equal(r.indexer.getByKey("a")?.spec?.n, 2);
  assert.deepEqual(
    r.notes.map((n) => n.type),
    ["add", "add", "update", "delete"],
  );
  await r.stop();
});

test("a bookmark advances the resourceVersion used by the next watch", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({
    type: "BOOKMARK",
    object: { kind: "Thing", apiVersion: "example.com/v1", metadata: { resourceVersion: "150" } },
  });
  lw.watches[0]!.close();
  await until(() => lw.watches.length === 2, "second watch");
  assert.equal(lw.watches[1]!.options.resourceVersion, "150");
  assert.deepEqual(r.indexer.listKeys(), ["a"]); // the bookmark changed nothing in the store
  assert.equal(r.notes.length, 1);
  await r.stop();
});

test("a clean close rewatches from the last resourceVersion without relisting or backoff", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({ type: "MODIFIED", object: obj("a", "120") });
  lw.watches[0]!.close();
  await until(() => lw.watches.length === 2, "second watch");
  assert.equal(lw.watches[1]!.options.resourceVersion, "120");
  assert.equal(lw.listCalls.length, 1);
  assert.deepEqual(r.sleep.delays, []);
  await r.stop();
});

test("410 Gone on the watch relists and delivers a DeletedFinalStateUnknown for an object that vanished", async () => {
  const a = obj("a", "10");
  const b = obj("b", "11", { n: 7 });
  const lw = new FakeListerWatcher().queueList(list([a, b], "100"), list([obj("a", "10")], "200"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.fail(httpError(410, "Gone"));
  await until(() => lw.watches.length === 2, "watch after relist");
  // Relist at the last RV (unpaginated: served from the watch cache), then watch from the new list's RV.
  assert.deepEqual(lw.listCalls[1], { resourceVersion: "100" });
  assert.equal(lw.watches[1]!.options.resourceVersion, "200");
  const deletes = r.notes.filter((n) => n.type === "delete");
  assert.equal(deletes.length, 1);
  const tomb = deletes[0]!.obj;
  assert.ok(tomb instanceof DeletedFinalStateUnknown);
  assert.equal(tomb.key, "b");
  assert.deepEqual(tomb.obj, b); // the last known state
  assert.deepEqual(r.indexer.listKeys(), ["a"]);
  // A 410 is routine (etcd compaction): one backoff step, no error logged.
  assert.deepEqual(r.sleep.delays, [1200]);
  assert.deepEqual(r.logger.errors, []);
  await r.stop();
});

test("a watch ERROR event with Status 410 Expired relists", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"), list([], "300"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({
    type: "ERROR",
    object: { kind: "Status", code: 410, reason: "Expired", message: "too old resource version: 100 (250)" },
  });
  await until(() => lw.watches.length === 2, "watch after relist");
  assert.equal(lw.listCalls.length, 2);
  assert.equal(lw.watches[1]!.options.resourceVersion, "300");
  assert.deepEqual(r.indexer.listKeys(), []);
  await r.stop();
});

test("an expired continue token is followed by one unpaginated list at the same resourceVersion (FullListIfExpired)", async () => {
  const lw = new FakeListerWatcher().queueList(
    list([obj("a", "10")], "100", "tok1"),
    httpError(410, "The provided continue parameter is too old"),
    list([obj("a", "10"), obj("b", "20")], "400"),
  );
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  assert.deepEqual(lw.listCalls, [
    { resourceVersion: "0", limit: 500 },
    { limit: 500, continue: "tok1" },
    { resourceVersion: "0" },
  ]);
  assert.deepEqual(r.indexer.listKeys().sort(), ["a", "b"]);
  assert.equal(lw.watches[0]!.options.resourceVersion, "400");
  assert.deepEqual(r.sleep.delays, []); // immediate, no backoff
  await r.stop();
});

test("other errors back off with growing delays: 800 ms doubling, capped at 30 s, with jitter", async () => {
  const failures = Array.from({ length: 8 }, () => httpError(500, "etcd unavailable"));
  const lw = new FakeListerWatcher().queueList(...failures, list([], "1"));
  const r = setup(lw, { random: () => 0 });
  await until(() => lw.watches.length === 1, "watch");
  assert.deepEqual(r.sleep.delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  assert.equal(r.logger.errors.length, 8);
  await r.stop();

  // Jitter adds up to 100 %: random() = 0.5 → 1.5×.
  const lw2 = new FakeListerWatcher().queueList(httpError(500), httpError(500), list([], "1"));
  const r2 = setup(lw2, { random: () => 0.5 });
  await until(() => lw2.watches.length === 1, "watch");
  assert.deepEqual(r2.sleep.delays, [1200, 2400]);
  await r2.stop();
});

test("backoff resets after two quiet minutes", async () => {
  const lw = new FakeListerWatcher();
  const clock = new TestClock();
  const delays: number[] = [];
  const sleep = async (ms: number): Promise<void> => {
    delays.push(ms);
    if (delays.length === 2) clock.advance(120_000);
    await new Promise((res) => setImmediate(res));
  };
  lw.queueList(httpError(500), httpError(500), httpError(500), httpError(500), list([], "1"));
  const r = setup(lw, { random: () => 0, clock, sleep });
  await until(() => lw.watches.length === 1, "watch");
  assert.deepEqual(delays, [800, 1600, 800, 1600]);
  await r.stop();
});

test("a non-410 watch error backs off and relists at the last resourceVersion", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"), list([obj("a", "10")], "200"));
  const r = setup(lw, { random: () => 0 });
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({ type: "MODIFIED", object: obj("a", "150") });
  lw.watches[0]!.fail(httpError(500, "internal error"));
  await until(() => lw.watches.length === 2, "second watch");
  assert.deepEqual(r.sleep.delays, [800]);
  assert.deepEqual(lw.listCalls[1], { resourceVersion: "150" });
  await r.stop();
});

test("a watch stream cut after it was established rewatches from the last resourceVersion without relisting or backoff", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"));
  const r = setup(lw, { random: () => 0 });
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({ type: "MODIFIED", object: obj("a", "150") });
  lw.watches[0]!.fail(
    Object.assign(new Error("GET /apis/example.com/v1/things: aborted"), {
      name: "TransportError",
      code: "ECONNRESET",
    }),
  );
  await until(() => lw.watches.length === 2, "second watch");
  assert.equal(lw.watches[1]!.options.resourceVersion, "150");
  assert.equal(lw.listCalls.length, 1, "no relist");
  assert.deepEqual(r.sleep.delays, [], "no backoff");
  await r.stop();
});

for (const code of ["MalformedResponse", "ResponseTooLarge"]) {
  test(`a watch event the client cannot decode (${code}) backs off and relists, as client-go does`, async () => {
    const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"), list([obj("a", "10")], "200"));
    const r = setup(lw, { random: () => 0 });
    await until(() => lw.watches.length === 1, "watch");
    lw.watches[0]!.push({ type: "MODIFIED", object: obj("a", "150") });
    // Watching again at once would fetch the same undecodable event again, in a tight loop.
    lw.watches[0]!.fail(
      Object.assign(new Error("GET /apis/example.com/v1/things: unable to decode an event from the watch stream"), {
        name: "TransportError",
        code,
      }),
    );
    await until(() => lw.watches.length === 2, "second watch");
    assert.deepEqual(r.sleep.delays, [800]);
    assert.deepEqual(lw.listCalls[1], { resourceVersion: "150" });
    await r.stop();
  });
}

test("429 on the watch backs off and rewatches from the same resourceVersion without relisting", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"));
  const r = setup(lw, { random: () => 0 });
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.fail(httpError(429, "Too many requests"));
  await until(() => lw.watches.length === 2, "second watch");
  assert.equal(lw.watches[1]!.options.resourceVersion, "100");
  assert.equal(lw.listCalls.length, 1);
  assert.deepEqual(r.sleep.delays, [800]);
  await r.stop();
});

test("a watch closed within 1 s without events is treated as an error and relists after backoff", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"), list([obj("a", "10")], "100"));
  const r = setup(lw, { random: () => 0 });
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.close();
  await until(() => lw.watches.length === 2, "second watch");
  assert.equal(lw.listCalls.length, 2);
  assert.deepEqual(r.sleep.delays, [800]);
  assert.match(r.logger.errors[0] ?? "", /very short watch/);
  await r.stop();
});

test("a watch the server never closes is abandoned after timeoutSeconds + 5 s and resumed", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({ type: "MODIFIED", object: obj("a", "101") });
  await until(() => r.reflector.lastSyncResourceVersion() === "101", "event applied");
  r.clock.advance(454_999);
  await new Promise((res) => setImmediate(res));
  assert.equal(lw.watches.length, 1);
  r.clock.advance(1);
  await until(() => lw.watches.length === 2, "second watch");
  assert.equal(lw.watches[0]!.signal.aborted, true);
  assert.equal(lw.watches[1]!.options.resourceVersion, "101");
  assert.equal(lw.listCalls.length, 1);
  await r.stop();
});

test("run resolves when its signal aborts, during a watch or a hanging list", async () => {
  const lw = new FakeListerWatcher().queueList(list([], "1"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  await r.stop();
  assert.equal(lw.watches[0]!.signal.aborted, true);

  const lw2 = new FakeListerWatcher(); // list never answers
  const r2 = setup(lw2);
  await until(() => lw2.listCalls.length === 1, "list");
  await r2.stop();
  assert.equal(r2.logger.errors.length, 0);
});

// Streaming list (useWatchList): the initial state arrives as the first events of a WATCH, ended by a bookmark.
const endBookmark = (rv: string) => ({
  type: "BOOKMARK" as const,
  object: {
    kind: "Thing",
    apiVersion: "example.com/v1",
    metadata: { resourceVersion: rv, annotations: { "k8s.io/initial-events-end": "true" } },
  },
});

test("useWatchList: the initial state streams on a watch, is stored at its end bookmark, and the same stream carries the changes", async () => {
  const lw = new FakeListerWatcher();
  const r = setup(lw, { useWatchList: true });
  await until(() => lw.watches.length === 1, "watch");
  const opts = lw.watches[0]!.options;
  assert.equal(opts.sendInitialEvents, true);
  assert.equal(opts.resourceVersionMatch, "NotOlderThan");
  assert.equal(opts.resourceVersion, ""); // never synced: the most recent state
  assert.equal(opts.allowWatchBookmarks, true);
  lw.watches[0]!.push(
    { type: "ADDED", object: obj("a", "10") },
    { type: "ADDED", object: obj("b", "12") },
    { type: "BOOKMARK", object: { kind: "Thing", apiVersion: "example.com/v1", metadata: { resourceVersion: "15" } } },
  );
  await new Promise((resolve) => setImmediate(resolve));
  // Nothing is stored before the end bookmark: the informer is not synced on half a state.
  assert.deepEqual(r.indexer.listKeys(), []);
  assert.equal(r.notes.length, 0);
  lw.watches[0]!.push(endBookmark("20"));
  await until(() => r.reflector.lastSyncResourceVersion() === "20", "rv 20");
  assert.deepEqual(r.indexer.listKeys().sort(), ["a", "b"]);
  assert.deepEqual(
    r.notes.map((n) => n.type),
    ["add", "add"],
  );
  lw.watches[0]!.push(
    { type: "MODIFIED", object: obj("a", "21", { n: 3 }) },
    { type: "DELETED", object: obj("b", "22") },
  );
  await until(() => r.reflector.lastSyncResourceVersion() === "22", "rv 22");
  assert.equal(r.indexer.getByKey("a")?.spec?.n, 3);
  assert.deepEqual(r.indexer.listKeys(), ["a"]);
  assert.equal(lw.listCalls.length, 0);
  assert.equal(lw.watches.length, 1);
  // A clean close after the initial events: an ordinary watch from the last RV, not another streaming list.
  lw.watches[0]!.close();
  await until(() => lw.watches.length === 2, "rewatch");
  assert.equal(lw.watches[1]!.options.resourceVersion, "22");
  assert.equal(lw.watches[1]!.options.sendInitialEvents, undefined);
  await r.stop();
});

test("useWatchList: a server that refuses the streaming list gets a standard paginated LIST for that round", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "10")], "100"));
  const r = setup(lw, { useWatchList: true });
  await until(() => lw.watches.length === 1, "streaming watch");
  lw.watches[0]!.fail(httpError(422, "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch"));
  await until(() => lw.watches.length === 2, "watch after the LIST");
  assert.deepEqual(lw.listCalls, [{ resourceVersion: "0", limit: 500 }]);
  assert.equal(lw.watches[1]!.options.resourceVersion, "100");
  assert.equal(lw.watches[1]!.options.sendInitialEvents, undefined);
  assert.deepEqual(r.indexer.listKeys(), ["a"]);
  await r.stop();
});

test('useWatchList: after a 410 the initial state streams again at resourceVersion "", and a vanished object becomes a DeletedFinalStateUnknown', async () => {
  const lw = new FakeListerWatcher();
  const r = setup(lw, { useWatchList: true });
  await until(() => lw.watches.length === 1, "watch");
  const b = obj("b", "11", { n: 7 });
  lw.watches[0]!.push({ type: "ADDED", object: obj("a", "10") }, { type: "ADDED", object: b }, endBookmark("100"));
  await until(() => r.reflector.lastSyncResourceVersion() === "100", "synced");
  lw.watches[0]!.fail(httpError(410, "Gone"));
  await until(() => lw.watches.length === 2, "second streaming watch");
  // Streams again "not older than" the last RV; the server says that RV is gone too, so the next try asks for the
  // newest state.
  assert.equal(lw.watches[1]!.options.sendInitialEvents, true);
  assert.equal(lw.watches[1]!.options.resourceVersion, "100");
  lw.watches[1]!.push({ type: "ADDED", object: obj("a", "10") }); // partial initial state, then 410
  lw.watches[1]!.push({
    type: "ERROR",
    object: { kind: "Status", code: 410, reason: "Expired", message: "too old resource version: 100 (250)" },
  });
  await until(() => lw.watches.length === 3, "third streaming watch");
  assert.equal(lw.watches[2]!.options.resourceVersion, "");
  assert.equal(r.notes.filter((n) => n.type === "delete").length, 0); // the partial state was never stored
  lw.watches[2]!.push({ type: "ADDED", object: obj("a", "10") }, endBookmark("300"));
  await until(() => r.reflector.lastSyncResourceVersion() === "300", "resynced");
  const deletes = r.notes.filter((n) => n.type === "delete");
  assert.equal(deletes.length, 1);
  const tomb = deletes[0]!.obj;
  assert.ok(tomb instanceof DeletedFinalStateUnknown);
  assert.equal(tomb.key, "b");
  assert.deepEqual(tomb.obj, b);
  assert.deepEqual(r.indexer.listKeys(), ["a"]);
  assert.equal(lw.listCalls.length, 0);
  await r.stop();
});

test("useWatchList: a stream that closes before its end bookmark stores nothing and streams again after a backoff step", async () => {
  const lw = new FakeListerWatcher();
  const r = setup(lw, { useWatchList: true });
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({ type: "ADDED", object: obj("a", "10") });
  lw.watches[0]!.close();
  await until(() => lw.watches.length === 2, "second streaming watch");
  assert.equal(r.indexer.listKeys().length, 0);
  assert.equal(r.sleep.delays.length, 1);
  assert.equal(lw.watches[1]!.options.sendInitialEvents, true);
  lw.watches[1]!.push({ type: "ADDED", object: obj("c", "12") }, endBookmark("40"));
  await until(() => r.reflector.lastSyncResourceVersion() === "40", "synced");
  assert.deepEqual(r.indexer.listKeys(), ["c"]);
  await r.stop();
});

// Helpers for the ports of client-go's TestWatchList cases below.
/** A watch request's options with timeoutSeconds checked for presence and dropped (verifyRequestOptions ignores its value). */
function watchOptionsSansTimeout(options: ListOptions): ListOptions {
  assert.equal(typeof options.timeoutSeconds, "number", "the watch request specifies timeoutSeconds");
  const { timeoutSeconds: _ignored, ...rest } = options;
  return rest;
}
/** The store's objects by name (verifyStore sorts both sides). */
function storeContent(indexer: Indexer<Obj>): Obj[] {
  return [...indexer.list()].sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
}
const streamingRequest: ListOptions = {
  resourceVersion: "",
  allowWatchBookmarks: true,
  sendInitialEvents: true,
  resourceVersionMatch: "NotOlderThan",
};

// Port of kubernetes/client-go tools/cache/reflector_watchlist_test.go, TestWatchList,
// case "stopping a watcher after synchronization results in creating a new watch request".
test("useWatchList (client-go TestWatchList): stopping a watcher after synchronization results in creating a new watch request", async () => {
  const lw = new FakeListerWatcher();
  const r = setup(lw, { useWatchList: true });
  await until(() => lw.watches.length === 1, "streaming watch");
  lw.watches[0]!.push(
    { type: "ADDED", object: obj("p1", "1") },
    { type: "ADDED", object: obj("p2", "2") },
    endBookmark("2"),
    { type: "ADDED", object: obj("p3", "3") },
  );
  lw.watches[0]!.close(); // stopAfterWatchEvents: 4 (StopAndRecreateWatch)
  await until(() => lw.watches.length === 2, "second watch request");
  lw.watches[1]!.push({ type: "ADDED", object: obj("p4", "4") });
  await until(() => r.indexer.getByKey("p4") !== undefined, "p4 stored"); // closeAfterWatchEvents: 5
  await r.stop();

  assert.equal(lw.watches.length, 2); // expectedWatchRequests
  assert.equal(lw.listCalls.length, 0); // expectedListRequests
  assert.deepEqual(
    lw.watches.map((w) => watchOptionsSansTimeout(w.options)),
    [streamingRequest, { allowWatchBookmarks: true, resourceVersion: "3" }],
  );
  assert.deepEqual(storeContent(r.indexer), [obj("p1", "1"), obj("p2", "2"), obj("p3", "3"), obj("p4", "4")]);
});

// Port of kubernetes/client-go tools/cache/reflector_watchlist_test.go, TestWatchList,
// case "expiring an established watcher results in returning an error from the reflector".
// client-go's ListAndWatch returns the error; here run() ends that round and takes one backoff step (held open below so
// the requests of the round can be counted), after logging that the watch expired.
test("useWatchList (client-go TestWatchList): expiring an established watcher results in returning an error from the reflector", async () => {
  const lw = new FakeListerWatcher();
  const delays: number[] = [];
  const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      delays.push(ms);
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
  const debug: string[] = [];
  const logger = recordingLogger();
  logger.debug = (m) => void debug.push(m);
  const r = setup(lw, { useWatchList: true, sleep, logger });
  await until(() => lw.watches.length === 1, "streaming watch");
  lw.watches[0]!.push({ type: "ADDED", object: obj("p1", "1") }, endBookmark("2"), {
    type: "ADDED",
    object: obj("p3", "3"),
  });
  lw.watches[0]!.close(); // stopAfterWatchEvents: 3
  await until(() => lw.watches.length === 2, "second watch request");
  // watchOptionsPredicate: the second watch request fails with ResourceExpired.
  lw.watches[1]!.fail(httpError(410, "rv already expired"));
  await until(() => delays.length === 1, "the round ends with a backoff step");

  assert.ok(
    debug.some((m) => m.includes("watch expired at resourceVersion 3")),
    `expected the expired watch to end the round, got ${JSON.stringify(debug)}`,
  );
  assert.equal(lw.watches.length, 2); // expectedWatchRequests
  assert.equal(lw.listCalls.length, 0); // expectedListRequests
  assert.deepEqual(
    lw.watches.map((w) => watchOptionsSansTimeout(w.options)),
    [streamingRequest, { allowWatchBookmarks: true, resourceVersion: "3" }],
  );
  assert.deepEqual(storeContent(r.indexer), [obj("p1", "1"), obj("p3", "3")]);
  await r.stop();
});

test("useWatchList defaults to client-go's feature gate in the environment, KUBE_FEATURE_WatchListClient", async () => {
  const before = process.env["KUBE_FEATURE_WatchListClient"];
  try {
    for (const [gate, streams] of [
      ["true", true],
      ["false", false],
      [undefined, false],
    ] as const) {
      if (gate === undefined) delete process.env["KUBE_FEATURE_WatchListClient"];
      else process.env["KUBE_FEATURE_WatchListClient"] = gate;
      const lw = new FakeListerWatcher().queueList(list([], "1"));
      const r = setup(lw);
      await until(() => lw.watches.length === 1, "watch");
      assert.equal(lw.watches[0]!.options.sendInitialEvents === true, streams, `KUBE_FEATURE_WatchListClient=${gate}`);
      assert.equal(lw.listCalls.length, streams ? 0 : 1);
      await r.stop();
    }
  } finally {
    if (before === undefined) delete process.env["KUBE_FEATURE_WatchListClient"];
    else process.env["KUBE_FEATURE_WatchListClient"] = before;
  }
});

test("a long watch does not keep the events it delivered alive (no reaction piles up on a long-lived promise)", async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const lw = new FakeListerWatcher().queueList(list([], "1"));
  const ignore = (): void => undefined;
  const reflector = new Reflector<Obj>({
    listerWatcher: lw,
    sink: { add: ignore, update: ignore, delete: ignore, replace: ignore },
    clock: new TestClock(),
    sleep: recordingSleep(),
    random: () => 0.5,
    logger: recordingLogger(),
  });
  const ctrl = new AbortController();
  const done = reflector.run(ctrl.signal);
  await until(() => lw.watches.length === 1, "watch");
  const delivered: Array<WeakRef<Obj>> = [];
  for (let i = 0; i < 100; i++) {
    const o = obj(`o${i}`, String(10 + i));
    delivered.push(new WeakRef(o));
    lw.watches[0]!.push({ type: "MODIFIED", object: o });
  }
  await until(() => reflector.lastSyncResourceVersion() === "109", "rv 109");
  for (let i = 0; i < 5; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const alive = delivered.filter((w) => w.deref() !== undefined).length;
  assert.ok(alive <= 2, `${alive} of 100 delivered events are still reachable while the watch runs`);
  ctrl.abort();
  await done;
});

// Ports of kubernetes/client-go tools/cache/reflector_test.go: LIST pagination, relist resourceVersions, watch
// timeouts and the expected type. client-go starts one ListAndWatch per round; here a round ends when the watch
// expires (410), and the next round's LIST is the relist under test.

/** Ends the watch of the current round with 410, so the reflector relists; resolves once the next watch opened. */
async function expireWatch(lw: FakeListerWatcher): Promise<void> {
  const n = lw.watches.length;
  lw.watches[n - 1]!.fail(httpError(410, "Gone"));
  await until(() => lw.watches.length === n + 1, `watch ${n + 1}`);
}

const pods = (from: number, to: number): Obj[] =>
  Array.from({ length: to - from }, (_, i) => obj(`pod-${from + i}`, String(from + i)));

/** The Go tests' ListFunc for ten pods in three pages chained by the continue tokens C1 and C2 (RV 10). */
function tenPodsInPages(options: ListOptions): Promise<KubernetesList<Obj>> {
  switch (options.continue ?? "") {
    case "":
      return Promise.resolve(list(pods(0, 4), "10", "C1"));
    case "C1":
      return Promise.resolve(list(pods(4, 8), "10", "C2"));
    case "C2":
      return Promise.resolve(list(pods(8, 10), "10"));
    default:
      return Promise.reject(new Error(`Unrecognized continue: ${options.continue}`));
  }
}

// Port of reflector_test.go TestReflectorWatchHandler.
test("client-go TestReflectorWatchHandler: events are stored, an object of another type is rejected, the RV follows the last event", async () => {
  const mkPod = (name: string, rv = ""): Obj => obj(name, rv);
  const lw = new FakeListerWatcher().queueList(list([mkPod("foo"), mkPod("bar")], "1"));
  const r = setup(lw, { expectedType: { apiVersion: "example.com/v1", kind: "Thing" } });
  await until(() => lw.watches.length === 1, "watch");
  const service = { apiVersion: "v1", kind: "Service", metadata: { name: "rejected" } } as Obj;
  lw.watches[0]!.push(
    { type: "ADDED", object: service },
    { type: "DELETED", object: mkPod("foo") },
    { type: "MODIFIED", object: mkPod("bar", "55") },
    { type: "ADDED", object: mkPod("baz", "32") },
  );
  await until(() => r.reflector.lastSyncResourceVersion() === "32", "rv 32");
  for (const [name, exists, rv] of [
    ["foo", false],
    ["rejected", false],
    ["bar", true, "55"],
    ["baz", true, "32"],
  ] as const) {
    const stored = r.indexer.getByKey(name);
    assert.equal(stored !== undefined, exists, `${name}: exists`);
    if (exists) assert.equal(stored?.metadata?.resourceVersion, rv, `${name}: resourceVersion`);
  }
  assert.equal(r.reflector.lastSyncResourceVersion(), "32");
  // client-go: "<name>: expected type <expected>, but watch event object had type <actual>" (utilruntime.HandleError).
  assert.deepEqual(r.logger.errors, [
    "reflector: expected type example.com/v1, Kind=Thing, but watch event object had type /v1, Kind=Service",
  ]);
  await r.stop();
});

test("the expected type defaults to the ListerWatcher's objectType, and streaming lists reject other types too", async () => {
  const lw = new FakeListerWatcher();
  Object.assign(lw, { objectType: { apiVersion: "example.com/v1", kind: "Thing" } });
  const r = setup(lw, { useWatchList: true });
  await until(() => lw.watches.length === 1, "watch");
  const other = { ...obj("intruder", "5"), apiVersion: "example.com/v2" };
  lw.watches[0]!.push({ type: "ADDED", object: obj("a", "4") }, { type: "ADDED", object: other }, endBookmark("6"));
  await until(() => r.reflector.lastSyncResourceVersion() === "6", "synced");
  lw.watches[0]!.push({ type: "MODIFIED", object: { ...obj("a", "7"), kind: "Gadget" } });
  lw.watches[0]!.push({ type: "MODIFIED", object: obj("a", "8") });
  await until(() => r.reflector.lastSyncResourceVersion() === "8", "rv 8");
  assert.deepEqual(r.indexer.listKeys(), ["a"]);
  assert.deepEqual(r.logger.errors, [
    "reflector: expected type example.com/v1, Kind=Thing, but watch event object had type example.com/v2, Kind=Thing",
    "reflector: expected type example.com/v1, Kind=Thing, but watch event object had type example.com/v1, Kind=Gadget",
  ]);
  await r.stop();
});

// Port of reflector_test.go TestWatchTimeout.
test("client-go TestWatchTimeout: the watch timeout is in [min, 2·min], and a minimum below 5 minutes is not honoured", async () => {
  for (const [name, minWatchTimeoutSeconds, expectedMin] of [
    ["no timeout", undefined, 5 * 60],
    ["small timeout not honored", 1, 5 * 60],
    ["30m timeout", 30 * 60, 30 * 60],
  ] as const) {
    for (const rand of [0, 0.5, 0.999999]) {
      const lw = new FakeListerWatcher().queueList(list([], "10"));
      const r = setup(lw, { random: () => rand, ...(minWatchTimeoutSeconds ? { minWatchTimeoutSeconds } : {}) });
      await until(() => lw.watches.length === 1, "watch");
      const got = lw.watches[0]!.options.timeoutSeconds ?? 0;
      assert.ok(
        got >= expectedMin && got <= 2 * expectedMin,
        `${name}: TimeoutSeconds ${got} not in [${expectedMin}, ${2 * expectedMin}]`,
      );
      await r.stop();
    }
  }
});

test("testMinWatchTimeoutSeconds lowers the floor for tests", async () => {
  const lw = new FakeListerWatcher().queueList(list([], "10"));
  const r = setup(lw, { random: () => 0.5, testMinWatchTimeoutSeconds: 2, minWatchTimeoutSeconds: 1800 });
  await until(() => lw.watches.length === 1, "watch");
  assert.equal(lw.watches[0]!.options.timeoutSeconds, 3);
  await r.stop();
});

// Port of reflector_test.go TestReflectorWatchListPageSize.
test("client-go TestReflectorWatchListPageSize: an explicit page size applies to a relist at a resourceVersion", async () => {
  const lw = new FakeListerWatcher().queueList(list([], "10"), tenPodsInPages, tenPodsInPages, tenPodsInPages);
  const r = setup(lw, { pageSize: 4 });
  await until(() => lw.watches.length === 1, "watch"); // the store is at resourceVersion 10
  await expireWatch(lw);
  // "Expected list Limit of 4" on every call, the relist at "10" included.
  assert.deepEqual(
    lw.listCalls.map((o) => o.limit),
    [4, 4, 4, 4],
  );
  assert.equal(lw.listCalls[1]!.resourceVersion, "10");
  assert.equal(r.indexer.list().length, 10);
  await r.stop();
});

// Port of reflector_test.go TestReflectorNotPaginatingNotConsistentReads.
test("client-go TestReflectorNotPaginatingNotConsistentReads: without a page size, a relist at a resourceVersion is unpaginated", async () => {
  const lw = new FakeListerWatcher().queueList(list([], "10"), list(pods(0, 10), "10"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  await expireWatch(lw);
  assert.equal(lw.listCalls[1]!.resourceVersion, "10");
  assert.equal(lw.listCalls[1]!.limit, undefined); // "Expected list Limit of 0"
  assert.equal(r.indexer.list().length, 10);
  await r.stop();
});

// Port of reflector_test.go TestReflectorPaginatingNonConsistentReadsIfWatchCacheDisabled.
test("client-go TestReflectorPaginatingNonConsistentReadsIfWatchCacheDisabled: a paginated RV 0 list keeps later lists paginated", async () => {
  const lw = new FakeListerWatcher().queueList(...Array.from({ length: 6 }, () => tenPodsInPages));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  assert.equal(r.indexer.list().length, 10);
  await expireWatch(lw);
  assert.equal(r.indexer.list().length, 10);
  assert.equal(lw.listCalls.length, 6);
  for (const o of lw.listCalls) assert.equal(o.limit, 500, "Check that default pager limit is set");
  assert.equal(lw.listCalls[3]!.resourceVersion, "10");
  await r.stop();
});

// Port of reflector_test.go TestReflectorResyncWithResourceVersion.
test("client-go TestReflectorResyncWithResourceVersion: a relist asks for the last synced resourceVersion", async () => {
  const lw = new FakeListerWatcher().queueList(list(pods(0, 4), "10"), list(pods(0, 8), "11"));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  assert.equal(r.indexer.list().length, 4);
  await expireWatch(lw);
  assert.equal(r.indexer.list().length, 8);
  assert.deepEqual(
    lw.listCalls.map((o) => o.resourceVersion),
    ["0", "10"],
  );
  await r.stop();
});

// Port of reflector_test.go TestReflectorExpiredExactResourceVersion.
test('client-go TestReflectorExpiredExactResourceVersion: an expired relist resourceVersion falls back to ""', async () => {
  const lw = new FakeListerWatcher().queueList(
    list(pods(0, 4), "10"),
    httpError(410, "The resourceVersion for the provided watch is too old."),
    list(pods(0, 8), "11"),
  );
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  assert.equal(r.indexer.list().length, 4);
  await expireWatch(lw);
  assert.equal(r.indexer.list().length, 8);
  assert.deepEqual(
    lw.listCalls.map((o) => o.resourceVersion),
    ["0", "10", ""],
  );
  await r.stop();
});

// Port of reflector_test.go TestReflectorFullListIfExpired.
test("client-go TestReflectorFullListIfExpired: an expired second page is followed by a full list at the same resourceVersion", async () => {
  const expired = (): Error =>
    Object.assign(new Error("The resourceVersion for the provided watch is too old."), {
      status: 410,
      reason: "Expired",
    });
  const listFunc = (options: ListOptions): Promise<KubernetesList<Obj>> => {
    const key = `${options.resourceVersion ?? ""}|${options.continue ?? ""}|${options.limit ?? 0}`;
    switch (key) {
      case "0||4": // initial limited list
        return Promise.resolve(list(pods(0, 4), "10"));
      case "10||4": // first page of the rv=10 list
        return Promise.resolve(list(pods(0, 4), "11", "C1"));
      case "|C1|4": // second page of the above list
        return Promise.reject(expired());
      case "10||0": // rv=10 unlimited list
        return Promise.resolve(list(pods(0, 8), "11"));
      default:
        return Promise.reject(new Error(`unexpected list options: ${JSON.stringify(options)}`));
    }
  };
  // The unlimited list comes without a limit here (client-go sends Limit 0).
  const lw = new FakeListerWatcher().queueList(
    ...Array.from({ length: 4 }, () => (o: ListOptions) => listFunc({ ...o, limit: o.limit ?? 0 })),
  );
  const r = setup(lw, { pageSize: 4 });
  await until(() => lw.watches.length === 1, "watch");
  assert.equal(r.indexer.list().length, 4);
  await expireWatch(lw);
  assert.equal(r.indexer.list().length, 8);
  assert.deepEqual(
    lw.listCalls.map((o) => o.resourceVersion ?? ""),
    ["0", "10", "", "10"],
  );
  assert.deepEqual(r.logger.errors, []);
  await r.stop();
});

// Port of reflector_test.go TestReflectorFullListIfTooLarge.
test('client-go TestReflectorFullListIfTooLarge: each variant of "too large resource version" relists with ""', async () => {
  const tooLarge = (message: string, causes: Array<{ reason?: string; message?: string }>): Error =>
    Object.assign(new Error(`Timeout: ${message}`), {
      status: 504,
      reason: "Timeout",
      body: { kind: "Status", code: 504, reason: "Timeout", message: `Timeout: ${message}`, details: { causes } },
    });
  let version = 30;
  const listFunc = (options: ListOptions): Promise<KubernetesList<Obj>> => {
    const resourceVersion = String(version);
    switch (options.resourceVersion) {
      case "0": // initial list
        return Promise.resolve(list([], "20"));
      case "20": // relist after the initial list
        return Promise.reject(tooLarge("too large resource version", [{ reason: "ResourceVersionTooLarge" }]));
      case "30": // the error format of API servers 1.17.0-1.18.5
        return Promise.reject(tooLarge("too large resource version", [{ message: "Too large resource version" }]));
      case "40": // the error format of API servers before 1.17.0
        return Promise.reject(tooLarge("Too large resource version", []));
      case "": // relist from etcd after "too large"
        version += 10;
        return Promise.resolve(list([], resourceVersion));
      default:
        return Promise.reject(new Error(`unexpected List call: ${options.resourceVersion}`));
    }
  };
  const lw = new FakeListerWatcher().queueList(...Array.from({ length: 7 }, () => listFunc));
  const r = setup(lw);
  await until(() => lw.watches.length === 1, "watch");
  for (let i = 1; i <= 3; i++) await expireWatch(lw);
  assert.deepEqual(
    lw.listCalls.map((o) => o.resourceVersion),
    ["0", "20", "", "30", "", "40", ""],
  );
  assert.deepEqual(r.logger.errors, []);
  await r.stop();
});
