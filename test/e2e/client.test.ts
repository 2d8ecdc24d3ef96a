// The generated MySQLCluster client, the runtime's ApiError and the informer/lister against a real kube-apiserver +
// etcd.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { ControlPlane } from "@crdgen/runtime/envtest";
import { ApiError, isConflict, isNotFound, type KubeClient } from "@crdgen/runtime";
import { SharedInformerFactory } from "@crdgen/runtime/cache";
import { isInvalid, type Status } from "@crdgen/runtime/client";
import {
  newMySQLClusterClient,
  type MySQLClusterClient,
  type MySQLClusterVerbs,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import { mySQLClusterInformerFor } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.informer.js";
import type {
  MySQLCluster,
  MySQLClusterSpec,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";
import { eventually, startSampleControlPlane } from "./control-plane.js";

// This file's namespaces: most tests use `ns`; `otherNs` is the second namespace of listAllNamespaces; `bulkNs` holds
// the 1,000 objects.
const ns = "client-e2e";
const otherNs = "client-e2e-other";
const bulkNs = "client-e2e-bulk";

let plane: ControlPlane | undefined;
let kube: KubeClient;
let client: MySQLClusterClient;
let clusters: MySQLClusterVerbs;
// Stops every informer (and watch) this file starts, whether the tests pass or not.
const stopAll = new AbortController();
const factories: SharedInformerFactory[] = [];

before(async () => {
  plane = await startSampleControlPlane();
  kube = plane.kubeClient();
  for (const name of [ns, otherNs, bulkNs]) {
    await kube.request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
    });
  }
  client = newMySQLClusterClient(kube);
  clusters = client.namespace(ns);
});

after(async () => {
  stopAll.abort();
  await Promise.all(factories.map((f) => f.shutdown()));
  (kube as KubeClient | undefined)?.close(); // before() may have failed before setting it
  await plane?.stop();
});

function cluster(name: string, spec: Partial<MySQLClusterSpec> = {}, labels?: Record<string, string>): MySQLCluster {
  return {
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name, labels },
    spec: { replicas: 1, version: "8.0.36", ...spec },
  };
}

/** Awaits a request that must fail, and returns its ApiError (fails the test on success or on another error type). */
async function apiErrorOf(request: Promise<unknown>): Promise<ApiError> {
  try {
    await request;
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the API server to reject the request");
}

const serverMessage = (error: ApiError): string | undefined =>
  typeof error.body === "object" ? error.body.message : undefined;
const names = (items: MySQLCluster[]): string[] => items.map((c) => c.metadata.name ?? "").sort();

/** Runs fn(0..n-1) with at most `concurrency` calls in flight. */
async function withConcurrency(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}

test("create then get returns the object with server-set metadata (uid, resourceVersion, creationTimestamp, generation 1)", async () => {
  const created = await clusters.create(cluster("created", { replicas: 3 }));
  const got = await clusters.get("created");
  for (const obj of [created, got]) {
    assert.equal(obj.metadata.namespace, ns);
    assert.match(obj.metadata.uid ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(obj.metadata.resourceVersion ?? "", /^\d+$/);
    // The wire carries an RFC 3339 string; the client decodes it into the Date that V1ObjectMeta declares.
    const ts = obj.metadata.creationTimestamp;
    assert.ok(ts instanceof Date, `creationTimestamp is a Date, got ${typeof ts}`);
    assert.ok(Math.abs(ts.getTime() - Date.now()) < 5 * 60_000, `creationTimestamp ${ts.toISOString()} is now`);
    assert.equal(obj.metadata.generation, 1);
    assert.equal(obj.spec?.replicas, 3);
    assert.equal(obj.spec.version, "8.0.36");
  }
  assert.equal(got.metadata.uid, created.metadata.uid);
  assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
});

test("list with a label selector returns exactly the labelled objects", async () => {
  await clusters.create(cluster("sel-a1", {}, { suite: "list", team: "a" }));
  await clusters.create(cluster("sel-a2", {}, { suite: "list", team: "a" }));
  await clusters.create(cluster("sel-b1", {}, { suite: "list", team: "b" }));
  await clusters.create(cluster("sel-none"));
  const teamA = await clusters.list({ labelSelector: "suite=list,team=a" });
  assert.equal(teamA.kind, "MySQLClusterList");
  assert.deepEqual(names(teamA.items), ["sel-a1", "sel-a2"]);
  const labelled = await clusters.list({ labelSelector: "suite=list" });
  assert.deepEqual(names(labelled.items), ["sel-a1", "sel-a2", "sel-b1"]);
  const notA = await clusters.list({ labelSelector: "suite=list,team!=a" });
  assert.deepEqual(names(notA.items), ["sel-b1"]);
});

test("listAllNamespaces sees objects in two namespaces", async () => {
  await clusters.create(cluster("everywhere", {}, { suite: "all-namespaces" }));
  await client.namespace(otherNs).create(cluster("everywhere", {}, { suite: "all-namespaces" }));
  const all = await client.listAllNamespaces({ labelSelector: "suite=all-namespaces" });
  assert.deepEqual(
    all.items.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).sort(),
    [`${ns}/everywhere`, `${otherNs}/everywhere`].sort(),
  );
  // The namespaced list of either namespace sees only its own.
  assert.deepEqual(
    (await client.namespace(otherNs).list({ labelSelector: "suite=all-namespaces" })).items.map(
      (c) => c.metadata.namespace,
    ),
    [otherNs],
  );
});

test("update with the current resourceVersion succeeds and bumps generation when spec changes", async () => {
  const created = await clusters.create(cluster("updated", { replicas: 1 }));
  const changed = structuredClone(created);
  changed.spec = { ...changed.spec!, replicas: 4 };
  const updated = await clusters.update(changed);
  assert.equal(updated.spec?.replicas, 4);
  assert.equal(updated.metadata.generation, 2);
  assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
  // A metadata-only change is written but does not bump generation.
  const relabelled = structuredClone(updated);
  relabelled.metadata.labels = { touched: "yes" };
  const afterLabel = await clusters.update(relabelled);
  assert.equal(afterLabel.metadata.labels?.["touched"], "yes");
  assert.equal(afterLabel.metadata.generation, 2);
});

test("an update with a stale resourceVersion gets 409: ApiError status 409, reason Conflict, isConflict, the server's message", async () => {
  const stale = await clusters.create(cluster("stale", { replicas: 1 }));
  await clusters.update({ ...structuredClone(stale), spec: { version: "8.0.36", replicas: 2 } });
  const error = await apiErrorOf(
    clusters.update({ ...structuredClone(stale), spec: { version: "8.0.36", replicas: 3 } }),
  );
  assert.equal(error.status, 409);
  assert.equal(error.reason, "Conflict");
  assert.equal(isConflict(error), true);
  assert.equal(error.method, "PUT");
  assert.equal(error.path, `/apis/example.com/v1/namespaces/${ns}/mysqlclusters/stale`);
  assert.equal(error.message, serverMessage(error), "the error's message is the Status message the server sent");
  assert.match(
    error.message,
    /Operation cannot be fulfilled on mysqlclusters\.example\.com "stale": the object has been modified/,
  );
  assert.equal((await clusters.get("stale")).spec?.replicas, 2, "the stale write changed nothing");
});

test("patch json (RFC 6902) with a passing test op applies its operations", async () => {
  await clusters.create(cluster("json-ok", { replicas: 1 }, { app: "db" }));
  const patched = await clusters.patch("json-ok", {
    type: "json",
    ops: [
      { op: "test", path: "/spec/replicas", value: 1 },
      { op: "replace", path: "/spec/replicas", value: 5 },
      { op: "add", path: "/metadata/labels/tier", value: "gold" },
      { op: "remove", path: "/metadata/labels/app" },
    ],
  });
  assert.equal(patched.spec?.replicas, 5);
  assert.deepEqual(patched.metadata.labels, { tier: "gold" });
  assert.equal(patched.metadata.generation, 2);
});

test("patch json whose test op fails is rejected with 422 Invalid and changes nothing", async () => {
  const created = await clusters.create(cluster("json-test-fails", { replicas: 2 }));
  const error = await apiErrorOf(
    clusters.patch("json-test-fails", {
      type: "json",
      ops: [
        { op: "test", path: "/spec/replicas", value: 7 },
        { op: "replace", path: "/spec/replicas", value: 8 },
      ],
    }),
  );
  // kube-apiserver answers a failed `test` with 422 (NewGenericServerResponse: reason Invalid), not 409.
  assert.equal(error.status, 422, `server answered ${error.status} ${error.reason}: ${error.message}`);
  assert.equal(error.reason, "Invalid");
  assert.equal(isInvalid(error), true);
  assert.equal(isConflict(error), false);
  // The server's Status carries only its generic 422 message (no cause naming the failed op); the caller gets it
  // verbatim.
  assert.equal(error.message, serverMessage(error));
  assert.equal(error.message, "the server rejected our request due to an error in our request");
  const now = await clusters.get("json-test-fails");
  assert.equal(now.spec?.replicas, 2);
  assert.equal(now.metadata.resourceVersion, created.metadata.resourceVersion);
});

test("patch merge (RFC 7386) changes the given fields and null removes a field", async () => {
  await clusters.create({
    ...cluster("merged", { replicas: 2 }, { keep: "yes", drop: "yes" }),
    metadata: {
      name: "merged",
      labels: { keep: "yes", drop: "yes" },
      annotations: { note: "remove me", other: "stay" },
    },
  });
  const patched = await clusters.patch("merged", {
    type: "merge",
    body: { metadata: { labels: { drop: null, added: "new" }, annotations: { note: null } }, spec: { replicas: 3 } },
  });
  assert.deepEqual(patched.metadata.labels, { keep: "yes", added: "new" });
  assert.deepEqual(patched.metadata.annotations, { other: "stay" });
  assert.equal(patched.spec?.replicas, 3);
  assert.equal(patched.spec.version, "8.0.36", "fields the patch does not name are kept");
});

test("patch apply with a fieldManager: managedFields name that manager as owner of the applied fields", async () => {
  const applied = await clusters.patch("applied", {
    type: "apply",
    fieldManager: "alice",
    body: {
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name: "applied" },
      spec: { replicas: 3, version: "8.0.36" },
    },
  });
  assert.equal(applied.spec?.replicas, 3);
  const alice = applied.metadata.managedFields?.find((m) => m.manager === "alice");
  assert.ok(alice, `managedFields name alice: ${JSON.stringify(applied.metadata.managedFields)}`);
  assert.equal(alice.operation, "Apply");
  const spec = (alice.fieldsV1 as Record<string, Record<string, unknown>> | undefined)?.["f:spec"];
  assert.ok(
    spec && "f:replicas" in spec && "f:version" in spec,
    `alice owns spec.replicas and spec.version: ${JSON.stringify(alice.fieldsV1)}`,
  );
});

test("patch apply: a second manager's conflicting value gets 409 Conflict without force and takes the field with force: true", async () => {
  await clusters.patch("contested", {
    type: "apply",
    fieldManager: "alice",
    body: {
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name: "contested" },
      spec: { replicas: 3, version: "8.0.36" },
    },
  });
  const bobBody = {
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "contested" },
    spec: { replicas: 5 },
  } as const;
  const error = await apiErrorOf(clusters.patch("contested", { type: "apply", fieldManager: "bob", body: bobBody }));
  assert.equal(error.status, 409);
  assert.equal(error.reason, "Conflict");
  assert.equal(isConflict(error), true);
  assert.match(error.message, /conflict with "alice"/);
  assert.match(error.message, /\.spec\.replicas/);
  assert.equal((await clusters.get("contested")).spec?.replicas, 3);

  const forced = await clusters.patch("contested", { type: "apply", fieldManager: "bob", force: true, body: bobBody });
  assert.equal(forced.spec?.replicas, 5);
  const owners = (field: string): string[] =>
    (forced.metadata.managedFields ?? [])
      .filter((m) => field in ((m.fieldsV1 as Record<string, Record<string, unknown>> | undefined)?.["f:spec"] ?? {}))
      .map((m) => m.manager ?? "");
  assert.deepEqual(owners("f:replicas"), ["bob"], "bob took spec.replicas from alice");
  assert.deepEqual(owners("f:version"), ["alice"], "alice keeps spec.version");
});

test('the server rejects replicas: "three" with 422 reaching the caller as ApiError reason Invalid naming spec.replicas', async () => {
  const created = await clusters.create(cluster("typed", { replicas: 2 }));
  const error = await apiErrorOf(
    clusters.patch("typed", { type: "merge", body: { spec: { replicas: "three" as unknown as number } } }),
  );
  assert.equal(error.status, 422);
  assert.equal(error.reason, "Invalid");
  assert.equal(isInvalid(error), true);
  assert.equal(error.message, serverMessage(error));
  assert.match(error.message, /spec\.replicas/);
  assert.ok(
    (error.body as Status).details?.causes?.some((c) => c.field === "spec.replicas"),
    `a cause names the field: ${JSON.stringify((error.body as Status).details)}`,
  );
  const now = await clusters.get("typed");
  assert.equal(now.spec?.replicas, 2);
  assert.equal(now.metadata.resourceVersion, created.metadata.resourceVersion);
  // The same value in a create (the cast stands for an untyped caller) is refused the same way.
  const onCreate = await apiErrorOf(
    clusters.create(cluster("typed-create", { replicas: "three" as unknown as number })),
  );
  assert.equal(onCreate.status, 422);
  assert.equal(onCreate.reason, "Invalid");
  assert.match(onCreate.message, /spec\.replicas/);
});

test("updateStatus writes status only: a spec change in the same object is ignored by the status subresource", async () => {
  const created = await clusters.create(cluster("status-only", { replicas: 2 }));
  const write = structuredClone(created);
  write.status = { phase: "Ready", replicas: 2, readyReplicas: 2, observedGeneration: 1 };
  write.spec = { ...write.spec!, replicas: 6 };
  const written = await clusters.updateStatus(write);
  assert.equal(written.status?.phase, "Ready");
  assert.equal(written.status.readyReplicas, 2);
  assert.equal(written.spec?.replicas, 2, "the spec change was ignored");
  assert.equal(written.metadata.generation, 1, "generation tracks spec only");
  const stored = await clusters.get("status-only");
  assert.equal(stored.spec?.replicas, 2);
  assert.equal(stored.status?.phase, "Ready");
});

test("an update of the main resource ignores status", async () => {
  const created = await clusters.create({ ...cluster("spec-only", { replicas: 1 }), status: { phase: "Degraded" } });
  assert.equal(created.status, undefined, "create drops status when the status subresource is enabled");
  const withStatus = await clusters.updateStatus({
    ...structuredClone(created),
    status: { phase: "Ready", readyReplicas: 1 },
  });
  const write = structuredClone(withStatus);
  write.spec = { ...write.spec!, replicas: 3 };
  write.status = { phase: "Degraded", readyReplicas: 0 };
  const updated = await clusters.update(write);
  assert.equal(updated.spec?.replicas, 3);
  assert.equal(updated.metadata.generation, 2);
  assert.deepEqual(updated.status, { phase: "Ready", readyReplicas: 1 }, "the status change was ignored");
  assert.deepEqual((await clusters.get("spec-only")).status, { phase: "Ready", readyReplicas: 1 });
});

test("delete returns and a later get is 404 (isNotFound)", async () => {
  const created = await clusters.create(cluster("doomed"));
  const deleted = await clusters.delete("doomed");
  // For a custom resource without finalizers the server answers with a Success Status naming the deleted object.
  assert.equal(deleted.kind, "Status", `delete returned ${JSON.stringify(deleted)}`);
  const status = deleted as Status & { details?: { uid?: string } };
  assert.equal(status.status, "Success");
  assert.equal(status.details?.name, "doomed");
  assert.equal(status.details.uid, created.metadata.uid);
  const error = await apiErrorOf(clusters.get("doomed"));
  assert.equal(error.status, 404);
  assert.equal(error.reason, "NotFound");
  assert.equal(isNotFound(error), true);
  assert.match(error.message, /mysqlclusters\.example\.com "doomed" not found/);
  // Deleting it again is a 404 too.
  assert.equal(isNotFound(await apiErrorOf(clusters.delete("doomed"))), true);
});

test("deleteCollection with a label selector removes just those objects", async () => {
  for (const name of ["purge-1", "purge-2", "purge-3"])
    await clusters.create(cluster(name, {}, { suite: "purge", purge: "yes" }));
  for (const name of ["spare-1", "spare-2"]) await clusters.create(cluster(name, {}, { suite: "purge", purge: "no" }));
  await clusters.deleteCollection({ labelSelector: "suite=purge,purge=yes" });
  const left = await clusters.list({ labelSelector: "suite=purge" });
  assert.deepEqual(names(left.items), ["spare-1", "spare-2"]);
  assert.equal(isNotFound(await apiErrorOf(clusters.get("purge-2"))), true);
  // Objects without the label elsewhere in the namespace are untouched.
  assert.equal((await clusters.get("created")).metadata.name, "created");
});

test("watch from a list's resourceVersion sees ADDED, MODIFIED and DELETED for one object, in that order", async () => {
  const name = "watched";
  const fieldSelector = `metadata.name=${name}`;
  const listed = await clusters.list({ fieldSelector });
  assert.equal(listed.items.length, 0);
  const resourceVersion = listed.metadata?.resourceVersion;
  assert.ok(resourceVersion, "the list has a resourceVersion");

  const stop = new AbortController();
  const onStopAll = (): void => stop.abort();
  stopAll.signal.addEventListener("abort", onStopAll, { once: true });
  const timer = setTimeout(() => stop.abort(), 30_000);
  const seen: Array<{ type: string; name?: string; rv?: string; replicas?: number }> = [];
  try {
    // The changes are made before the watch is even opened: watching from the list's RV must replay them.
    await clusters.create(cluster(name, { replicas: 1 }));
    await clusters.patch(name, { type: "merge", body: { spec: { replicas: 2 } } });
    await clusters.delete(name);
    for await (const event of clusters.watch({ resourceVersion, fieldSelector }, stop.signal)) {
      if (event.type === "BOOKMARK") continue;
      if (event.type === "ERROR") assert.fail(`watch ERROR event: ${JSON.stringify(event.object)}`);
      seen.push({
        type: event.type,
        name: event.object.metadata.name,
        rv: event.object.metadata.resourceVersion,
        replicas: event.object.spec?.replicas,
      });
      if (event.type === "DELETED") break;
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
    stopAll.signal.removeEventListener("abort", onStopAll);
  }
  assert.deepEqual(
    seen.map((e) => e.type),
    ["ADDED", "MODIFIED", "DELETED"],
    `events: ${JSON.stringify(seen)}`,
  );
  assert.ok(seen.every((e) => e.name === name));
  assert.deepEqual(
    seen.map((e) => e.replicas),
    [1, 2, 2],
  );
  const rvs = seen.map((e) => Number(e.rv));
  assert.ok(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!, `resourceVersions increase: ${rvs.join(", ")}`);
});

test(
  "an informer syncs 1,000 MySQLClusters; its lister lists, gets and selects from the cache and sees later changes",
  { timeout: 300_000 },
  async () => {
    const total = 1000;
    const bulk = client.namespace(bulkNs);
    const nameOf = (i: number): string => `bulk-${String(i).padStart(4, "0")}`;

    const createStart = performance.now();
    await withConcurrency(total, 20, (i) =>
      bulk.create(
        cluster(nameOf(i), { replicas: (i % 9) + 1 }, { shard: String(i % 10), parity: i % 2 ? "odd" : "even" }),
      ),
    );
    const createMs = performance.now() - createStart;

    const factory = new SharedInformerFactory();
    factories.push(factory);
    const { informer, lister } = mySQLClusterInformerFor(factory, kube, { namespace: bulkNs });
    assert.equal(informer.hasSynced(), false);
    const syncStart = performance.now();
    factory.start(stopAll.signal);
    const synced = await factory.waitForCacheSync(AbortSignal.any([stopAll.signal, AbortSignal.timeout(120_000)]));
    const syncMs = performance.now() - syncStart;
    const atSync = lister.namespace(bulkNs).list().length;
    assert.equal(synced, true, "waitForCacheSync resolved true");
    assert.equal(informer.hasSynced(), true);
    // The first LIST is at resourceVersion "0", which the API server answers from its watch cache: right after a burst
    // of creates that snapshot may trail etcd by a few objects, and the watch from its RV then delivers the rest.
    assert.ok(atSync > 0 && atSync <= total, `${atSync} objects in the cache at sync`);
    await eventually(`${total} objects in the lister`, () =>
      lister.namespace(bulkNs).list().length === total ? true : undefined,
    );
    const convergedMs = performance.now() - syncStart;
    console.log(
      `1,000 MySQLCluster creates (20 in flight): ${(createMs / 1000).toFixed(2)} s; informer LIST + sync: ${(syncMs / 1000).toFixed(2)} s ` +
        `(${atSync} objects at sync); all 1,000 in the lister after ${(convergedMs / 1000).toFixed(2)} s`,
    );

    assert.equal(lister.namespace(bulkNs).list().length, total);
    assert.equal(lister.list().length, total, "the informer is scoped to its namespace");
    assert.equal(lister.namespace(ns).list().length, 0);
    const server = await bulk.get("bulk-0123");
    const cached = lister.get(bulkNs, "bulk-0123");
    assert.ok(cached, "get(ns, name) answers from the cache");
    assert.equal(cached.metadata.uid, server.metadata.uid);
    assert.equal(cached.metadata.resourceVersion, server.metadata.resourceVersion);
    assert.equal(cached.spec?.replicas, (123 % 9) + 1);
    assert.equal(lister.namespace(bulkNs).get("bulk-0999")?.metadata.name, "bulk-0999");
    assert.equal(lister.get(bulkNs, "bulk-1000"), undefined);

    const shard3 = lister.namespace(bulkNs).list("shard=3");
    const expectedShard3 = Array.from({ length: total }, (_, i) => i)
      .filter((i) => i % 10 === 3)
      .map(nameOf);
    assert.deepEqual(names(shard3), expectedShard3);
    assert.equal(
      lister.namespace(bulkNs).list("shard in (1,2),parity=odd").length,
      100,
      "shards 1 and 2 with odd numbers: shard 1 only",
    );
    assert.equal(lister.namespace(bulkNs).list({ parity: "even" }).length, 500);
    assert.deepEqual(
      names(lister.namespace(bulkNs).list("shard=3")),
      names((await bulk.list({ labelSelector: "shard=3" })).items),
      "the lister agrees with the server",
    );

    // Changes after sync reach the cache through the watch.
    await bulk.patch("bulk-0042", {
      type: "merge",
      body: { spec: { replicas: 9 }, metadata: { labels: { shard: "moved" } } },
    });
    await bulk.create(cluster("bulk-late", {}, { shard: "3" }));
    await bulk.delete("bulk-0999");
    await eventually("the patch, create and delete in the lister", () => {
      const patched = lister.get(bulkNs, "bulk-0042");
      const ready =
        patched?.spec?.replicas === 9 &&
        lister.get(bulkNs, "bulk-late") !== undefined &&
        lister.get(bulkNs, "bulk-0999") === undefined;
      return ready ? true : undefined;
    });
    assert.equal(lister.namespace(bulkNs).list().length, total);
    assert.deepEqual(names(lister.namespace(bulkNs).list("shard=moved")), ["bulk-0042"]);
    assert.equal(lister.namespace(bulkNs).list("shard=3").length, 101);
  },
);
