// Watches on owned kinds (controller.owns / options.owns) and the primary resource's predicates
// (generationChangedOnly).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Controller, builtinResources, type KubernetesObject } from "@crdgen/runtime";
import { SharedIndexInformer, SharedInformerFactory, informerKey } from "@crdgen/runtime/cache";
import { enqueueRequestForObject, generationChangedPredicate, primaryPredicates } from "@crdgen/runtime/handler";
import { controllerOwnerKey } from "#runtime/handler/event-handlers.js";
import { newRateLimitingQueue, type RateLimitingQueue } from "@crdgen/runtime/workqueue";
import {
  FakeListerWatcher,
  flush,
  list,
  obj,
  until,
  type Obj,
  thingsResource as resource,
  quiet,
} from "../support/cache-fakes.js";
import { unreachableKube } from "../support/fake-api-server.js";

const kube = unreachableKube();
const stops: AbortController[] = [];
after(() => stops.forEach((s) => s.abort()));

function newStop(): AbortController {
  const stop = new AbortController();
  stops.push(stop);
  return stop;
}

/** A StatefulSet-like child in namespace ns with the given ownerReferences. */
function child(
  name: string,
  rv: string,
  ownerReferences: NonNullable<KubernetesObject["metadata"]>["ownerReferences"] = [],
  extra: Record<string, unknown> = {},
): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: "ns", resourceVersion: rv, ownerReferences },
    ...extra,
  };
}

const controllerRef = (name: string, apiVersion = "example.com/v1", kind = "Thing") => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  controller: true,
});

/** Takes every key waiting on the queue without blocking (each marked done). */
async function drain(queue: RateLimitingQueue<string>): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) {
    const { item } = await queue.get();
    if (item === undefined) break;
    keys.push(item);
    queue.done(item);
  }
  return keys.sort();
}

/** A controller for Thing whose factory already holds fake informers for Things and StatefulSets (so owns() uses the fake). */
function setup(childLw: FakeListerWatcher, primaryItems: Obj[] = []) {
  const informerFactory = new SharedInformerFactory();
  const primaryLw = new FakeListerWatcher().queueList(list(primaryItems, "10"));
  const informer = informerFactory.informerFor(
    "things",
    () => new SharedIndexInformer<Obj>({ listerWatcher: primaryLw }),
  );
  const childInformer = new SharedIndexInformer<Obj>({ listerWatcher: childLw });
  informerFactory.informerFor(informerKey("apps/v1", "statefulsets"), () => childInformer);
  const queue = newRateLimitingQueue<string>();
  const reconciled: string[] = [];
  const controller = new Controller<Obj>({
    name: "things",
    resource,
    kube,
    informerFactory,
    informer,
    queue,
    logger: quiet,
    reconcile: (ctx) => {
      reconciled.push(ctx.key);
      return Promise.resolve();
    },
  });
  return { controller, informerFactory, informer, childInformer, queue, reconciled };
}

test("controllerOwnerKey: the controller ownerReference of the owner's group and kind (version ignored), in the child's namespace", () => {
  assert.equal(controllerOwnerKey(child("s", "1", [controllerRef("a")]), resource), "ns/a");
  assert.equal(
    controllerOwnerKey(child("s", "1", [controllerRef("a", "example.com/v2")]), resource),
    "ns/a",
    "another version of the owner's group and kind still matches",
  );
  assert.equal(
    controllerOwnerKey(child("s", "1", [{ ...controllerRef("a"), controller: false }]), resource),
    undefined,
    "not the controller reference",
  );
  assert.equal(
    controllerOwnerKey(child("s", "1", [controllerRef("a", "other.io/v1")]), resource),
    undefined,
    "another group",
  );
  assert.equal(
    controllerOwnerKey(child("s", "1", [controllerRef("a", "example.com/v1", "Other")]), resource),
    undefined,
    "another kind",
  );
  assert.equal(controllerOwnerKey(child("s", "1"), resource), undefined, "no ownerReferences");
  assert.equal(
    controllerOwnerKey(child("s", "1", [controllerRef("pool")]), { ...resource, namespaced: false }),
    "pool",
    "a cluster-scoped owner's key has no namespace",
  );
});

test("owns: add, update and delete of a child enqueue its controller owner's key; unowned children and other kinds' children enqueue nothing", async () => {
  const childLw = new FakeListerWatcher().queueList(
    list(
      [
        child("web", "1", [controllerRef("a")]),
        child("loose", "2"),
        child("other", "3", [controllerRef("b", "example.com/v1", "Other")]),
        child("notctl", "4", [{ ...controllerRef("c"), controller: false }]),
      ],
      "5",
    ),
  );
  const { controller, informerFactory, childInformer, queue } = setup(childLw);
  const returned = controller.owns(builtinResources.statefulSets);
  assert.equal(returned, childInformer, "owns() returns the factory's informer for the owned kind");
  assert.equal(
    controller.owns(builtinResources.statefulSets),
    childInformer,
    "owning a kind twice adds no second handler",
  );
  const stop = newStop();
  informerFactory.start(stop.signal);
  assert.equal(await informerFactory.waitForCacheSync(stop.signal), true);
  await flush();
  assert.deepEqual(await drain(queue), ["ns/a"], "the initial list: only the child controlled by a Thing enqueues");

  await until(() => childLw.watches.length === 1, "watch started");
  childLw.watches[0]!.push({
    type: "MODIFIED",
    object: child("web", "6", [controllerRef("a")], { status: { readyReplicas: 1 } }),
  });
  childLw.watches[0]!.push({ type: "MODIFIED", object: child("loose", "7", [], { status: { readyReplicas: 1 } }) });
  await until(
    () => childInformer.getIndexer().getByKey("ns/loose")?.metadata?.resourceVersion === "7",
    "updates delivered",
  );
  await flush();
  assert.deepEqual(await drain(queue), ["ns/a"], "a status change of the owned child reconciles its owner");

  childLw.watches[0]!.push({ type: "MODIFIED", object: child("web", "8", [controllerRef("z")]) });
  await until(
    () => childInformer.getIndexer().getByKey("ns/web")?.metadata?.resourceVersion === "8",
    "owner change delivered",
  );
  await flush();
  assert.deepEqual(
    await drain(queue),
    ["ns/a", "ns/z"],
    "an update enqueues the owners of both the old and the new object",
  );

  childLw.watches[0]!.push(
    { type: "DELETED", object: child("web", "9", [controllerRef("z")]) },
    { type: "DELETED", object: child("other", "10", [controllerRef("b", "example.com/v1", "Other")]) },
  );
  await until(() => childInformer.getIndexer().getByKey("ns/other") === undefined, "deletes delivered");
  await flush();
  assert.deepEqual(await drain(queue), ["ns/z"], "deleting an owned child reconciles its owner (to recreate it)");
  stop.abort();
  await informerFactory.shutdown();
});

test("options.owns sets up the same watch as owns(), and owns() after run() throws", async () => {
  const childLw = new FakeListerWatcher().queueList(list([child("web", "1", [controllerRef("a")])], "5"));
  const informerFactory = new SharedInformerFactory();
  const informer = informerFactory.informerFor(
    "things",
    () =>
      new SharedIndexInformer<Obj>({
        listerWatcher: new FakeListerWatcher().queueList(list([obj("a", "1", { ns: "ns" })], "1")),
      }),
  );
  informerFactory.informerFor(
    informerKey("apps/v1", "statefulsets"),
    () => new SharedIndexInformer<Obj>({ listerWatcher: childLw }),
  );
  const queue = newRateLimitingQueue<string>();
  const reconciled: string[] = [];
  const controller = new Controller<Obj>({
    name: "things",
    resource,
    kube,
    informerFactory,
    informer,
    queue,
    logger: quiet,
    owns: [builtinResources.statefulSets],
    reconcile: (ctx) => {
      reconciled.push(ctx.key);
      return Promise.resolve();
    },
  });
  const stop = newStop();
  const running = controller.run(stop.signal);
  assert.throws(() => controller.owns(builtinResources.services), /before run\(\)/);
  // The primary informer has no event handler here: only the owned child's add can have queued its owner.
  await until(() => reconciled.length === 1, "the owner reconciled");
  assert.deepEqual(reconciled, ["ns/a"]);
  stop.abort();
  await running;
});

test("workers start only after the owned kind's informer has synced too", async () => {
  let releaseList: ((l: ReturnType<typeof list>) => void) | undefined;
  const childLw = new FakeListerWatcher().queueList(() => new Promise((resolve) => (releaseList = resolve)));
  const { controller, informer, childInformer, queue, reconciled } = setup(childLw, [obj("a", "1", { ns: "ns" })]);
  controller.owns(builtinResources.statefulSets);
  const getsSynced: boolean[] = [];
  const get = queue.get.bind(queue);
  queue.get = () => {
    getsSynced.push(childInformer.hasSynced());
    return get();
  };
  const stop = newStop();
  const running = controller.run(stop.signal);
  await until(() => informer.hasSynced() && releaseList !== undefined, "primary synced, child LIST pending");
  await flush();
  assert.deepEqual(getsSynced, [], "no worker runs while the owned kind's first LIST is pending");
  assert.equal(controller.hasSynced(), false);
  releaseList!(list([child("web", "1", [controllerRef("a")])], "5"));
  await until(() => reconciled.length === 1, "the owner is reconciled after the child's add");
  assert.deepEqual(reconciled, ["ns/a"]);
  assert.ok(getsSynced.length > 0 && getsSynced.every(Boolean), "every get happened after the owned informer synced");
  assert.equal(controller.hasSynced(), true);
  stop.abort();
  await running;
});

/** A Thing with a generation, plus extra top-level fields (spec, status) and metadata. */
function thing(rv: string, generation: number, extra: { spec?: object; status?: object; metadata?: object } = {}): Obj {
  const { metadata, ...rest } = extra;
  return {
    apiVersion: "example.com/v1",
    kind: "Thing",
    metadata: { name: "a", namespace: "ns", resourceVersion: rv, generation, ...metadata },
    ...rest,
  };
}

test("generationChangedOnly: a status-only update is not enqueued, a spec change (new generation), adds, deletes and finalizer changes are", async () => {
  const lw = new FakeListerWatcher().queueList(list([thing("1", 1)], "5"));
  const informer = new SharedIndexInformer<Obj>({ listerWatcher: lw });
  const queue = newRateLimitingQueue<string>();
  informer.addEventHandler(enqueueRequestForObject(queue, primaryPredicates({ generationChangedOnly: true })));
  const stop = newStop();
  const running = informer.run(stop.signal);
  await until(() => informer.hasSynced(), "synced");
  await flush();
  assert.deepEqual(await drain(queue), ["ns/a"], "adds always enqueue");
  await until(() => lw.watches.length === 1, "watch started");
  const delivered = (rv: string) =>
    until(() => informer.getIndexer().getByKey("ns/a")?.metadata?.resourceVersion === rv, `rv ${rv} delivered`);

  lw.watches[0]!.push({ type: "MODIFIED", object: thing("6", 1, { status: { phase: "Ready" } }) });
  await delivered("6");
  await flush();
  assert.deepEqual(await drain(queue), [], "a status-only write (same generation) does not enqueue");

  lw.watches[0]!.push({ type: "MODIFIED", object: thing("7", 2, { spec: { n: 3 }, status: { phase: "Ready" } }) });
  await delivered("7");
  await flush();
  assert.deepEqual(await drain(queue), ["ns/a"], "a spec change bumps the generation and enqueues");

  lw.watches[0]!.push({
    type: "MODIFIED",
    object: thing("8", 2, { metadata: { finalizers: ["example.com/finalizer"] } }),
  });
  await delivered("8");
  await flush();
  assert.deepEqual(
    await drain(queue),
    ["ns/a"],
    "the runtime's own finalizer add enqueues (the controller relies on it)",
  );

  lw.watches[0]!.push({ type: "DELETED", object: thing("9", 2) });
  await until(() => informer.getIndexer().getByKey("ns/a") === undefined, "delete delivered");
  await flush();
  assert.deepEqual(await drain(queue), ["ns/a"], "deletes always enqueue");
  stop.abort();
  await running;
});

test("by default every update enqueues, and generationChangedPredicate alone passes only generation changes", () => {
  assert.deepEqual(primaryPredicates({}), []);
  const a = thing("1", 1);
  const b = thing("2", 1, { status: { phase: "Ready" } });
  const c = thing("3", 2);
  assert.equal(generationChangedPredicate.update!(a, b), false);
  assert.equal(generationChangedPredicate.update!(a, c), true);
  const keys: string[] = [];
  const add = (k: string) => void keys.push(k);
  const handler = enqueueRequestForObject({ add, addAfter: add, addRateLimited: add });
  void handler.updateFunc!(a, b);
  assert.deepEqual(keys, ["ns/a"]);
});
