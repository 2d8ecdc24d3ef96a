// Unit tests for cache keys and the Indexer (client-go ThreadSafeStore semantics).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DeletedFinalStateUnknown,
  Indexer,
  NamespaceIndex,
  metaNamespaceIndexFunc,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from "@crdgen/runtime/cache";
import { type Obj, obj } from "../support/cache-fakes.js";

const byColor = (o: Obj): string[] => (o.metadata?.labels?.color ? [o.metadata.labels.color] : []);
const sorted = (xs: string[]): string[] => [...xs].sort();
const names = (xs: Obj[]): string[] => sorted(xs.map((o) => o.metadata!.name!));

test("metaNamespaceKeyFunc gives ns/name, name when cluster-scoped, and a tombstone's key", () => {
  assert.equal(metaNamespaceKeyFunc(obj("a", "1", { ns: "ns1" })), "ns1/a");
  assert.equal(metaNamespaceKeyFunc(obj("node-1", "1")), "node-1");
  assert.equal(
    metaNamespaceKeyFunc(new DeletedFinalStateUnknown("ns1/gone", obj("gone", "1", { ns: "ns1" }))),
    "ns1/gone",
  );
  assert.throws(() => metaNamespaceKeyFunc({ metadata: {} }), /no metadata.name/);
});

test("splitMetaNamespaceKey inverts the key function and rejects malformed keys", () => {
  assert.deepEqual(splitMetaNamespaceKey("ns1/a"), { namespace: "ns1", name: "a" });
  assert.deepEqual(splitMetaNamespaceKey("node-1"), { namespace: "", name: "node-1" });
  assert.throws(() => splitMetaNamespaceKey("a/b/c"), /unexpected cache key/);
  assert.throws(() => splitMetaNamespaceKey(""), /unexpected cache key/);
});

test("indexer get/update/delete keeps indices right", () => {
  const idx = new Indexer<Obj>({ indexers: { [NamespaceIndex]: metaNamespaceIndexFunc, color: byColor } });
  const a1 = obj("a", "1", { ns: "ns1", labels: { color: "red" } });
  idx.add(a1);
  idx.add(obj("b", "1", { ns: "ns1", labels: { color: "red" } }));
  idx.add(obj("c", "1", { ns: "ns2", labels: { color: "blue" } }));

  assert.equal(idx.getByKey("ns1/a"), a1);
  assert.equal(idx.get(obj("a", "9", { ns: "ns1" })), a1);
  assert.deepEqual(names(idx.byIndex("color", "red")), ["a", "b"]);
  assert.deepEqual(sorted(idx.indexKeys(NamespaceIndex, "ns1")), ["ns1/a", "ns1/b"]);

  // Update moves a from red to green: the old value must no longer find it.
  const a2 = obj("a", "2", { ns: "ns1", labels: { color: "green" } });
  idx.update(a2);
  assert.equal(idx.getByKey("ns1/a"), a2);
  assert.deepEqual(names(idx.byIndex("color", "red")), ["b"]);
  assert.deepEqual(names(idx.byIndex("color", "green")), ["a"]);
  assert.deepEqual(sorted(idx.listIndexFuncValues("color")), ["blue", "green", "red"]);

  // Deleting the last red object removes the value entirely (no empty buckets left behind).
  idx.delete(obj("b", "1", { ns: "ns1" }));
  assert.equal(idx.getByKey("ns1/b"), undefined);
  assert.deepEqual(idx.byIndex("color", "red"), []);
  assert.deepEqual(sorted(idx.listIndexFuncValues("color")), ["blue", "green"]);
  assert.deepEqual(sorted(idx.indexKeys(NamespaceIndex, "ns1")), ["ns1/a"]);

  // Losing the label altogether removes it from the index.
  idx.update(obj("a", "3", { ns: "ns1" }));
  assert.deepEqual(idx.byIndex("color", "green"), []);
  assert.deepEqual(sorted(idx.listKeys()), ["ns1/a", "ns2/c"]);
  assert.equal(idx.list().length, 2);
  assert.deepEqual(names(idx.index("color", obj("x", "1", { labels: { color: "blue" } }))), ["c"]);
  assert.throws(() => idx.byIndex("nope", "x"), /does not exist/);
});

test("indexer update and delete take the old index values from the stored object (client-go updateIndices)", () => {
  const idx = new Indexer<Obj>({ indexers: { color: byColor } });
  idx.add(obj("a", "1", { labels: { color: "red" } }));
  idx.add(obj("b", "1", { labels: { color: "red" } }));
  idx.update(obj("a", "2", { labels: { color: "green" } }));
  assert.deepEqual(sorted(idx.listIndexFuncValues("color")), ["green", "red"]);
  assert.deepEqual(names(idx.byIndex("color", "red")), ["b"]);
  idx.deleteByKey("b");
  assert.deepEqual(idx.listIndexFuncValues("color"), ["green"]);
  idx.delete(obj("a", "3"));
  assert.deepEqual(idx.listIndexFuncValues("color"), []);
  assert.equal(idx.size, 0);
});

test("addIndexers backfills existing objects and rejects a duplicate name", () => {
  const idx = new Indexer<Obj>();
  idx.add(obj("a", "1", { labels: { color: "red" } }));
  idx.add(obj("b", "1", { labels: { color: "blue" } }));
  idx.addIndexers({ color: byColor });
  assert.deepEqual(names(idx.byIndex("color", "red")), ["a"]);
  idx.add(obj("c", "1", { labels: { color: "red" } }));
  assert.deepEqual(names(idx.byIndex("color", "red")), ["a", "c"]);
  assert.throws(() => idx.addIndexers({ color: byColor }), /conflict/);
});

test("replace swaps the content atomically and rebuilds indices", () => {
  const idx = new Indexer<Obj>({ indexers: { color: byColor } });
  idx.add(obj("a", "1", { labels: { color: "red" } }));
  idx.replace([obj("b", "5", { labels: { color: "red" } }), obj("c", "5", { labels: { color: "blue" } })], "5");
  assert.deepEqual(sorted(idx.listKeys()), ["b", "c"]);
  assert.deepEqual(names(idx.byIndex("color", "red")), ["b"]);

  // A throwing index function leaves everything as it was.
  idx.addIndexers({
    boom: (o) =>
      o.metadata?.name === "z"
        ? (() => {
            throw new Error("bad");
          })()
        : [],
  });
  assert.throws(() => idx.replace([obj("z", "6")], "6"), /unable to calculate an index entry/);
  assert.throws(() => idx.add(obj("z", "6")), /unable to calculate/);
  assert.deepEqual(sorted(idx.listKeys()), ["b", "c"]);
});

test('the namespace index answers from the store\'s namespace → name layout, cluster-scoped objects under ""', () => {
  const idx = new Indexer<Obj>({ indexers: { [NamespaceIndex]: metaNamespaceIndexFunc, color: byColor } });
  idx.add(obj("a", "1", { ns: "ns1", labels: { color: "red" } }));
  idx.add(obj("b", "1", { ns: "ns2", labels: { color: "red" } }));
  idx.add(obj("c", "1", { labels: { color: "blue" } }));
  assert.deepEqual(sorted(idx.listIndexFuncValues(NamespaceIndex)), ["", "ns1", "ns2"]);
  assert.deepEqual(idx.indexKeys(NamespaceIndex, "ns1"), ["ns1/a"]);
  assert.deepEqual(names(idx.byIndex(NamespaceIndex, "")), ["c"]);
  assert.deepEqual(names(idx.index(NamespaceIndex, obj("x", "1", { ns: "ns2" }))), ["b"]);
  assert.equal(idx.getByKey("c")?.metadata?.name, "c");
  idx.deleteByKey("ns1/a");
  assert.deepEqual(sorted(idx.listIndexFuncValues(NamespaceIndex)), ["", "ns2"]);
  assert.deepEqual(sorted(idx.listKeys()), ["c", "ns2/b"]);
  assert.equal(idx.size, 2);
  assert.deepEqual(names(idx.byIndex("color", "red")), ["b"]);
});

test("a custom key function stores objects by its whole key, slashes included", () => {
  const idx = new Indexer<Obj>({
    keyFunc: (o) => `${o.metadata?.labels?.["color"]}/${o.metadata?.namespace}/${o.metadata?.name}`,
    indexers: { [NamespaceIndex]: metaNamespaceIndexFunc },
  });
  idx.add(obj("a", "1", { ns: "ns1", labels: { color: "red" } }));
  idx.add(obj("a", "1", { ns: "ns2", labels: { color: "red" } }));
  assert.equal(idx.getByKey("red/ns2/a")?.metadata?.namespace, "ns2");
  assert.deepEqual(sorted(idx.listKeys()), ["red/ns1/a", "red/ns2/a"]);
  assert.deepEqual(idx.indexKeys(NamespaceIndex, "ns1"), ["red/ns1/a"]);
  idx.deleteByKey("red/ns1/a");
  assert.deepEqual(idx.listIndexFuncValues(NamespaceIndex), ["ns2"]);
  assert.equal(idx.size, 1);
});
