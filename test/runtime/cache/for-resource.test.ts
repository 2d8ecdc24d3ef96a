// SharedInformerFactory.forResource (client-go's ForResource): one informer per resource and scope, with its lister.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterLister, Lister, SharedInformerFactory, informerKey } from "@crdgen/runtime/cache";
import { FakeCluster } from "@crdgen/runtime/testing";
import { obj, type Obj, thingsResource as things } from "../support/cache-fakes.js";

const pools = { group: "example.com", version: "v1", plural: "pools", kind: "Pool", namespaced: false };
const kube = new FakeCluster().kubeClient();

test("forResource shares one informer per resource and scope", () => {
  const factory = new SharedInformerFactory();
  const a = factory.forResource<Obj>(kube, things, { namespace: "ns" });
  const b = factory.forResource<Obj>(kube, { ...things }, { namespace: "ns" });
  assert.equal(a.informer, b.informer, "the same resource and scope is one informer");
  assert.equal(
    factory.informerFor(informerKey("example.com/v1", "things", { namespace: "ns" }), () =>
      assert.fail("created again"),
    ),
    a.informer,
    "informerFor's key for that scope finds it",
  );
});

test("forResource gives different scopes and resources different informers", () => {
  const factory = new SharedInformerFactory();
  const inNs = factory.forResource<Obj>(kube, things, { namespace: "ns" }).informer;
  const everywhere = factory.forResource<Obj>(kube, things).informer;
  const selected = factory.forResource<Obj>(kube, things, { namespace: "ns", labelSelector: "app=db" }).informer;
  const otherVersion = factory.forResource<Obj>(kube, { ...things, version: "v2" }, { namespace: "ns" }).informer;
  assert.equal(new Set([inNs, everywhere, selected, otherVersion]).size, 4);
});

test("forResource's lister reads the informer's cache: a Lister for a namespaced kind, a ClusterLister for a cluster-scoped one", () => {
  const factory = new SharedInformerFactory();
  const namespaced = factory.forResource<Obj>(kube, things);
  const cluster = factory.forResource<Obj>(kube, pools);
  assert.ok(namespaced.lister instanceof Lister);
  assert.ok(cluster.lister instanceof ClusterLister);
  namespaced.informer.getIndexer().add(obj("a", "1", { ns: "ns" }));
  assert.equal(namespaced.lister.list().length, 1);
});
