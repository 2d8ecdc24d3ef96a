// Server-side sharded LIST, WATCH and DELETECOLLECTION (KEP-5866) against kube-apiserver with the ShardedListAndWatch
// gate on, with this runtime's selector builder, hash and informers: the cases of fabric8's ShardingIT
// (kubernetes-itests), ported. Two halves of the hash space partition the objects, ranges joined by || too, a
// namespace shard never splits a namespace, a selector mixing fields is refused, a watch event or an informer add
// reaches exactly one shard, and DELETECOLLECTION with a shard selector deletes only that shard.
import { after, afterEach, before, test } from "node:test";
import assert from "node:assert/strict";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { ResourceClient, builtinResources, type KubeClient } from "@crdgen/runtime/client";
import { SharedIndexInformer, listerWatcherFor, type ShardFilter } from "@crdgen/runtime/cache";
import {
  HASH_SPACE,
  fnv1a64,
  rangesContain,
  shardHashOf,
  shardSelector,
  type HashRange,
} from "@crdgen/runtime/sharding";
import type { V1ConfigMap } from "@kubernetes/client-node";
import { eventually } from "./control-plane.js";

const LABELS = { test: "true" };
const LABEL_SELECTOR = "test=true";
const NAMESPACES = ["shard-a", "shard-b", "shard-c"];

let plane: ControlPlane;
let kube: KubeClient;
let configMaps: ResourceClient<V1ConfigMap>;

before(async () => {
  plane = await startControlPlane({ apiServerArgs: ["--feature-gates=ShardedListAndWatch=true"] });
  kube = plane.kubeClient();
  configMaps = new ResourceClient(kube, builtinResources.configMaps);
  for (const name of NAMESPACES)
    await new ResourceClient(kube, builtinResources.namespaces).create(undefined, { metadata: { name } });
});

after(async () => {
  await (plane as ControlPlane | undefined)?.stop();
});

afterEach(async () => {
  // Labelled ConfigMaps of one case would turn the next case's creates into AlreadyExists.
  for (const namespace of ["default", ...NAMESPACES])
    await configMaps.deleteCollection(namespace, { labelSelector: LABEL_SELECTOR });
});

/** The i-th of n equal parts of the hash space. */
function part(i: number, n: number): HashRange {
  const width = HASH_SPACE / BigInt(n);
  return { start: BigInt(i) * width, end: i === n - 1 ? HASH_SPACE : BigInt(i + 1) * width };
}

async function createConfigMaps(count: number, namespace = "default"): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${namespace}-cm-${i}`);
  await Promise.all(
    names.map((name) => configMaps.create(namespace, { metadata: { name, namespace, labels: LABELS } })),
  );
  return names;
}

async function namesIn(ranges: HashRange[], field: "uid" | "namespace" = "uid"): Promise<string[]> {
  const list = await configMaps.list(undefined, {
    labelSelector: LABEL_SELECTOR,
    shardSelector: shardSelector(ranges, field),
  });
  return list.items.map((c) => c.metadata?.name ?? "").sort();
}

test("two halves of the hash space partition the objects, as the client-side hash says", async () => {
  const names = await createConfigMaps(20);
  const [low, high] = [await namesIn([part(0, 2)]), await namesIn([part(1, 2)])];
  assert.deepEqual([...low, ...high].sort(), names.sort());
  const all = await configMaps.list("default", { labelSelector: LABEL_SELECTOR });
  const expectedLow = all.items.filter((c) => rangesContain([part(0, 2)], shardHashOf(c, "uid")));
  assert.deepEqual(low, expectedLow.map((c) => c.metadata?.name ?? "").sort());
});

test("four shards partition the objects; ranges joined by || select their union", async () => {
  const names = await createConfigMaps(20);
  const shards = await Promise.all([0, 1, 2, 3].map((i) => namesIn([part(i, 4)])));
  assert.deepEqual(shards.flat().sort(), names.sort());
  const even = await namesIn([part(0, 4), part(2, 4)]);
  const odd = await namesIn([part(1, 4), part(3, 4)]);
  assert.deepEqual(even, [...(shards[0] ?? []), ...(shards[2] ?? [])].sort());
  assert.ok(even.every((n) => !odd.includes(n)));
  assert.deepEqual([...even, ...odd].sort(), names.sort());
});

test("a namespace shard never splits a namespace", async () => {
  for (const namespace of NAMESPACES) await createConfigMaps(3, namespace);
  const [first, second] = [await namesIn([part(0, 2)], "namespace"), await namesIn([part(1, 2)], "namespace")];
  for (const namespace of NAMESPACES) {
    const mine = [0, 1, 2].map((i) => `${namespace}-cm-${i}`);
    const inFirst = rangesContain([part(0, 2)], fnv1a64(namespace));
    assert.ok(
      mine.every((n) => (inFirst ? first : second).includes(n)),
      `${namespace} split or misplaced`,
    );
  }
});

test("the API server refuses a selector that mixes the uid and the namespace", async () => {
  const mixed = `${shardSelector([part(0, 2)])} || ${shardSelector([part(1, 2)], "namespace")}`;
  await assert.rejects(configMaps.list("default", { shardSelector: mixed }), /same field/);
});

test("a watch event reaches exactly one of two shards' watches", async () => {
  const stop = new AbortController();
  const added: string[] = [];
  const watchShard = async (range: HashRange, who: string) => {
    const rv = (await configMaps.list("default", {})).metadata?.resourceVersion;
    const events = configMaps.watch(
      "default",
      { labelSelector: LABEL_SELECTOR, shardSelector: shardSelector([range]), resourceVersion: rv },
      stop.signal,
    );
    void (async () => {
      try {
        for await (const e of events) if (e.type === "ADDED") added.push(who);
      } catch {
        // Ended by the abort below.
      }
    })();
  };
  await watchShard(part(0, 2), "low");
  await watchShard(part(1, 2), "high");
  const [created] = await createConfigMaps(1);
  const cm = await configMaps.get("default", created ?? "");
  const expected = rangesContain([part(0, 2)], shardHashOf(cm, "uid")) ? "low" : "high";
  await eventually("the ADDED event", () => (added.length > 0 ? true : undefined));
  await new Promise((resolve) => setTimeout(resolve, 500)); // any duplicate would arrive within this window
  stop.abort();
  assert.deepEqual(added, [expected]);
});

test("two sharded informers: each object is added to exactly one", async () => {
  const added: string[] = [];
  const stop = new AbortController();
  const informers = [part(0, 2), part(1, 2)].map((range, i) => {
    const shard: ShardFilter<V1ConfigMap> = {
      selector: shardSelector([range]),
      matches: (obj) => rangesContain([range], shardHashOf(obj, "uid")),
    };
    const informer = new SharedIndexInformer<V1ConfigMap>({
      listerWatcher: listerWatcherFor(configMaps, { namespace: "default", labelSelector: LABEL_SELECTOR }),
      reflector: { shard },
    });
    informer.addEventHandler({ addFunc: (obj) => void added.push(`${i}:${obj.metadata?.name ?? ""}`) });
    return informer;
  });
  const runs = informers.map((i) => i.run(stop.signal));
  await createConfigMaps(10);
  await eventually("10 adds", () => (added.length >= 10 ? true : undefined));
  await new Promise((resolve) => setTimeout(resolve, 500));
  stop.abort();
  await Promise.all(runs);
  assert.equal(added.length, 10);
  assert.equal(new Set(added.map((a) => a.slice(2))).size, 10);
});

test("DELETECOLLECTION with a shard selector deletes only that shard", async () => {
  await createConfigMaps(10);
  const [low, high] = [await namesIn([part(0, 2)]), await namesIn([part(1, 2)])];
  assert.equal(low.length + high.length, 10);
  await configMaps.deleteCollection("default", {
    labelSelector: LABEL_SELECTOR,
    shardSelector: shardSelector([part(0, 2)]),
  });
  assert.deepEqual(await namesIn([part(0, 2)]), []);
  assert.deepEqual(await namesIn([part(1, 2)]), high);
});
