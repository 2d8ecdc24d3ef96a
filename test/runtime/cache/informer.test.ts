// Unit tests for SharedIndexInformer delivery, resync, sync tracking, and SharedInformerFactory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import {
  type DeletedFinalStateUnknown,
  Lister,
  type ResourceEventHandler,
  SharedIndexInformer,
  type SharedIndexInformerOptions,
  SharedInformerFactory,
  isDeletedFinalStateUnknown,
} from "@crdgen/runtime/cache";
import {
  FakeListerWatcher,
  type Obj,
  TestClock,
  flush,
  httpError,
  list,
  obj,
  recordingLogger,
  recordingSleep,
  until,
} from "../support/cache-fakes.js";
import { collectGarbage } from "../support/gc.js";

function makeInformer(lw: FakeListerWatcher, extra: Partial<SharedIndexInformerOptions<Obj>> = {}) {
  const clock = new TestClock();
  const logger = recordingLogger();
  const informer = new SharedIndexInformer<Obj>({
    listerWatcher: lw,
    name: "things",
    clock,
    logger,
    reflector: { sleep: recordingSleep(), random: () => 0.5 },
    ...extra,
  });
  const ctrl = new AbortController();
  let running: Promise<void> | undefined;
  return {
    informer,
    clock,
    logger,
    start: () => (running = informer.run(ctrl.signal)),
    stop: async () => {
      ctrl.abort();
      await running;
    },
  };
}

/** A handler that records "add a@1", "update a@1->a@2", "delete a@3" / "delete? b@11" (tombstone). */
function recorder(prefix = ""): ResourceEventHandler<Obj> & { log: string[] } {
  const log: string[] = [];
  const id = (o: Obj): string => `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
  return {
    log,
    addFunc: (o, initial) => void log.push(`${prefix}add ${id(o)}${initial ? " (initial)" : ""}`),
    updateFunc: (a, b) => void log.push(`${prefix}update ${id(a)}->${id(b)}`),
    deleteFunc: (o: Obj | DeletedFinalStateUnknown<Obj>) =>
      void log.push(isDeletedFinalStateUnknown<Obj>(o) ? `${prefix}delete? ${id(o.obj)}` : `${prefix}delete ${id(o)}`),
  };
}

test("informer delivers add/update(old,new)/delete in order", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "1")], "1"));
  const t = makeInformer(lw);
  const h = recorder();
  t.informer.addEventHandler(h);
  void t.start();
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push(
    { type: "MODIFIED", object: obj("a", "2") },
    { type: "ADDED", object: obj("b", "3") },
    { type: "MODIFIED", object: obj("b", "4") },
    { type: "DELETED", object: obj("a", "5") },
  );
  await until(() => h.log.length === 5, "5 events");
  assert.deepEqual(h.log, ["add a@1 (initial)", "update a@1->a@2", "add b@3", "update b@3->b@4", "delete a@5"]);
  assert.deepEqual(t.informer.getIndexer().listKeys(), ["b"]);
  assert.equal(t.informer.lastSyncResourceVersion(), "5");
  await t.stop();
});

test("handlers observe the cache already updated when notified", async () => {
  const lw = new FakeListerWatcher().queueList(list([], "1"));
  const t = makeInformer(lw);
  const lister = new Lister<Obj>(t.informer.getIndexer());
  const seen: Array<string | undefined> = [];
  t.informer.addEventHandler({
    addFunc: (o) => void seen.push(lister.get("", o.metadata!.name!)?.metadata?.resourceVersion),
  });
  void t.start();
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({ type: "ADDED", object: obj("a", "7") });
  await until(() => seen.length === 1, "add");
  assert.deepEqual(seen, ["7"]);
  await t.stop();
});

test("a relist delivers a tombstone for a vanished object and no update for unchanged ones", async () => {
  const lw = new FakeListerWatcher().queueList(
    list([obj("a", "1"), obj("b", "2"), obj("c", "3")], "3"),
    list([obj("a", "1"), obj("c", "9"), obj("d", "8")], "9"),
  );
  const t = makeInformer(lw);
  const h = recorder();
  t.informer.addEventHandler(h);
  void t.start();
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.fail(httpError(410));
  await until(() => lw.watches.length === 2, "relist");
  // Deletes first, then adds/updates in list order; a@1 is unchanged (same resourceVersion), so it is not reported.
  assert.deepEqual(h.log.slice(3), ["delete? b@2", "update c@3->c@9", "add d@8"]);
  await t.stop();
});

test("late handler gets the cache as adds before later events", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "1"), obj("b", "2")], "2"));
  const t = makeInformer(lw);
  void t.start();
  assert.equal(await t.informer.waitForCacheSync(), true);
  const late = recorder();
  const reg = t.informer.addEventHandler(late);
  assert.deepEqual(late.log.sort(), ["add a@1 (initial)", "add b@2 (initial)"]);
  assert.equal(reg.hasSynced(), true);
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({ type: "MODIFIED", object: obj("a", "3") });
  await until(() => late.log.length === 3, "update");
  assert.equal(late.log[2], "update a@1->a@3");
  await t.stop();
});

test("transform drops managedFields by default before storing", async () => {
  const withMF = obj("a", "1");
  withMF.metadata!.managedFields = [{ manager: "kubectl", operation: "Apply" }];
  const lw = new FakeListerWatcher().queueList(list([withMF], "1"));
  const t = makeInformer(lw);
  const got: Obj[] = [];
  t.informer.addEventHandler({ addFunc: (o) => void got.push(o) });
  void t.start();
  await until(() => lw.watches.length === 1, "watch");
  const b = structuredClone(withMF);
  b.metadata!.name = "b";
  lw.watches[0]!.push({ type: "ADDED", object: b });
  await until(() => got.length === 2, "two adds");
  for (const o of [...got, ...t.informer.getIndexer().list()]) {
    assert.equal(o.metadata?.managedFields, undefined);
    assert.equal(o.metadata?.resourceVersion, "1");
  }
  await t.stop();
});

test("a custom transform replaces the default", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "1")], "1"));
  const t = makeInformer(lw, { transform: (o) => ({ ...o, spec: { n: 42 } }) });
  void t.start();
  await t.informer.waitForCacheSync();
  assert.equal(t.informer.getIndexer().getByKey("a")?.spec?.n, 42);
  await t.stop();
});

test("freezeObjects makes a careless mutation of a cached object throw (the indices rely on cached objects never changing)", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "1", { labels: { color: "red" } })], "1"));
  const t = makeInformer(lw, { freezeObjects: true });
  void t.start();
  await t.informer.waitForCacheSync();
  const cached = t.informer.getIndexer().getByKey("a")!;
  assert.throws(() => {
    cached.metadata!.labels!.color = "blue";
  }, TypeError);
  assert.equal(t.informer.getIndexer().getByKey("a")?.metadata?.labels?.color, "red");
  await t.stop();
});

test("resync delivers update(obj, obj) for every cached object each period", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "1"), obj("b", "2")], "2"));
  const t = makeInformer(lw, { resyncPeriodMs: 30_000 });
  const pairs: Array<[Obj, Obj]> = [];
  t.informer.addEventHandler({ updateFunc: (o, n) => void pairs.push([o, n]) });
  void t.start();
  await t.informer.waitForCacheSync();
  t.clock.advance(29_999);
  assert.equal(pairs.length, 0);
  t.clock.advance(1);
  assert.equal(pairs.length, 2);
  for (const [o, n] of pairs) assert.equal(o, n);
  assert.deepEqual(pairs.map(([o]) => o.metadata!.name).sort(), ["a", "b"]);
  t.clock.advance(30_000);
  assert.equal(pairs.length, 4);
  await t.stop();
  t.clock.advance(30_000);
  assert.equal(pairs.length, 4); // stopped: no more resyncs
});

test("hasSynced false before and true after the first list", async () => {
  let answer!: () => void;
  const lw = new FakeListerWatcher().queueList(
    () => new Promise((res) => (answer = () => res(list([obj("a", "1")], "1")))),
  );
  const t = makeInformer(lw);
  const reg = t.informer.addEventHandler({});
  // An async handler still busy with the initial list is not synced yet, even when the informer is.
  let releaseSlow!: () => void;
  const slowGate = new Promise<void>((r) => (releaseSlow = r));
  const slowReg = t.informer.addEventHandler({ addFunc: () => slowGate });
  assert.equal(t.informer.hasSynced(), false);
  let synced: boolean | undefined;
  void t.informer.waitForCacheSync().then((v) => (synced = v));
  void t.start();
  await until(() => lw.listCalls.length === 1, "list");
  await flush();
  assert.equal(t.informer.hasSynced(), false);
  assert.equal(reg.hasSynced(), false);
  assert.equal(synced, undefined);
  answer();
  await until(() => synced !== undefined, "sync");
  assert.equal(synced, true);
  assert.equal(t.informer.hasSynced(), true);
  assert.equal(reg.hasSynced(), true);
  assert.equal(slowReg.hasSynced(), false);
  releaseSlow();
  await flush();
  assert.equal(slowReg.hasSynced(), true);
  await t.stop();
});

test("waitForCacheSync resolves false when its signal aborts first", async () => {
  const t = makeInformer(new FakeListerWatcher());
  void t.start();
  const ctrl = new AbortController();
  const p = t.informer.waitForCacheSync(ctrl.signal);
  ctrl.abort();
  assert.equal(await p, false);
  await t.stop();
});

// client-go processorListener.run: a handler that panics has that notification skipped and gets the next ones
// (kubernetes/kubernetes#58394); its initial-list adds still count towards its hasSynced (kubernetes#129024). client-go
// has no unit test case for either; this is the behaviour those changes describe, without client-go's 1 s pause.
test("a throwing handler does not stop other handlers or later deliveries", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "1"), obj("b", "2")], "2"));
  const t = makeInformer(lw);
  let calls = 0;
  const throwing = t.informer.addEventHandler({
    addFunc: () => {
      calls++;
      throw new Error("boom");
    },
  });
  const good = recorder();
  t.informer.addEventHandler(good);
  void t.start();
  await until(() => lw.watches.length === 1, "watch");
  assert.equal(throwing.hasSynced(), true, "the initial adds were delivered, though each one threw");
  lw.watches[0]!.push({ type: "ADDED", object: obj("c", "3") });
  await until(() => good.log.length === 3, "three adds");
  assert.equal(calls, 3);
  assert.equal(t.logger.errors.length, 3);
  assert.match(t.logger.errors[0]!, /boom/);
  await t.stop();
});

test("an async handler gets its notifications one at a time, in order, without holding up others", async () => {
  const lw = new FakeListerWatcher().queueList(list([], "1"));
  const t = makeInformer(lw);
  const log: string[] = [];
  let active = 0;
  let release!: () => void;
  let gate = new Promise<void>((r) => (release = r));
  t.informer.addEventHandler({
    addFunc: async (o) => {
      active++;
      assert.equal(active, 1);
      log.push(`start ${o.metadata!.name}`);
      await gate;
      log.push(`end ${o.metadata!.name}`);
      active--;
      if (o.metadata!.name === "a") throw new Error("async boom");
    },
  });
  const fast = recorder();
  t.informer.addEventHandler(fast);
  void t.start();
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({ type: "ADDED", object: obj("a", "2") }, { type: "ADDED", object: obj("b", "3") });
  await until(() => fast.log.length === 2, "fast handler got both");
  assert.deepEqual(log, ["start a"]);
  const r1 = release;
  gate = new Promise<void>((r) => (release = r));
  r1();
  await until(() => log.length === 3, "b started");
  release();
  await until(() => log.length === 4, "b done");
  assert.deepEqual(log, ["start a", "end a", "start b", "end b"]);
  assert.equal(t.logger.errors.length, 1);
  await t.stop();
});

test("a removed handler receives nothing more", async () => {
  const lw = new FakeListerWatcher().queueList(list([], "1"));
  const t = makeInformer(lw);
  const h = recorder();
  const reg = t.informer.addEventHandler(h);
  void t.start();
  await until(() => lw.watches.length === 1, "watch");
  lw.watches[0]!.push({ type: "ADDED", object: obj("a", "2") });
  await until(() => h.log.length === 1, "add");
  reg.remove();
  lw.watches[0]!.push({ type: "ADDED", object: obj("b", "3") });
  await until(() => t.informer.getIndexer().size === 2, "b cached");
  assert.deepEqual(h.log, ["add a@2"]);
  await t.stop();
});

test("addIndexers after start backfills the running cache", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("a", "1", { labels: { app: "x" } }), obj("b", "1")], "1"));
  const t = makeInformer(lw);
  void t.start();
  await t.informer.waitForCacheSync();
  t.informer.addIndexers({ app: (o) => (o.metadata?.labels?.app ? [o.metadata.labels.app] : []) });
  assert.deepEqual(t.informer.getIndexer().indexKeys("app", "x"), ["a"]);
  await t.stop();
});

test("informer factory shares one informer per key, starts, syncs and shuts down", async () => {
  const factory = new SharedInformerFactory();
  const lwA = new FakeListerWatcher().queueList(list([obj("a", "1")], "1"));
  const lwB = new FakeListerWatcher().queueList(list([obj("b", "1")], "1"));
  let created = 0;
  const mk = (lw: FakeListerWatcher) => () => {
    created++;
    return makeInformer(lw).informer;
  };
  const i1 = factory.informerFor("things|ns=a", mk(lwA));
  const i2 = factory.informerFor("things|ns=a", mk(lwA));
  const i3 = factory.informerFor("things|ns=b", mk(lwB));
  assert.equal(i1, i2);
  assert.notEqual(i1, i3);
  assert.equal(created, 2);
  const ctrl = new AbortController();
  factory.start(ctrl.signal);
  assert.equal(await factory.waitForCacheSync(), true);
  assert.equal(i1.hasSynced() && i3.hasSynced(), true);
  await factory.shutdown();
  assert.equal(i1.isStopped() && i3.isStopped(), true);
  assert.equal(lwA.watches[0]!.signal.aborted, true);
});

test("a factory of 15 informers puts one or two listeners on the caller's signal, and node warns of no listener leak", async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
  process.on("warning", onWarning);
  try {
    const factory = new SharedInformerFactory();
    // No LIST answer scripted: every informer waits for its first LIST until the signal aborts.
    const lws = Array.from({ length: 15 }, () => new FakeListerWatcher());
    lws.forEach((lw, i) => factory.informerFor(`things|ns=${i}`, () => makeInformer(lw).informer));
    const ctrl = new AbortController();
    factory.start(ctrl.signal);
    const synced = factory.waitForCacheSync(ctrl.signal);
    await flush();
    assert.ok(
      getEventListeners(ctrl.signal, "abort").length <= 2,
      `listeners on the caller's signal: ${getEventListeners(ctrl.signal, "abort").length}`,
    );
    ctrl.abort();
    assert.equal(await synced, false);
    await factory.shutdown();
    assert.equal(
      lws.every((lw) => lw.listCalls.length === 1),
      true,
    );
    await new Promise((resolve) => setImmediate(resolve)); // process warnings are emitted on a later tick
    assert.deepEqual(
      warnings.filter((w) => w.startsWith("MaxListenersExceededWarning")),
      [],
    );
  } finally {
    process.off("warning", onWarning);
  }
});

// Ports of kubernetes/client-go tools/cache/shared_informer_test.go: per-handler resync periods.

/** client-go's testListener: records the name of every object it is handed by add or update. */
function testListener(name: string, resyncPeriodMs: number, ...expected: string[]) {
  const l = {
    name,
    resyncPeriodMs,
    expected: new Set(expected),
    received: [] as string[],
    handler: {
      addFunc: (o: Obj) => void l.received.push(o.metadata!.name!),
      updateFunc: (_old: Obj, o: Obj) => void l.received.push(o.metadata!.name!),
    } satisfies ResourceEventHandler<Obj>,
    /** satisfiedExpectations: the set of names received equals the set expected. */
    ok: () => new Set(l.received).size === l.expected.size && [...l.received].every((n) => l.expected.has(n)),
  };
  return l;
}

// Port of shared_informer_test.go TestListenerResyncPeriods.
test("client-go TestListenerResyncPeriods: each handler is resynced on its own period, and only the handlers due", async () => {
  const lw = new FakeListerWatcher().queueList(list([obj("pod1", "1"), obj("pod2", "2")], "2"));
  // create the shared informer and resync every 1s
  const t = makeInformer(lw, { resyncPeriodMs: 1000 });
  const listener1 = testListener("listener1", 0, "pod1", "pod2"); // never resync
  const listener2 = testListener("listener2", 2000, "pod1", "pod2");
  const listener3 = testListener("listener3", 3000, "pod1", "pod2");
  const listeners = [listener1, listener2, listener3];
  for (const l of listeners) t.informer.addEventHandlerWithResyncPeriod(l.handler, l.resyncPeriodMs);
  void t.start();
  // ensure all listeners got the initial List
  await until(() => listeners.every((l) => l.ok()), "initial list delivered");
  await flush();
  for (const l of listeners)
    assert.ok(l.ok(), `${l.name}: expected ${[...l.expected].join()}, got ${l.received.join()}`);
  for (const l of listeners) l.received = [];

  // advance so listener2 gets a resync
  t.clock.advance(2000);
  await flush();
  assert.ok(listener2.ok(), `listener2: expected ${[...listener2.expected].join()}, got ${listener2.received.join()}`);
  assert.equal(listener1.received.length, 0, "listener1: should not have resynced");
  assert.equal(listener3.received.length, 0, "listener3: should not have resynced");
  for (const l of listeners) l.received = [];

  // advance so listener3 gets a resync
  t.clock.advance(1000);
  await flush();
  assert.ok(listener3.ok(), `listener3: expected ${[...listener3.expected].join()}, got ${listener3.received.join()}`);
  assert.equal(listener1.received.length, 0, "listener1: should not have resynced");
  assert.equal(listener2.received.length, 0, "listener2: should not have resynced");
  await t.stop();
});

// Port of shared_informer_test.go TestSharedInformerWatchDisruption: changes made while the watch was down (pod3
// added, pod2 bumped) reach both handlers once the watch is back; the handler due for a resync also gets pod1. The
// fake controller source replays changes after the watch's resourceVersion, which a re-watch does here ("replay");
// the second variant has the re-watch answered with 410 Gone (the "too-old-watch" of the upstream comment), so the
// changes come from a relist, whose unchanged pod1 is a sync that only the resyncing handler may see.
for (const disruption of ["replay", "relist after 410 Gone"] as const) {
  test(`client-go TestSharedInformerWatchDisruption (${disruption}): handlers with and without resync see the expected state`, async () => {
    const pod1 = obj("pod1", "1");
    const pod2 = obj("pod2", "2");
    const lw = new FakeListerWatcher().queueList(list([pod1, pod2], "2"));
    // create the shared informer and resync every 1s
    const t = makeInformer(lw, { resyncPeriodMs: 1000 });
    const listenerNoResync = testListener("listenerNoResync", 0, "pod1", "pod2");
    const listenerResync = testListener("listenerResync", 1000, "pod1", "pod2");
    const listeners = [listenerNoResync, listenerResync];
    for (const l of listeners) t.informer.addEventHandlerWithResyncPeriod(l.handler, l.resyncPeriodMs);
    void t.start();
    await until(() => listeners.every((l) => l.ok()) && lw.watches.length === 1, "initial list delivered");

    // Add pod3, bump pod2 but don't broadcast it, so that the change will be seen only after the watch is back
    const pod3 = obj("pod3", "3");
    const pod2v4 = obj("pod2", "4");
    if (disruption === "relist after 410 Gone") lw.queueList(list([pod1, pod2v4, pod3], "4"));
    await flush();
    // Ensure that nobody saw any changes
    for (const l of listeners)
      assert.ok(l.ok(), `${l.name}: expected ${[...l.expected].join()}, got ${l.received.join()}`);
    for (const l of listeners) l.received = [];
    listenerNoResync.expected = new Set(["pod2", "pod3"]);
    listenerResync.expected = new Set(["pod1", "pod2", "pod3"]);

    // This decides which handlers are due for a resync: listenerResync only
    t.clock.advance(1000);
    // Simulate a connection loss (or even just a too-old-watch)
    lw.watches[0]!.close();
    await until(() => lw.watches.length === 2, "a new watch");
    if (disruption === "replay") {
      lw.watches[1]!.push({ type: "ADDED", object: pod3 }, { type: "MODIFIED", object: pod2v4 });
    } else {
      lw.watches[1]!.push({
        type: "ERROR",
        object: { kind: "Status", code: 410, reason: "Expired", message: "too old resource version: 2 (4)" },
      });
    }
    await until(() => listeners.every((l) => l.ok()), "the changes delivered").catch(() => undefined);
    await flush();
    for (const l of listeners)
      assert.ok(l.ok(), `${l.name}: expected ${[...l.expected].join()}, got ${l.received.join()}`);
    await t.stop();
  });
}

// Port of shared_informer_test.go TestResyncCheckPeriod.
test("client-go TestResyncCheckPeriod: before start, a shorter handler period lowers the informer's check period", () => {
  // create the shared informer and resync every 12 hours
  const t = makeInformer(new FakeListerWatcher(), { resyncPeriodMs: 12 * 3600_000 });
  const handler1 = t.informer.addEventHandlerWithResyncPeriod({}, 0); // never resync
  assert.equal(t.informer.resyncCheckPeriodMs(), 12 * 3600_000);
  assert.equal(handler1.resyncPeriodMs(), 0);

  const handler2 = t.informer.addEventHandlerWithResyncPeriod({}, 60_000); // every minute
  assert.equal(t.informer.resyncCheckPeriodMs(), 60_000);
  assert.equal(handler1.resyncPeriodMs(), 0);
  assert.equal(handler2.resyncPeriodMs(), 60_000);

  const handler3 = t.informer.addEventHandlerWithResyncPeriod({}, 55_000); // every 55 seconds
  assert.equal(t.informer.resyncCheckPeriodMs(), 55_000);
  assert.equal(handler1.resyncPeriodMs(), 0);
  assert.equal(handler2.resyncPeriodMs(), 60_000);
  assert.equal(handler3.resyncPeriodMs(), 55_000);

  const handler4 = t.informer.addEventHandlerWithResyncPeriod({}, 5_000); // every 5 seconds
  assert.equal(t.informer.resyncCheckPeriodMs(), 5_000);
  assert.equal(handler1.resyncPeriodMs(), 0);
  assert.equal(handler2.resyncPeriodMs(), 60_000);
  assert.equal(handler3.resyncPeriodMs(), 55_000);
  assert.equal(handler4.resyncPeriodMs(), 5_000);
});

// Port of shared_informer_test.go TestAddOnStoppedSharedInformer.
test("client-go TestAddOnStoppedSharedInformer: a stopped informer refuses a new handler", async () => {
  const t = makeInformer(new FakeListerWatcher().queueList(list([obj("pod1", "1")], "1")));
  void t.start();
  await t.stop();
  assert.equal(t.informer.isStopped(), true);
  assert.throws(
    () => t.informer.addEventHandlerWithResyncPeriod({}, 0),
    (err: Error) => err.message.endsWith("was not added to shared informer because it has stopped already"),
  );
});

test("handler resync periods after start, below 1 s, or on an informer without resync follow client-go, with a warning", async () => {
  const warnings: string[] = [];
  const lw = new FakeListerWatcher().queueList(list([obj("a", "1")], "1"));
  const t = makeInformer(lw, { resyncPeriodMs: 10_000 });
  t.logger.warn = (m) => void warnings.push(m);
  const tiny = t.informer.addEventHandlerWithResyncPeriod({}, 10); // raised to minimumResyncPeriod, lowers the check
  assert.equal(tiny.resyncPeriodMs(), 1000);
  assert.equal(t.informer.resyncCheckPeriodMs(), 1000);
  assert.match(warnings[0] ?? "", /resync period is too small/);
  const defaulted = t.informer.addEventHandler({});
  assert.equal(defaulted.resyncPeriodMs(), 10_000); // the informer's default period, not the lowered check period
  void t.start();
  await t.informer.waitForCacheSync();
  const late = t.informer.addEventHandlerWithResyncPeriod({}, 1500);
  assert.equal(late.resyncPeriodMs(), 1500);
  await t.stop();

  // After start the check period no longer moves: a shorter handler period is raised to it.
  const started = makeInformer(new FakeListerWatcher().queueList(list([], "1")), { resyncPeriodMs: 5000 });
  started.logger.warn = (m) => void warnings.push(m);
  void started.start();
  await started.informer.waitForCacheSync();
  const raised = started.informer.addEventHandlerWithResyncPeriod({}, 2000);
  assert.equal(raised.resyncPeriodMs(), 5000);
  assert.equal(started.informer.resyncCheckPeriodMs(), 5000);
  assert.match(warnings.at(-1) ?? "", /the informer has already started/);
  await started.stop();

  const none = makeInformer(new FakeListerWatcher()); // no resync period: no handler is ever resynced
  none.logger.warn = (m) => void warnings.push(m);
  const forced = none.informer.addEventHandlerWithResyncPeriod({}, 30_000);
  assert.equal(forced.resyncPeriodMs(), 0);
  assert.equal(none.informer.resyncCheckPeriodMs(), 0);
  assert.match(warnings.at(-1) ?? "", /doesn't support resyncing/);
});

test("start() called again and again with the same signal adds no listener to it", async () => {
  const factory = new SharedInformerFactory();
  const ctrl = new AbortController();
  for (let i = 0; i < 100; i++) {
    factory.informerFor(`things|ns=${i % 3}`, () => makeInformer(new FakeListerWatcher()).informer);
    factory.start(ctrl.signal);
  }
  assert.equal(getEventListeners(ctrl.signal, "abort").length, 1);
  await factory.shutdown();
  assert.equal(getEventListeners(ctrl.signal, "abort").length, 0, "shutdown lets go of the caller's signal");
});

test("the factory keeps no reference to the signals of start() calls that have aborted", async () => {
  const factory = new SharedInformerFactory();
  const callers: Array<WeakRef<AbortSignal>> = [];
  const startAndAbort = async (i: number): Promise<void> => {
    const ctrl = new AbortController();
    callers.push(new WeakRef(ctrl.signal));
    // No LIST answer scripted: the informer waits for its first LIST until the signal aborts.
    factory.informerFor(`things|ns=${i}`, () => makeInformer(new FakeListerWatcher()).informer);
    factory.start(ctrl.signal);
    factory.start(ctrl.signal); // nothing new to start
    await flush();
    ctrl.abort();
    await flush();
  };
  for (let i = 0; i < 20; i++) await startAndAbort(i);
  await collectGarbage();
  const alive = callers.filter((ref) => ref.deref() !== undefined).length;
  assert.equal(alive, 0, `${alive} of 20 aborted callers' signals are still reachable from the factory`);
  await factory.shutdown();
});
