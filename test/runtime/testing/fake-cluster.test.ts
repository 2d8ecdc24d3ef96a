// The fake client of @crdgen/runtime/testing: the API server rules reconcile hooks rely on, without an API server.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ResourceClient,
  isAlreadyExists,
  isConflict,
  isNotFound,
  newEventRecorder,
  type KubernetesObject,
} from "@crdgen/runtime";
import { isInvalid, type WatchEvent } from "@crdgen/runtime/client";
import { FakeCluster, newFakeResourceClient } from "@crdgen/runtime/testing";
import { quiet } from "../support/cache-fakes.js";

interface Widget extends KubernetesObject {
  spec?: { size?: number; tags?: string[] };
  status?: { ready?: boolean; observed?: number };
}

const widgets = { group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true };
const w = (name: string, labels: Record<string, string> = {}, size = 1): Widget => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name, labels },
  spec: { size },
});

async function rejects(p: Promise<unknown>, check: (e: unknown) => boolean): Promise<void> {
  await assert.rejects(p, (e) => {
    assert.ok(check(e), String(e));
    return true;
  });
}

test("create sets uid, resourceVersion, generation 1 and creationTimestamp; get returns a copy with a Date", async () => {
  const client = newFakeResourceClient<Widget>(widgets).namespace("ns");
  const created = await client.create(w("a"));
  assert.equal(created.metadata?.namespace, "ns");
  assert.equal(created.metadata.generation, 1);
  assert.match(created.metadata.uid ?? "", /^[0-9a-f-]{36}$/);
  assert.ok(created.metadata.creationTimestamp instanceof Date);
  const got = await client.get("a");
  assert.equal(got.metadata?.resourceVersion, created.metadata.resourceVersion);
  got.spec!.size = 99;
  assert.equal((await client.get("a")).spec?.size, 1, "stored object is not shared");
  await rejects(client.create(w("a")), isAlreadyExists);
  await rejects(client.get("missing"), isNotFound);
  const generated = await client.create({ metadata: { generateName: "gen-" } });
  assert.match(generated.metadata?.name ?? "", /^gen-[0-9a-f]{5}$/);
});

test("update: resourceVersion bumps, a stale one is a 409 Conflict, a missing one is Invalid", async () => {
  const client = newFakeResourceClient<Widget>(widgets).namespace("ns");
  const v1 = await client.create(w("a"));
  const v2 = await client.update({ ...v1, spec: { size: 2 } });
  assert.ok(Number(v2.metadata?.resourceVersion) > Number(v1.metadata?.resourceVersion));
  await rejects(client.update({ ...v1, spec: { size: 3 } }), isConflict);
  await rejects(client.update({ ...w("a"), spec: { size: 3 } }), isInvalid);
  const same = await client.update(v2);
  assert.equal(same.metadata?.resourceVersion, v2.metadata?.resourceVersion, "a no-op write keeps the resourceVersion");
});

test("generation bumps on spec changes only; metadata and status changes keep it", async () => {
  const client = newFakeResourceClient<Widget>(widgets).namespace("ns");
  const a = await client.create(w("a"));
  const labelled = await client.update({ ...a, metadata: { ...a.metadata, labels: { x: "y" } } });
  assert.equal(labelled.metadata?.generation, 1);
  const withStatus = await client.updateStatus({ ...labelled, status: { ready: true } });
  assert.equal(withStatus.metadata?.generation, 1);
  const resized = await client.update({ ...withStatus, spec: { size: 5 } });
  assert.equal(resized.metadata?.generation, 2);
});

test("the status subresource: create and update ignore status, updateStatus and patchStatus change only status", async () => {
  const client = newFakeResourceClient<Widget>(widgets).namespace("ns");
  const a = await client.create({ ...w("a"), status: { ready: true } });
  assert.equal(a.status, undefined);
  const u = await client.update({ ...a, spec: { size: 2 }, status: { ready: true } });
  assert.equal(u.status, undefined);
  assert.equal(u.spec?.size, 2);
  const s = await client.updateStatus({
    ...u,
    spec: { size: 100 },
    metadata: { ...u.metadata, labels: { sneaky: "yes" } },
    status: { ready: true },
  });
  assert.deepEqual(s.status, { ready: true });
  assert.equal(s.spec?.size, 2);
  assert.deepEqual(s.metadata?.labels, {});
  await rejects(client.updateStatus({ ...u, status: { ready: false } }), isConflict);
  const p = await client.patchStatus("a", { type: "merge", body: { spec: { size: 7 }, status: { observed: 1 } } });
  assert.deepEqual(p.status, { ready: true, observed: 1 });
  assert.equal(p.spec?.size, 2);
  const q = await client.patch("a", { type: "merge", body: { spec: { size: 3 }, status: { ready: false } } });
  assert.equal(q.spec?.size, 3);
  assert.equal(q.status?.ready, true);
});

test("without the status subresource, status is an ordinary field and updateStatus is a 404", async () => {
  const client = newFakeResourceClient<Widget>(widgets, { status: false }).namespace("ns");
  const a = await client.create({ ...w("a"), status: { ready: true } });
  assert.deepEqual(a.status, { ready: true });
  await rejects(client.updateStatus(a), isNotFound);
});

test("list filters by namespace, label selector and field selector", async () => {
  const fake = newFakeResourceClient<Widget>(widgets);
  await fake.namespace("a").create(w("one", { app: "db", tier: "x" }));
  await fake.namespace("a").create(w("two", { app: "web" }));
  await fake.namespace("b").create(w("three", { app: "db" }));
  const names = async (ns: string | undefined, labelSelector?: string, fieldSelector?: string) =>
    (
      await fake.list(ns, { ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) })
    ).items.map((i) => i.metadata?.name);
  assert.deepEqual(await names("a"), ["one", "two"]);
  assert.deepEqual(await names(undefined, "app=db"), ["one", "three"]);
  assert.deepEqual(await names(undefined, "app!=db"), ["two"]);
  assert.deepEqual(await names(undefined, "app in (web, db),tier"), ["one"]);
  assert.deepEqual(await names(undefined, "app notin (db),!tier"), ["two"]);
  assert.deepEqual(await names(undefined, undefined, "metadata.name=three"), ["three"]);
  assert.deepEqual(await names(undefined, "app==db", "metadata.namespace!=a"), ["three"]);
  const list = await fake.listAllNamespaces();
  assert.equal(list.kind, "WidgetList");
  assert.ok(list.metadata?.resourceVersion);
});

test("merge patch deletes with null and replaces lists; json patch supports test, add, remove and conflicts via resourceVersion", async () => {
  const client = newFakeResourceClient<Widget>(widgets).namespace("ns");
  const a = await client.create({ ...w("a", { x: "1", y: "2" }), spec: { size: 1, tags: ["a", "b"] } });
  const m = await client.patch("a", {
    type: "merge",
    body: { metadata: { labels: { x: null } }, spec: { tags: ["c"] } },
  });
  assert.deepEqual(m.metadata?.labels, { y: "2" });
  assert.deepEqual(m.spec?.tags, ["c"]);
  const j = await client.patch("a", {
    type: "json",
    ops: [
      { op: "test", path: "/spec/size", value: 1 },
      { op: "add", path: "/spec/tags/-", value: "d" },
      { op: "replace", path: "/spec/size", value: 4 },
      { op: "remove", path: "/metadata/labels/y" },
    ],
  });
  assert.deepEqual(j.spec, { size: 4, tags: ["c", "d"] });
  assert.deepEqual(j.metadata?.labels, {});
  assert.equal(j.metadata.generation, 3);
  await rejects(client.patch("a", { type: "json", ops: [{ op: "test", path: "/spec/size", value: 1 }] }), isInvalid);
  await rejects(
    client.patch("a", {
      type: "merge",
      body: { metadata: { resourceVersion: a.metadata!.resourceVersion! }, spec: { size: 9 } },
    }),
    isConflict,
  );
  await rejects(client.patch("missing", { type: "merge", body: {} }), isNotFound);
});

test("apply creates a missing object and merges into an existing one", async () => {
  const client = newFakeResourceClient<Widget>(widgets).namespace("ns");
  const body = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "a" }, spec: { size: 2 } } as const;
  const created = await client.patch("a", { type: "apply", body, fieldManager: "m" });
  assert.equal(created.metadata?.generation, 1);
  const again = await client.patch("a", { type: "apply", body, fieldManager: "m" });
  assert.equal(again.metadata?.resourceVersion, created.metadata.resourceVersion);
  const bigger = await client.patch("a", { type: "apply", body: { ...body, spec: { size: 3 } }, fieldManager: "m" });
  assert.equal(bigger.spec?.size, 3);
  assert.equal(bigger.metadata?.generation, 2);
});

test("delete: finalizers hold the object with a deletionTimestamp until they are removed", async () => {
  const client = newFakeResourceClient<Widget>(widgets).namespace("ns");
  const a = await client.create({ ...w("a"), metadata: { name: "a", finalizers: ["example.com/finalizer"] } });
  await rejects(client.delete("a", { preconditions: { uid: "other" } }), isConflict);
  const held = (await client.delete("a")) as Widget;
  assert.ok(held.metadata?.deletionTimestamp instanceof Date);
  assert.ok((await client.get("a")).metadata?.deletionTimestamp);
  const current = await client.get("a");
  await client.update({ ...current, metadata: { ...current.metadata, finalizers: [] } });
  await rejects(client.get("a"), isNotFound);
  await client.create(w("b"));
  const status = await client.delete("b");
  assert.equal((status as { status?: string }).status, "Success");
  assert.ok(a.metadata?.uid);
});

test("deleteCollection deletes what the selector matches", async () => {
  const client = newFakeResourceClient<Widget>(widgets).namespace("ns");
  await client.create(w("a", { app: "x" }));
  await client.create(w("b", { app: "y" }));
  await client.deleteCollection({ labelSelector: "app=x" });
  assert.deepEqual(
    (await client.list()).items.map((i) => i.metadata?.name),
    ["b"],
  );
});

test("watch: initial ADDED events, then changes fanned out to every watcher, filtered by selector", async () => {
  const fake = newFakeResourceClient<Widget>(widgets);
  const ns = fake.namespace("ns");
  await ns.create(w("before", { app: "db" }));
  const stop = new AbortController();
  const collect = (it: AsyncIterable<WatchEvent<Widget>>, n: number) =>
    (async () => {
      const seen: string[] = [];
      for await (const e of it) {
        seen.push(`${e.type} ${(e.object as Widget).metadata?.name}`);
        if (seen.length === n) break;
      }
      return seen;
    })();
  const all = collect(fake.watchAllNamespaces({}, stop.signal), 4);
  const db = collect(ns.watch({ labelSelector: "app=db" }, stop.signal), 3);
  const a = await ns.create(w("a", { app: "web" }));
  const moved = await ns.update({ ...a, metadata: { ...a.metadata, labels: { app: "db" } } });
  await ns.delete("a");
  assert.deepEqual(await all, ["ADDED before", "ADDED a", "MODIFIED a", "DELETED a"]);
  assert.deepEqual(await db, ["ADDED before", "ADDED a", "DELETED a"]);
  // From a resourceVersion: only what happened after it.
  const since = collect(ns.watch({ resourceVersion: moved.metadata!.resourceVersion! }, stop.signal), 1);
  assert.deepEqual(await since, ["DELETED a"]);
  // Aborting ends an idle watch.
  const idle = collect(ns.watch({ resourceVersion: "999999" }, stop.signal), 1);
  stop.abort();
  assert.deepEqual(await idle, []);
});

test("the fake KubeClient serves ResourceClient, so code written against ResourceClient runs on the fake", async () => {
  const cluster = new FakeCluster();
  cluster.register(widgets);
  const rc = new ResourceClient<Widget>(cluster.kubeClient(), widgets);
  const created = await rc.create("ns", w("a", { app: "db" }));
  assert.ok(created.metadata?.creationTimestamp instanceof Date);
  const fake = cluster.client<Widget>(widgets);
  assert.equal((await fake.get("ns", "a")).metadata?.uid, created.metadata.uid, "both views share the objects");
  await rc.patchStatus("ns", "a", { type: "merge", body: { status: { ready: true } } });
  await rc.patch("ns", "a", { type: "json", ops: [{ op: "replace", path: "/spec/size", value: 2 }] });
  await rc.patch("ns", "a", {
    type: "apply",
    body: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "a" }, spec: { tags: ["t"] } },
    fieldManager: "m",
    force: true,
  });
  const got = await rc.get("ns", "a");
  assert.deepEqual(got.status, { ready: true });
  assert.deepEqual(got.spec, { size: 2, tags: ["t"] });
  await rejects(rc.update("ns", { ...got, metadata: { ...got.metadata, resourceVersion: "1" } }), isConflict);
  const listed = (await rc.list(undefined, { labelSelector: "app=db" })).items;
  assert.deepEqual(
    listed.map((i) => i.metadata?.name),
    ["a"],
  );
  assert.ok(listed[0]!.metadata?.creationTimestamp instanceof Date, "list items are decoded like the real client's");
  const stop = new AbortController();
  for await (const e of rc.watch("ns", {}, stop.signal)) {
    assert.equal(e.type, "ADDED");
    break;
  }
  await rc.delete("ns", "a");
  await rejects(rc.get("ns", "a"), isNotFound);
  await rejects(
    new ResourceClient<Widget>(cluster.kubeClient(), { ...widgets, plural: "gadgets" }).list("ns"),
    isNotFound,
  );
});

test("the event recorder writes events.k8s.io/v1 Events (checked through the fake KubeClient)", async () => {
  const cluster = new FakeCluster();
  const recorder = newEventRecorder(cluster.kubeClient(), "widgets.example.com", quiet, {
    reportingInstance: "widgets-0",
  });
  const obj = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "a", namespace: "ns", uid: "u-1" } };
  await recorder.event(obj, "Warning", "Failed", "x".repeat(2000), { action: "Scaling" });
  await recorder.event({ ...obj, metadata: { name: "cluster-wide" } }, "Normal", "Observed", "ok");
  const events = cluster.client<KubernetesObject & Record<string, unknown>>({
    group: "events.k8s.io",
    version: "v1",
    plural: "events",
    kind: "Event",
    namespaced: true,
  });
  const [e] = (await events.list("ns")).items;
  assert.ok(e);
  assert.equal(e.apiVersion, "events.k8s.io/v1");
  assert.match(e.metadata?.name ?? "", /^a\.[0-9a-f]+$/);
  assert.deepEqual(e["regarding"], {
    apiVersion: "example.com/v1",
    kind: "Widget",
    name: "a",
    namespace: "ns",
    uid: "u-1",
  });
  assert.equal(e["type"], "Warning");
  assert.equal(e["reason"], "Failed");
  assert.equal(e["action"], "Scaling");
  assert.equal((e["note"] as string).length, 1024);
  assert.equal(e["reportingController"], "widgets.example.com");
  assert.equal(e["reportingInstance"], "widgets-0");
  assert.match(String(e["eventTime"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  const [clusterScoped] = (await events.list("default")).items;
  assert.equal(clusterScoped?.["action"], "Observed");
});
