// newTestContext and FakeCluster.indexer: a hook test's context reads what the FakeCluster holds, as the controller's
// context reads its informer's cache, and writes through the cluster.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  builtinResources,
  type KubernetesObject,
  type ReconcileContext,
  type ResourceDescriptor,
} from "@crdgen/runtime";
import { Lister } from "@crdgen/runtime/cache";
import { FakeCluster, newTestContext } from "@crdgen/runtime/testing";

interface Widget extends KubernetesObject {
  spec?: { size?: number };
}
interface WidgetContext extends ReconcileContext {
  lister: Lister<Widget>;
}

const widgets: ResourceDescriptor<Widget> = {
  group: "example.com",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};
const widget = (name: string): Widget => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name, namespace: "ns" },
  spec: { size: 1 },
});
const contextFor = (cluster: FakeCluster, obj: Widget) =>
  newTestContext<Widget, WidgetContext>(cluster, widgets, obj, (_kube, indexer) => ({
    lister: new Lister(indexer),
  }));

test("the indexer holds the objects written before and after it was made, and drops deleted ones", async () => {
  const cluster = new FakeCluster();
  cluster.register(widgets);
  cluster.create(widgets, "ns", widget("before"));
  const indexer = cluster.indexer(widgets);
  cluster.create(widgets, "ns", widget("after"));
  assert.deepEqual(indexer.listKeys().sort(), ["ns/after", "ns/before"]);

  const updated = cluster.patch(widgets, "ns", "after", { type: "merge", body: { spec: { size: 3 } } });
  const cached = indexer.getByKey("ns/after");
  assert.equal(cached?.spec?.size, 3);
  assert.equal(cached.metadata?.resourceVersion, updated.metadata.resourceVersion);
  assert.ok(cached.metadata?.creationTimestamp instanceof Date, "ObjectMeta dates revived, as an informer's");

  await cluster.kubeClient().request({ method: "DELETE", path: "/apis/example.com/v1/namespaces/ns/widgets/before" });
  assert.deepEqual(indexer.listKeys(), ["ns/after"]);
});

test("one indexer per resource: contexts made per case share it instead of each adding a watcher", () => {
  const cluster = new FakeCluster();
  const first = contextFor(cluster, widget("a"));
  const second = contextFor(cluster, widget("b"));
  assert.equal(cluster.indexer(widgets), cluster.indexer(widgets));
  cluster.create(widgets, "ns", widget("a"));
  assert.equal(first.lister.list().length, 1);
  assert.equal(second.lister.list().length, 1);
});

test("newTestContext: key, name and namespace of the object; its lister follows the cluster", () => {
  const cluster = new FakeCluster();
  const ctx = contextFor(cluster, widget("a"));
  assert.deepEqual([ctx.key, ctx.namespace, ctx.name], ["ns/a", "ns", "a"]);
  assert.equal(ctx.lister.namespace("ns").get("a"), undefined);

  cluster.create(widgets, "ns", widget("a"));
  assert.equal(ctx.lister.namespace("ns").get("a")?.spec?.size, 1);
  assert.equal(ctx.lister.list().length, 1);
});

test("newTestContext: ctx.kube, ctx.children and ctx.recorder write to the cluster", async () => {
  const cluster = new FakeCluster();
  const ctx = contextFor(cluster, widget("a"));
  await ctx.children.apply(builtinResources.configMaps, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a-config", namespace: "ns" },
    data: { size: "1" },
  });
  assert.deepEqual(cluster.get(builtinResources.configMaps, "ns", "a-config").data, { size: "1" });

  const created = cluster.create(widgets, "ns", widget("a"));
  await ctx.recorder.event(created, "Normal", "Tested", "an event");
  const events = await ctx.kube.request<{ items: Array<{ reason?: string }> }>({
    method: "GET",
    path: "/apis/events.k8s.io/v1/namespaces/ns/events",
  });
  assert.deepEqual(
    events.items.map((e) => e.reason),
    ["Tested"],
  );
});

test("newTestContext refuses an object without a name", () => {
  assert.throws(() => contextFor(new FakeCluster(), { apiVersion: "example.com/v1", kind: "Widget", metadata: {} }), {
    message: /has no metadata.name/,
  });
});
