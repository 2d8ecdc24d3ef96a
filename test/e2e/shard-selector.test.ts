// Server-side sharded LIST, WATCH and DELETECOLLECTION (KEP-5866, `shardSelector`) against kube-apiserver 1.37.2,
// through this runtime's ResourceClient and informer, as a client sees it. Ported cases:
// - fabric8 kubernetes-client, kubernetes-itests-envtest/.../ShardingIT.java: shardedList, shardedWatch,
//   shardedInformer, shardedDelete (its Assumptions.assumeTrue skip becomes "create until both halves hold some");
//   OperationContextTest.testShardSelectorIsPreservedAndOrthogonalToOtherSelectors as label ∩ shard on the server.
// - kubernetes test/integration/apiserver/sharding_test.go: TestShardedList, TestShardedWatch,
//   TestShardedListFeatureGateDisabled, TestShardedListComplete, TestShardedListByNamespace; the wantErr cases of
//   staging/src/k8s.io/apiserver/pkg/sharding/parser_test.go TestParse, sent to the server.
// Added here: a shard from the watch cache and in pages, the bounds of a range on one exact hash, || as a union, and a
// custom resource's list (filtered, with no shardInfo echo).
// The hash is computed here independently (FNV-1a 64 of the field's UTF-8 bytes, as k8s.io/apimachinery/pkg/sharding
// HashField) and compared with the runtime's, so the client-side filter provably matches the server's.
import { after, afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { ResourceClient, builtinResources, type KubernetesObject, type ListOptions } from "@crdgen/runtime/client";
import { ListPager, SharedIndexInformer, listerWatcherFor } from "@crdgen/runtime/cache";
import { fnv1a64 } from "@crdgen/runtime/sharding";
import type { V1ConfigMap } from "@kubernetes/client-node";
import { eventually, repoRoot } from "./control-plane.js";

// ShardingIT's constants, verbatim.
const LABEL_SELECTOR = "test=true";
const SHARD1 = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
const SHARD2 = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";
const LABELS = { test: "true" };

const HASH_SPACE = 1n << 64n;
const encoder = new TextEncoder();

/** Go's hash/fnv New64a over value's UTF-8 bytes: the reference the server's and the runtime's hash must equal. */
function referenceFnv1a64(value: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of encoder.encode(value)) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return hash;
}

/** A bound as the server writes it: 0x and 16 lowercase hex digits; 2^64 (the exclusive top) has 17. */
function hex(value: bigint): string {
  return `0x${value.toString(16).padStart(16, "0")}`;
}

interface Range {
  start: bigint;
  end: bigint;
}

type Field = "uid" | "namespace";

/** One shardRange() term, spelled as the server's Selector.String() spells it (so shardInfo echoes it verbatim). */
function shardRange({ start, end }: Range, field: Field = "uid"): string {
  return `shardRange(object.metadata.${field}, '${hex(start)}', '${hex(end)}')`;
}

/** The index-th of total shards: kubernetes' calculateShardRange (the last one takes the remainder). */
function part(index: number, total: number): Range {
  const span = HASH_SPACE / BigInt(total);
  return { start: span * BigInt(index), end: index === total - 1 ? HASH_SPACE : span * BigInt(index + 1) };
}

/** [start, end): start inclusive, end exclusive. */
function inRange(hash: bigint, { start, end }: Range): boolean {
  return hash >= start && hash < end;
}

/** In SHARD1, the lower half of the hash space. */
const inLowHalf = (obj: KubernetesObject): boolean => inRange(hashOf(obj), part(0, 2));

function hashOf(obj: KubernetesObject, field: Field = "uid"): bigint {
  return referenceFnv1a64((field === "uid" ? obj.metadata?.uid : obj.metadata?.namespace) ?? "");
}

function shardInfoOf(list: { metadata?: object }): { selector?: string } | undefined {
  return (list.metadata as { shardInfo?: { selector?: string } } | undefined)?.shardInfo;
}

const nameOf = (obj: KubernetesObject): string => obj.metadata?.name ?? "";
const sorted = (names: string[]): string[] => [...names].sort();

let gated: ControlPlane;
let ungated: ControlPlane;
let configMaps: ResourceClient<V1ConfigMap>;
let namespaces: ResourceClient<KubernetesObject>;

before(async () => {
  // Both API servers start at once: the tests need both, and starting takes most of this file's time.
  [gated, ungated] = await Promise.all([
    startControlPlane({
      apiServerArgs: ["--feature-gates=ShardedListAndWatch=true"],
      crdFiles: [path.join(repoRoot, "samples/mysql/crd.yaml")],
    }),
    startControlPlane(),
  ]);
  configMaps = new ResourceClient(gated.kubeClient(), builtinResources.configMaps);
  namespaces = new ResourceClient(gated.kubeClient(), builtinResources.namespaces);
});

after(async () => {
  await Promise.all([(gated as ControlPlane | undefined)?.stop(), (ungated as ControlPlane | undefined)?.stop()]);
});

test("the reference hash is Go's FNV-1a 64, and the runtime's equals it", () => {
  // Known answers of Go's hash/fnv New64a, printed as HashField prints them (%016x).
  const known: Array<[string, string]> = [
    ["", "cbf29ce484222325"],
    ["a", "af63dc4c8601ec8c"],
    ["foobar", "85944171f73967e8"],
    ["5522129f-acab-4479-861c-a5649bf486c0", "570b8e65310e2d48"],
  ];
  for (const [input, expected] of known) {
    assert.equal(referenceFnv1a64(input).toString(16).padStart(16, "0"), expected, input);
    assert.equal(fnv1a64(input), referenceFnv1a64(input), `runtime fnv1a64(${JSON.stringify(input)})`);
  }
});

/** Creates labelled ConfigMaps in ShardingIT's namespace, as ShardingIT's configMap(name). */
async function createLabelled(names: string[], namespace = "default"): Promise<V1ConfigMap[]> {
  return Promise.all(names.map((name) => configMaps.create(namespace, { metadata: { name, labels: LABELS } })));
}

function listShard(shardSelector: string, namespace = "default", extra: ListOptions = {}) {
  return configMaps.list(namespace, { labelSelector: LABEL_SELECTOR, shardSelector, ...extra });
}

/** What one shard's watch or informer has seen: event type and object name, in order. */
type Seen = Array<{ type: string; name: string; uid: string }>;

interface WatchShard {
  selector: string;
  stop: AbortSignal;
  /** Extra list options, e.g. the resourceVersion to start from. */
  options?: ListOptions;
  namespace?: string;
  /** Default: the gated API server's ConfigMaps. */
  client?: ResourceClient<V1ConfigMap>;
}

/** Watches one shard of ShardingIT's labelled ConfigMaps until stop aborts; returns what it sees as it sees it. */
function watchShard({ selector, stop, options = {}, namespace = "default", client = configMaps }: WatchShard): Seen {
  const seen: Seen = [];
  const query = { labelSelector: LABEL_SELECTOR, shardSelector: selector, ...options };
  void (async () => {
    try {
      for await (const event of client.watch(namespace, query, stop)) {
        const obj = event.object as KubernetesObject;
        seen.push({ type: event.type, name: nameOf(obj), uid: obj.metadata?.uid ?? "" });
      }
    } catch (error) {
      // A watch that fails before stop shows up in catchUp and in the assertions as a FAILED entry.
      if (!stop.aborted) seen.push({ type: "FAILED", name: String(error), uid: "" });
    }
  })();
  return seen;
}

/**
 * Proves every shard has delivered all it will for what exists now, without a fixed wait: creates labelled markers
 * until each shard has seen one. A watch delivers in resourceVersion order, so a shard that saw a marker already
 * saw everything written before it.
 */
async function catchUp(shards: Seen[], namespace = "default"): Promise<void> {
  for (let i = 0; !shards.every((s) => s.some((e) => e.name.startsWith("marker-"))); i++) {
    assert.deepEqual(
      shards.flat().filter((e) => e.type === "FAILED"),
      [],
    );
    assert.ok(i < 40, "40 markers and a shard has seen none");
    const [marker] = await createLabelled([`marker-${i}`], namespace);
    await eventually(`marker-${i} in one shard`, () =>
      shards.some((s) => s.some((e) => e.uid === marker?.metadata?.uid)) ? true : undefined,
    );
  }
}

describe("fabric8 ShardingIT, against the gated API server", () => {
  // ShardingIT's @AfterEach: its ConfigMaps would turn the next case's create() into AlreadyExists.
  afterEach(async () => {
    await configMaps.deleteCollection("default", { labelSelector: LABEL_SELECTOR });
  });

  test("shardedList: the two halves' lists hold the one ConfigMap once, in the half its uid hashes to", async () => {
    const [cm] = await createLabelled(["cm1"]);
    const [shard1, shard2] = [await listShard(SHARD1), await listShard(SHARD2)];
    assert.equal(shard1.items.length + shard2.items.length, 1);
    const expected = inLowHalf(cm ?? {}) ? shard1 : shard2;
    assert.deepEqual(expected.items.map(nameOf), ["cm1"]);
  });

  test("shardedWatch: of two halves' watches, one gets the ConfigMap's ADDED", async () => {
    const [cm] = await createLabelled(["cm1"]);
    const stop = new AbortController();
    try {
      const shards = [SHARD1, SHARD2].map((selector) => watchShard({ selector, stop: stop.signal }));
      await catchUp(shards);
      // Only ADDED counts, as ShardingIT's watcher: managedFields bumps may add MODIFIED.
      const added = shards.map((s) => s.filter((e) => e.type === "ADDED" && e.name === "cm1").length);
      assert.equal((added[0] ?? 0) + (added[1] ?? 0), 1);
      assert.equal(added[inLowHalf(cm ?? {}) ? 0 : 1], 1);
    } finally {
      stop.abort();
    }
  });

  test("shardedInformer: of two halves' informers, one calls onAdd for the ConfigMap", async () => {
    const [cm] = await createLabelled(["cm1"]);
    const stop = new AbortController();
    const shards: Seen[] = [[], []];
    // fabric8's withShardSelector(...).inform(): the selector rides on every LIST and WATCH the informer makes.
    const informers = [SHARD1, SHARD2].map((shardSelector, i) => {
      const scoped = listerWatcherFor(configMaps, { namespace: "default", labelSelector: LABEL_SELECTOR });
      const informer = new SharedIndexInformer<V1ConfigMap>({
        listerWatcher: {
          ...scoped,
          list: (options, signal) => scoped.list({ ...options, shardSelector }, signal),
          watch: (options, signal) => scoped.watch({ ...options, shardSelector }, signal),
        },
      });
      informer.addEventHandler({
        addFunc: (obj) => void shards[i]?.push({ type: "ADDED", name: nameOf(obj), uid: obj.metadata?.uid ?? "" }),
      });
      return informer;
    });
    const runs = informers.map((informer) => informer.run(stop.signal));
    try {
      for (const informer of informers) assert.ok(await informer.waitForCacheSync(stop.signal));
      await catchUp(shards);
      const added = shards.map((s) => s.filter((e) => e.name === "cm1").length);
      assert.equal((added[0] ?? 0) + (added[1] ?? 0), 1);
      assert.equal(added[inLowHalf(cm ?? {}) ? 0 : 1], 1);
    } finally {
      stop.abort();
      await Promise.all(runs);
    }
  });

  test("shardedDelete: DELETECOLLECTION with SHARD1 deletes SHARD1's labelled ConfigMaps only", async () => {
    const created = await createLabelled(Array.from({ length: 10 }, (_, i) => `cm-${i}`));
    // ShardingIT skips ("re-run") when the uids left a half empty; this test adds ConfigMaps until neither is.
    for (let i = 10; !created.some(inLowHalf) || created.every(inLowHalf); i++)
      created.push(...(await createLabelled([`cm-${i}`])));
    // Unlabelled ConfigMaps in SHARD1 must survive: the shard selector narrows the label selector, never replaces it.
    const unlabelled: V1ConfigMap[] = [];
    for (let i = 0; !unlabelled.some(inLowHalf); i++)
      unlabelled.push(await configMaps.create("default", { metadata: { name: `unlabelled-${i}` } }));

    const total = (await configMaps.list("default", { labelSelector: LABEL_SELECTOR })).items.length;
    const shard1Before = (await listShard(SHARD1)).items.map(nameOf);
    const shard2Before = (await listShard(SHARD2)).items.map(nameOf);
    assert.equal(shard1Before.length + shard2Before.length, total);
    assert.ok(shard1Before.length > 0 && shard2Before.length > 0);

    await configMaps.deleteCollection("default", { labelSelector: LABEL_SELECTOR, shardSelector: SHARD1 });

    // SHARD1 is empty and SHARD2 untouched: a server ignoring the selector would have deleted the whole label set.
    assert.deepEqual((await listShard(SHARD1)).items, []);
    assert.deepEqual(sorted((await listShard(SHARD2)).items.map(nameOf)), sorted(shard2Before));
    const left = (await configMaps.list("default", {})).items.map(nameOf);
    for (const c of unlabelled) assert.ok(left.includes(nameOf(c)), `${nameOf(c)} deleted`);
    await Promise.all(unlabelled.map((c) => configMaps.delete("default", nameOf(c))));
  });
});

/** Lists each of total shards and checks TestShardedList's properties; returns the uids each shard held. */
async function assertPartition(
  list: (selector: string) => Promise<{ metadata?: object; items: KubernetesObject[] }>,
  total: number,
  field: Field = "uid",
): Promise<string[][]> {
  const shards: string[][] = [];
  for (let shard = 0; shard < total; shard++) {
    const selector = shardRange(part(shard, total), field);
    const result = await list(selector);
    assert.equal(shardInfoOf(result)?.selector, selector, `shard ${shard}: shardInfo echoes the selector`);
    for (const item of result.items) {
      assert.ok(
        inRange(hashOf(item, field), part(shard, total)),
        `${nameOf(item)}: ${field} hash outside shard ${shard}`,
      );
      assert.equal(fnv1a64(item.metadata?.[field] ?? ""), hashOf(item, field), `runtime hash of ${nameOf(item)}`);
    }
    shards.push(result.items.map((item) => item.metadata?.uid ?? ""));
  }
  const all = shards.flat();
  assert.equal(new Set(all).size, all.length, "an object appeared in two shards");
  return shards;
}

describe("kubernetes test/integration/apiserver/sharding_test.go, against the gated API server", () => {
  const namespace = "shard-list";
  let created: V1ConfigMap[] = [];
  const listIn = (selector: string, extra: ListOptions = {}) =>
    configMaps.list(namespace, { shardSelector: selector, ...extra });

  before(async () => {
    await namespaces.create(undefined, { metadata: { name: namespace } });
    created = await Promise.all(
      Array.from({ length: 20 }, () => configMaps.create(namespace, { metadata: { generateName: "shard-test-" } })),
    );
  });

  test("TestShardedList: three shards partition 20 ConfigMaps, each where its uid hashes to", async () => {
    const shards = await assertPartition((selector) => listIn(selector), 3);
    assert.deepEqual(sorted(shards.flat()), sorted(created.map((c) => c.metadata?.uid ?? "")));
  });

  test("TestShardedListComplete: a list without shardSelector is whole and carries no shardInfo", async () => {
    const list = await configMaps.list(namespace, {});
    assert.equal(shardInfoOf(list), undefined);
    assert.equal(list.items.length, created.length);
    // An empty parameter is no parameter (the server parses only a non-empty one).
    const empty = await configMaps.list(namespace, { shardSelector: "" });
    assert.equal(shardInfoOf(empty), undefined);
    assert.equal(empty.items.length, created.length);
  });

  test("a shard is the same from the watch cache (resourceVersion=0) and in pages of 3", async () => {
    for (let shard = 0; shard < 3; shard++) {
      const selector = shardRange(part(shard, 3));
      const whole = sorted((await listIn(selector)).items.map(nameOf));
      const cached = await listIn(selector, { resourceVersion: "0" });
      assert.equal(shardInfoOf(cached)?.selector, selector);
      assert.deepEqual(sorted(cached.items.map(nameOf)), whole, `shard ${shard} from the watch cache`);
      // The runtime's pager, as the reflector lists: the shardSelector rides on every page's request.
      const pages: number[] = [];
      const pager = new ListPager<V1ConfigMap>(
        async (options) => {
          const page = await configMaps.list(namespace, options);
          assert.equal(shardInfoOf(page)?.selector, selector);
          pages.push(page.items.length);
          return page;
        },
        { pageSize: 3 },
      );
      const paged = await pager.list({ shardSelector: selector });
      assert.deepEqual(sorted(paged.items.map(nameOf)), whole, `shard ${shard} in pages`);
      if (whole.length > 3) assert.ok(paged.paginated, `shard ${shard}: no continue token`);
      assert.ok(pages.every((n) => n <= 3));
    }
  });

  test("a range holds its start and not its end, on the exact 64-bit hash of the uid", async () => {
    for (const cm of created.slice(0, 3)) {
      const hash = hashOf(cm);
      const names = async (range: Range) => (await listIn(shardRange(range))).items.map(nameOf);
      assert.deepEqual(await names({ start: hash, end: hash + 1n }), [nameOf(cm)], `[h, h+1) of ${nameOf(cm)}`);
      assert.ok((await names({ start: 0n, end: hash + 1n })).includes(nameOf(cm)));
      if (hash > 0n) assert.ok(!(await names({ start: 0n, end: hash })).includes(nameOf(cm)), "end is exclusive");
      if (hash + 1n < HASH_SPACE)
        assert.ok(!(await names({ start: hash + 1n, end: HASH_SPACE })).includes(nameOf(cm)), "start is inclusive");
    }
  });

  test("ranges joined by || select their union", async () => {
    const quarters = await Promise.all([0, 1, 2, 3].map(async (i) => (await listIn(shardRange(part(i, 4)))).items));
    const even = await listIn(`${shardRange(part(0, 4))} || ${shardRange(part(2, 4))}`);
    assert.deepEqual(
      sorted(even.items.map(nameOf)),
      sorted([...(quarters[0] ?? []), ...(quarters[2] ?? [])].map(nameOf)),
    );
    assert.equal(shardInfoOf(even)?.selector, `${shardRange(part(0, 4))} || ${shardRange(part(2, 4))}`);
  });

  test("TestShardedListByNamespace: three namespace shards over 10 namespaces", async () => {
    const nsNames = Array.from({ length: 10 }, (_, i) => `shard-ns-${i}`);
    await Promise.all(nsNames.map((name) => namespaces.create(undefined, { metadata: { name } })));
    const objects = await Promise.all(nsNames.map((ns) => configMaps.create(ns, { metadata: { name: "test" } })));
    const shards = await assertPartition(
      (selector) => configMaps.list(undefined, { shardSelector: selector }),
      3,
      "namespace",
    );
    for (const obj of objects) assert.ok(shards.flat().includes(obj.metadata?.uid ?? ""), `${obj.metadata?.namespace}`);
  });
});

/** TestShardedWatch's waitForEvents: until count events of type arrived across the shards. */
async function waitForEvents(shards: Seen[], type: string, count: number): Promise<void> {
  await eventually(`${count} ${type} events`, () => {
    assert.deepEqual(
      shards.flat().filter((e) => e.type === "FAILED"),
      [],
    );
    return shards.flat().filter((e) => e.type === type).length >= count ? true : undefined;
  });
}

/** TestShardedWatch's verifyShardEvents: each uid was seen, for type, by its expected shard and by no other. */
function verifyShardEvents(shards: Seen[], type: string, expectedShard: Map<string, number>): void {
  for (const [uid, expected] of expectedShard)
    shards.forEach((seen, shard) => {
      const got = seen.some((e) => e.type === type && e.uid === uid);
      assert.equal(got, shard === expected, `${type} of ${uid} in shard ${shard}, expected only in ${expected}`);
    });
}

describe("kubernetes TestShardedWatch, against the gated API server", () => {
  test("two shards' watches from one resourceVersion: each ADDED, MODIFIED, DELETED in its shard only", async () => {
    const namespace = "shard-watch";
    await namespaces.create(undefined, { metadata: { name: namespace } });
    const rv = (await configMaps.list(namespace, {})).metadata?.resourceVersion;
    const stop = new AbortController();
    try {
      const shards = [0, 1].map((i) =>
        watchShard({
          selector: shardRange(part(i, 2)),
          stop: stop.signal,
          options: { resourceVersion: rv },
          namespace,
        }),
      );
      const created = await Promise.all(
        Array.from({ length: 10 }, () =>
          configMaps.create(namespace, { metadata: { generateName: "shard-watch-", labels: LABELS } }),
        ),
      );
      const expectedShard = new Map(created.map((c) => [c.metadata?.uid ?? "", inLowHalf(c) ? 0 : 1]));
      await waitForEvents(shards, "ADDED", 10);
      verifyShardEvents(shards, "ADDED", expectedShard);
      const updated = await Promise.all(
        created.map((c) =>
          configMaps.update(namespace, { ...c, metadata: { ...c.metadata, annotations: { updated: "true" } } }),
        ),
      );
      await waitForEvents(shards, "MODIFIED", 10);
      verifyShardEvents(shards, "MODIFIED", expectedShard);
      await Promise.all(updated.map((c) => configMaps.delete(namespace, nameOf(c))));
      await waitForEvents(shards, "DELETED", 10);
      verifyShardEvents(shards, "DELETED", expectedShard);
    } finally {
      stop.abort();
    }
  });
});

describe("custom resources, against the gated API server", () => {
  test("two halves partition 12 MySQLClusters by uid; the list carries no shardInfo", async () => {
    const clusters = new ResourceClient(gated.kubeClient(), {
      group: "example.com",
      version: "v1",
      plural: "mysqlclusters",
      kind: "MySQLCluster",
      namespaced: true,
    });
    const namespace = "shard-cr";
    await namespaces.create(undefined, { metadata: { name: namespace } });
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        clusters.create(namespace, {
          apiVersion: "example.com/v1",
          kind: "MySQLCluster",
          metadata: { name: `cluster-${i}` },
          spec: { version: "8.0.36" },
        } as KubernetesObject),
      ),
    );
    const halves = await Promise.all(
      [0, 1].map((i) => clusters.list(namespace, { shardSelector: shardRange(part(i, 2)) })),
    );
    halves.forEach((half, i) => {
      for (const item of half.items) assert.ok(inRange(hashOf(item), part(i, 2)), `${nameOf(item)} outside half ${i}`);
      // A custom resource's list is unstructured, which has no SetShardInfo: no echo, though the server filtered.
      assert.equal(shardInfoOf(half), undefined);
    });
    assert.deepEqual(sorted(halves.flatMap((h) => h.items.map(nameOf))), sorted(created.map(nameOf)));
  });
});

// parser_test.go TestParse: its wantErr inputs (the empty string, which the server reads as no parameter, sent as
// a blank) and, from parser.go extractHexLiteral, uppercase hex digits.
const REFUSED: Array<[string, string]> = [
  ["empty string", " "],
  ["missing 0x prefix on start", "shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')"],
  ["missing 0x prefix on end", "shardRange(object.metadata.uid, '0x0000000000000000', '8000000000000000')"],
  ["empty after 0x prefix", "shardRange(object.metadata.uid, '0x', '0x8000000000000000')"],
  ["name field unsupported", "shardRange(object.metadata.name, '0x00', '0x80')"],
  ["unsupported field", "shardRange(object.metadata.labels, '0x00', '0x80')"],
  ["unknown function", "invalidFunc(object.metadata.uid, '0x00', '0x80')"],
  ["hex too long (18 chars)", "shardRange(object.metadata.uid, '0x000000000000000000', '0x80')"],
  ["invalid hex char", "shardRange(object.metadata.uid, '0x0g', '0x80')"],
  [
    "&& operator not allowed",
    "shardRange(object.metadata.uid, '0x0', '0x8') && shardRange(object.metadata.uid, '0x8', '0xf')",
  ],
  ["integer literal instead of string", "shardRange(object.metadata.uid, 0, 8)"],
  ["comparison operator", "object.metadata.uid > '0x0'"],
  ["wrong number of arguments", "shardRange(object.metadata.uid, '0x0')"],
  ["nested function call", "shardRange(object.metadata.uid, hex(0), '0x8')"],
  [
    "mixed field keys",
    `${SHARD1} || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')`,
  ],
  ["short hex rejected", "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')"],
  ["short hex rejected on end", "shardRange(object.metadata.uid, '0x0000000000000000', '0xff')"],
  ["start equals end", "shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')"],
  ["start greater than end", "shardRange(object.metadata.uid, '0xffffffffffffffff', '0x0000000000000000')"],
  ["uppercase hex", "shardRange(object.metadata.uid, '0x8000000000000000', '0xFFFFFFFFFFFFFFFF')"],
];

// parser_test.go TestParse's accepted spellings that differ from Selector.String()'s, with what the server echoes.
const ACCEPTED: Array<[string, string]> = [
  ["no spaces", "shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')"],
  ["extra whitespace", "  shardRange( object.metadata.uid ,  '0x0000000000000000' ,  '0x8000000000000000' )  "],
];

/** The gated server's refusal: InternalError (the parser's error is not a StatusError), with the parser's words. */
function isRefusal(error: unknown): boolean {
  const e = error as { status?: number; reason?: string; message?: string };
  return e.status === 500 && e.reason === "InternalError" && /^invalid shard selector: /.test(e.message ?? "");
}

describe("parser_test.go TestParse, through the gated API server", () => {
  for (const [name, selector] of REFUSED)
    test(`LIST refuses: ${name}`, async () => {
      await assert.rejects(configMaps.list("default", { shardSelector: selector }), isRefusal);
    });

  test("WATCH and DELETECOLLECTION refuse a malformed selector too, deleting nothing", async () => {
    const [cm] = await createLabelled(["survivor"]);
    const bad = "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')";
    const watch = async () => {
      for await (const event of configMaps.watch("default", { shardSelector: bad })) return event;
    };
    await assert.rejects(watch(), isRefusal);
    await assert.rejects(
      configMaps.deleteCollection("default", { labelSelector: LABEL_SELECTOR, shardSelector: bad }),
      isRefusal,
    );
    assert.equal((await configMaps.get("default", "survivor")).metadata?.uid, cm?.metadata?.uid);
    await configMaps.delete("default", "survivor");
  });

  for (const [name, selector] of ACCEPTED)
    test(`LIST accepts: ${name}, and echoes the canonical spelling`, async () => {
      const list = await configMaps.list("default", { shardSelector: selector });
      assert.equal(shardInfoOf(list)?.selector, SHARD1);
    });
});

describe("TestShardedListFeatureGateDisabled: the API server without the gate", () => {
  let plain: ResourceClient<V1ConfigMap>;
  let names: string[] = [];

  before(async () => {
    plain = new ResourceClient(ungated.kubeClient(), builtinResources.configMaps);
    const created: V1ConfigMap[] = [];
    // Objects in both halves, so that "all come back" differs from either half.
    for (let i = 0; i < 4 || new Set(created.map(inLowHalf)).size < 2; i++)
      created.push(await plain.create("default", { metadata: { name: `cm-${i}`, labels: LABELS } }));
    names = sorted(created.map(nameOf));
  });

  test("the selector is ignored: each half's LIST returns every object, with no shardInfo", async () => {
    for (const selector of [SHARD1, SHARD2, shardRange(part(0, 2))]) {
      const list = await plain.list("default", { labelSelector: LABEL_SELECTOR, shardSelector: selector });
      assert.equal(shardInfoOf(list), undefined);
      assert.deepEqual(sorted(list.items.map(nameOf)), names);
    }
  });

  test("a malformed selector is ignored too, not refused", async () => {
    const bad = "shardRange(object.metadata.name, '0x0', '0x8')";
    const list = await plain.list("default", { labelSelector: LABEL_SELECTOR, shardSelector: bad });
    assert.deepEqual(sorted(list.items.map(nameOf)), names);
  });

  test("a WATCH with SHARD1 sends every object's events", async () => {
    const stop = new AbortController();
    try {
      const seen = watchShard({ selector: SHARD1, stop: stop.signal, client: plain });
      const added = () => seen.filter((e) => e.type === "ADDED").map((e) => e.name);
      await eventually("every object's ADDED", () => (added().length >= names.length ? true : undefined));
      assert.deepEqual(sorted(added()), names);
    } finally {
      stop.abort();
    }
  });

  // Last in this group: it empties the label set, which is the hazard ShardingIT's shardedDelete guards against.
  test("DELETECOLLECTION with SHARD1 deletes the whole label set", async () => {
    await plain.deleteCollection("default", { labelSelector: LABEL_SELECTOR, shardSelector: SHARD1 });
    assert.deepEqual((await plain.list("default", { labelSelector: LABEL_SELECTOR })).items, []);
  });
});
