// A controller's side of sharding (ControllerShard) against a scripted member: which keys may start, the in-flight
// hashes the member waits for, owned objects routed by their owner's uid, buckets gained queued, informers moved.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Indexer, type SharedIndexInformer, type ShardFilter } from "@crdgen/runtime/cache";
import type { KubernetesObject } from "@crdgen/runtime/client";
import { Registry } from "@crdgen/runtime/metrics";
import {
  HASH_SPACE,
  fnv1a64,
  shardSelector,
  type HashRange,
  type ShardListener,
  type ShardWorkload,
  type Sharding,
} from "@crdgen/runtime/sharding";
import { ControllerShard } from "#runtime/controller/sharded.js";
import { quiet } from "../support/cache-fakes.js";

const LOW: HashRange = { start: 0n, end: HASH_SPACE / 2n };
const HIGH: HashRange = { start: HASH_SPACE / 2n, end: HASH_SPACE };

/** A uid whose hash falls in range. */
function uidIn(range: HashRange): string {
  for (;;) {
    const uid = randomUUID();
    const h = fnv1a64(uid);
    if (h >= range.start && h < range.end) return uid;
  }
}

/** A member that holds `held` and watches `watched`; the test plays its notifications. */
function member(held: HashRange[], watched = held) {
  const listeners: ShardListener[] = [];
  const workloads: ShardWorkload[] = [];
  const sharding: Sharding = {
    name: "g",
    field: "uid",
    registry: new Registry(),
    watchRanges: () => watched,
    mayStart: (hash) => held.some((r) => hash >= r.start && hash < r.end),
    subscribe: (l) => {
      listeners.push(l);
      return () => undefined;
    },
    attach: (w) => {
      workloads.push(w);
      return () => undefined;
    },
  };
  return { sharding, listeners, workloads };
}

function primaryWith(objects: KubernetesObject[]) {
  const indexer = new Indexer<KubernetesObject>();
  for (const o of objects) indexer.add(o);
  const reshards: Array<{ next?: ShardFilter<KubernetesObject>; gained?: ShardFilter<KubernetesObject> }> = [];
  const informer = {
    getIndexer: () => indexer,
    reshard: (next?: ShardFilter<KubernetesObject>, gained?: ShardFilter<KubernetesObject>) =>
      void reshards.push({ next, gained }),
  } as unknown as SharedIndexInformer<KubernetesObject>;
  return { informer, reshards };
}

const thing = (name: string, uid: string): KubernetesObject => ({ metadata: { name, namespace: "ns", uid } });

test("a key starts only in the member's ranges, and counts as in flight until it ends", () => {
  const mine = thing("mine", uidIn(LOW));
  const theirs = thing("theirs", uidIn(HIGH));
  const { sharding, workloads } = member([LOW]);
  const { informer } = primaryWith([mine, theirs]);
  const shard = new ControllerShard(sharding, "things", informer, () => undefined, quiet);
  shard.start();
  assert.equal(shard.begin("ns/mine"), true);
  assert.equal(shard.begin("ns/theirs"), false);
  // Not cached: nothing to reconcile whoever runs it, so it is not held back.
  assert.equal(shard.begin("ns/gone"), true);
  assert.deepEqual([...(workloads[0]?.inFlightHashes() ?? [])], [fnv1a64(mine.metadata?.uid ?? "")]);
  shard.end("ns/mine");
  assert.deepEqual([...(workloads[0]?.inFlightHashes() ?? [])], []);
});

test("an owned object's event passes only where its controller owner's uid hashes into the ranges", () => {
  const { sharding } = member([LOW]);
  const { informer } = primaryWith([]);
  const shard = new ControllerShard(sharding, "things", informer, () => undefined, quiet);
  shard.start();
  const seen: string[] = [];
  const handler = shard.routeByOwner<KubernetesObject>(
    { addFunc: (obj) => void seen.push(obj.metadata?.name ?? "") },
    { group: "example.com", kind: "Thing" },
  );
  const child = (name: string, uid: string, controller = true): KubernetesObject => ({
    metadata: {
      name,
      ownerReferences: [{ apiVersion: "example.com/v1", kind: "Thing", name: "p", uid, controller }],
    },
  });
  void handler.addFunc?.(child("of-mine", uidIn(LOW)), false);
  void handler.addFunc?.(child("of-theirs", uidIn(HIGH)), false);
  void handler.addFunc?.(child("not-controlled", uidIn(LOW), false), false);
  assert.deepEqual(seen, ["of-mine"]);
});

test("ranges gained move the informers (listing only the gain); buckets acquired queue their cached objects", () => {
  const low = thing("low", uidIn(LOW));
  const high = thing("high", uidIn(HIGH));
  const { sharding, listeners } = member([LOW]);
  const { informer, reshards } = primaryWith([low, high]);
  const queued: string[] = [];
  const shard = new ControllerShard(sharding, "things", informer, (key) => queued.push(key), quiet);
  shard.track(informer);
  shard.start();
  const move = (i: number) => {
    const r = reshards[i];
    assert.ok(r, `move ${i}`);
    return r;
  };
  const listener = listeners[0];
  assert.ok(listener);
  // At start: the controller's own filter on the current ranges, nothing gained; the cached objects it may start.
  assert.equal(move(0).next?.selector, shardSelector([LOW]));
  assert.equal(move(0).gained, undefined);
  assert.deepEqual(queued, ["ns/low"]);
  listener.rangesChanged?.([LOW, HIGH], [HIGH]);
  assert.equal(move(1).next?.selector, undefined); // the whole space: no selector
  const gained = move(1).gained;
  assert.equal(gained?.selector, shardSelector([HIGH]));
  assert.deepEqual([gained?.matches(high), gained?.matches(low)], [true, false]);
  listener.acquired?.([HIGH]);
  assert.deepEqual(queued, ["ns/low", "ns/high"]);
});

test("objects owned (a gauge) counts the objects in the ranges, walking the cache in chunks", async () => {
  // More objects than a chunk (CHUNK_ITEMS, 1,000): the count pauses between chunks, so a scrape of a 100,000-object
  // cache does not hold the event loop (nor the member's Lease renewals) for the whole walk.
  const mine = Array.from({ length: 1_700 }, (_, i) => thing(`mine-${i}`, uidIn(LOW)));
  const theirs = Array.from({ length: 900 }, (_, i) => thing(`theirs-${i}`, uidIn(HIGH)));
  const { sharding } = member([LOW]);
  const { informer } = primaryWith([...mine, ...theirs]);
  const shard = new ControllerShard(sharding, "things", informer, () => undefined, quiet);
  shard.start();
  let turnRan = false;
  setImmediate(() => (turnRan = true));
  const scraped = sharding.registry!.metrics();
  assert.equal(turnRan, false);
  const text = await scraped;
  assert.equal(turnRan, true, "the event loop turned during the count");
  assert.match(text, /^crdgen_sharding_objects_owned\{controller="things"\} 1700$/m);
});
