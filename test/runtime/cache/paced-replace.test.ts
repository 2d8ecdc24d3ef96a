// A large relist is stored and reported in chunks with turns of the event loop between them, so timers (a sharding
// member's Lease renewal) and I/O run meanwhile; readers still never see a half-replaced store, and handlers get
// every change exactly once. Behaviour only: what runs before what, never how long anything takes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SharedIndexInformer } from "@crdgen/runtime/cache";
import { Indexer, metaNamespaceIndexFunc } from "#runtime/cache/indexer.js";
import { CHUNK_ITEMS } from "#runtime/cache/paced.js";
import { type CacheNotification, IndexerSink } from "#runtime/cache/sink.js";
import { FakeListerWatcher, type Obj, list, obj, quiet, recordingSleep, until } from "../support/cache-fakes.js";

const LARGE = 5 * CHUNK_ITEMS;

function objects(prefix: string, count: number, rv: string): Obj[] {
  return Array.from({ length: count }, (_, i) => obj(`${prefix}${i}`, rv, { ns: `ns${i % 7}` }));
}

/** An informer whose first LIST answers with items (or what a step function returns), then watches forever. */
function informerListing(first: Obj[] | Parameters<FakeListerWatcher["queueList"]>[0]) {
  const lw = new FakeListerWatcher().queueList(Array.isArray(first) ? list(first, "100") : first);
  const informer = new SharedIndexInformer<Obj>({
    listerWatcher: lw,
    name: "things",
    logger: quiet,
    reflector: { sleep: recordingSleep(), random: () => 0.5 },
  });
  const ctrl = new AbortController();
  return { informer, run: () => informer.run(ctrl.signal), stop: () => ctrl.abort() };
}

/** Calls fn on every turn of the event loop until stop() (setImmediate: after timers and I/O had their turn). */
function everyTurn(fn: () => void): { stop(): void; turns(): number } {
  let stopped = false;
  let turns = 0;
  const turn = (): void => {
    if (stopped) return;
    turns++;
    fn();
    setImmediate(turn);
  };
  setImmediate(turn);
  return { stop: () => void (stopped = true), turns: () => turns };
}

test("a timer due during a large relist runs before the relist's last add is handed on", async () => {
  let addsWhenTimerRan: number | undefined;
  let adds = 0;
  const scheduled = Date.now();
  // The timer is due before the LIST returns: it runs at the event loop's next timers phase, which a replace done
  // in one synchronous step would hold back until every add was handed on.
  setTimeout(() => (addsWhenTimerRan = adds), 0);
  const { informer, run, stop } = informerListing(() => {
    while (Date.now() - scheduled < 5); // until the timer is surely due
    return Promise.resolve(list(objects("o", LARGE, "1"), "100"));
  });
  informer.addEventHandler({
    addFunc: () => {
      adds++;
    },
  });
  const running = run();
  const synced = await informer.waitForCacheSync();
  stop();
  await running;
  assert.equal(synced, true);
  assert.equal(adds, LARGE);
  assert.ok(addsWhenTimerRan !== undefined && addsWhenTimerRan < LARGE, `timer ran after ${addsWhenTimerRan} adds`);
});

test("a large relist yields to the event loop at least every CHUNK_ITEMS changes, and syncs after the last", async () => {
  const { informer, run, stop } = informerListing(objects("o", LARGE, "1"));
  let adds = 0;
  let syncedDuringAdds = false;
  informer.addEventHandler({
    addFunc: () => {
      adds++;
      if (informer.hasSynced()) syncedDuringAdds = true;
    },
  });
  let last = 0;
  let most = 0;
  const watcher = everyTurn(() => {
    most = Math.max(most, adds - last);
    last = adds;
  });
  const running = run();
  try {
    await until(() => informer.hasSynced(), "synced");
  } finally {
    watcher.stop();
    stop();
  }
  await running;
  assert.equal(adds, LARGE);
  assert.ok(most > 0 && most <= CHUNK_ITEMS, `${most} adds between two turns of the event loop`);
  assert.equal(syncedDuringAdds, false, "synced only once every object of the first LIST was handed on");
});

test("readers never see a half-replaced store during a large replace; changes are reported in client-go's order", async () => {
  const rv = (o: Obj): string[] => [o.metadata?.resourceVersion ?? ""];
  const indexer = new Indexer<Obj>({ indexers: { namespace: metaNamespaceIndexFunc, rv } });
  const notes: Array<CacheNotification<Obj>> = [];
  const sink = new IndexerSink<Obj>(indexer, (n) => notes.push(n));
  const before = objects("o", LARGE, "1");
  await sink.replace(before, "1");
  notes.length = 0;
  // Half the old objects go, the other half are updated, and as many new ones come.
  const after = [...objects("o", LARGE, "2").slice(LARGE / 2), ...objects("n", LARGE / 2, "2")];
  const seen = new Set<string>();
  const reader = everyTurn(() => {
    const versions = new Set(indexer.list().map((o) => o.metadata?.resourceVersion));
    assert.equal(versions.size, 1, "one store: all old or all new");
    assert.equal(indexer.size, LARGE);
    const version = [...versions][0] as string;
    // The indices answer from the same content.
    assert.ok(indexer.byIndex("namespace", "ns0").every((o) => o.metadata?.resourceVersion === version));
    assert.equal(indexer.byIndex("rv", version).length, LARGE);
    seen.add(version);
  });
  let replacing: void | Promise<void>;
  try {
    replacing = sink.replace(after, "2");
    await replacing;
  } finally {
    reader.stop();
  }
  assert.ok(replacing instanceof Promise, "a large replace is done in steps");
  assert.deepEqual([...seen].sort(), ["1", "2"], "the reader ran before and after the swap");
  const kinds = notes.map((n) => n.type);
  const firstNonDelete = kinds.findIndex((k) => k !== "delete");
  assert.equal(firstNonDelete, LARGE / 2, "every delete first");
  assert.ok(kinds.slice(firstNonDelete).every((k) => k !== "delete"));
  const names = notes.slice(firstNonDelete).map((n) => (n.type === "add" ? n.obj : n.type === "update" ? n.newObj : n));
  assert.deepEqual(
    names.map((o) => (o as Obj).metadata?.name),
    after.map((o) => o.metadata?.name),
    "adds and updates in list order",
  );
});

test("a handler added during a large relist gets every object once", async () => {
  const { informer, run, stop } = informerListing(objects("o", LARGE, "1"));
  let earlyAdds = 0;
  informer.addEventHandler({
    addFunc: () => {
      earlyAdds++;
    },
  });
  const lateAdds = new Map<string, number>();
  let registered = false;
  const watcher = everyTurn(() => {
    // Once the first LIST is being reported: half of it was handed on.
    if (registered || earlyAdds < LARGE / 2) return;
    registered = true;
    informer.addEventHandler({
      addFunc: (o) => void lateAdds.set(o.metadata?.name ?? "", (lateAdds.get(o.metadata?.name ?? "") ?? 0) + 1),
    });
  });
  const running = run();
  try {
    await until(() => informer.hasSynced() && registered, "synced");
  } finally {
    watcher.stop();
    stop();
  }
  await running;
  assert.equal(lateAdds.size, LARGE);
  assert.ok(
    [...lateAdds.values()].every((n) => n === 1),
    "no object twice",
  );
});
