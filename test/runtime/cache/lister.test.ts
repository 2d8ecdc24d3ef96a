// Unit tests for the Lister / ClusterLister over an Indexer (label selectors themselves: labels.test.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ClusterLister,
  Indexer,
  Lister,
  NamespaceIndex,
  metaNamespaceIndexFunc,
  parseLabelSelector,
} from "@crdgen/runtime/cache";
import { type Obj, obj } from "../support/cache-fakes.js";

function store(): Indexer<Obj> {
  const idx = new Indexer<Obj>({ indexers: { [NamespaceIndex]: metaNamespaceIndexFunc } });
  idx.add(obj("a", "1", { ns: "ns1", labels: { app: "db", tier: "web" } }));
  idx.add(obj("b", "1", { ns: "ns1", labels: { app: "db", tier: "cache" } }));
  idx.add(obj("c", "1", { ns: "ns2", labels: { app: "web" } }));
  idx.add(obj("d", "1", { ns: "ns2" }));
  return idx;
}
const names = (xs: Obj[]): string[] => xs.map((o) => o.metadata!.name!).sort();

test("lister namespace/get/list with label selectors (set-based too)", () => {
  const lister = new Lister<Obj>(store());
  assert.deepEqual(names(lister.list()), ["a", "b", "c", "d"]);
  assert.deepEqual(names(lister.list("app=db")), ["a", "b"]);
  assert.deepEqual(names(lister.list({ app: "db", tier: "web" })), ["a"]);
  assert.deepEqual(names(lister.list("tier in (web,cache),app")), ["a", "b"]);
  assert.deepEqual(names(lister.list("app notin (db)")), ["c", "d"]);
  assert.deepEqual(names(lister.list("!app")), ["d"]);
  assert.deepEqual(names(lister.list(parseLabelSelector("app!=db"))), ["c", "d"]);
  assert.equal(lister.get("ns1", "a")?.metadata?.name, "a");
  assert.equal(lister.get("ns2", "a"), undefined);
  assert.deepEqual(names(lister.namespace("ns1").list()), ["a", "b"]);
  assert.deepEqual(names(lister.namespace("ns1").list("tier=cache")), ["b"]);
  assert.deepEqual(names(lister.namespace("ns2").list("app in (db)")), []);
  assert.deepEqual(names(lister.namespace("").list("app=db")), ["a", "b"]); // "" = all namespaces
  assert.equal(lister.namespace("ns2").get("d")?.metadata?.name, "d");
  assert.equal(lister.namespace("ns2").get("a"), undefined);
  assert.deepEqual(names(lister.byIndex(NamespaceIndex, "ns2")), ["c", "d"]);
});

test("lister namespace() works without a namespace index", () => {
  const idx = new Indexer<Obj>();
  idx.add(obj("a", "1", { ns: "ns1" }));
  idx.add(obj("b", "1", { ns: "ns2" }));
  assert.deepEqual(names(new Lister<Obj>(idx).namespace("ns2").list()), ["b"]);
});

test("cluster lister get/list/byIndex for cluster-scoped objects", () => {
  const idx = new Indexer<Obj>({ indexers: { zone: (o) => [o.metadata?.labels?.zone ?? ""] } });
  idx.add(obj("n1", "1", { labels: { zone: "a" } }));
  idx.add(obj("n2", "1", { labels: { zone: "b" } }));
  const lister = new ClusterLister<Obj>(idx);
  assert.equal(lister.get("n2")?.metadata?.name, "n2");
  assert.equal(lister.get("n3"), undefined);
  assert.deepEqual(names(lister.list("zone in (a)")), ["n1"]);
  assert.deepEqual(names(lister.list()), ["n1", "n2"]);
  assert.deepEqual(names(lister.byIndex("zone", "b")), ["n2"]);
});
