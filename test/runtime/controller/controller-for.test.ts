// controllerFor: the wiring a generated new<Kind>Controller is one call of (informer, queue, workers, typed hooks).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { builtinResources, controllerFor, type ControllerHooks, type ReconcileContext } from "@crdgen/runtime";
import { SharedInformerFactory, informerKey, type Lister } from "@crdgen/runtime/cache";
import { FakeCluster } from "@crdgen/runtime/testing";
import { obj, until, type Obj, quiet } from "../support/cache-fakes.js";

const things = {
  group: "example.com",
  version: "v1",
  plural: "things",
  kind: "Thing",
  namespaced: true,
  apiVersion: "example.com/v1",
} as const;
const stops: AbortController[] = [];
after(() => stops.forEach((s) => s.abort()));

interface ThingContext extends ReconcileContext {
  lister: Lister<Obj>;
  tag: string;
}

function setup(hooks: ControllerHooks<Obj, ThingContext>, options: Parameters<typeof controllerFor>[3] = {}) {
  const cluster = new FakeCluster();
  cluster.register(things);
  const kube = cluster.kubeClient();
  const informerFactory = new SharedInformerFactory();
  const controller = controllerFor(kube, things, hooks, { logger: quiet, informerFactory, ...options }, (informer) => ({
    lister: informerFactory.forResource<Obj>(kube, things).lister as Lister<Obj>,
    tag: informer === informerFactory.forResource<Obj>(kube, things).informer ? "primary informer" : "another informer",
  }));
  const stop = new AbortController();
  stops.push(stop);
  return { cluster, kube, informerFactory, controller, run: () => controller.run(stop.signal), stop };
}

const thing = (name: string): Obj => obj(name, "", { ns: "ns" });
const done = () => Promise.resolve();

test("controllerFor names the controller <plural>.<group> unless options.name is given, and uses the factory's informer for the resource", () => {
  const { controller, informerFactory, kube } = setup({ reconcile: done });
  assert.equal(controller.name, "things.example.com");
  assert.equal(controller.informer, informerFactory.forResource<Obj>(kube, things).informer);
  assert.equal(setup({ reconcile: done }, { name: "mine" }).controller.name, "mine");
});

test("controllerFor calls reconcile with the context extendContext completes (the primary informer passed to it)", async () => {
  const seen: ThingContext[] = [];
  const { cluster, run, stop } = setup({
    reconcile: (ctx) => {
      seen.push(ctx);
      return done();
    },
  });
  cluster.create(things, "ns", thing("a"));
  const running = run();
  await until(() => seen.length > 0, "a reconcile");
  stop.abort();
  await running;
  const ctx = seen[0]!;
  assert.equal(ctx.key, "ns/a");
  assert.equal(ctx.tag, "primary informer");
  assert.equal(ctx.lister.get("ns", "a")?.metadata?.name, "a", "the lister reads the primary informer's cache");
  assert.equal(typeof ctx.recorder.event, "function", "the runtime's part of the context is there too");
  assert.equal(typeof ctx.children.apply, "function");
});

test("controllerFor wires finalize: the finalizer is added, and finalize gets the extended context once the object is deleted", async () => {
  const finalized: ThingContext[] = [];
  const { cluster, run, stop } = setup({
    reconcile: done,
    finalize: (ctx) => {
      finalized.push(ctx);
      return done();
    },
  });
  cluster.create(things, "ns", thing("a"));
  const running = run();
  await until(
    () => (cluster.get(things, "ns", "a").metadata.finalizers ?? []).includes("example.com/finalizer"),
    "the finalizer added",
  );
  cluster.delete(things, "ns", "a");
  await until(() => finalized.length > 0, "finalize called");
  await until(() => cluster.list(things, "ns").items.length === 0, "the object gone once the finalizer is removed");
  stop.abort();
  await running;
  assert.equal(finalized[0]!.tag, "primary informer");
});

test("controllerFor merges the hooks' owns and watches with the options' (one informer each, in the controller's namespace)", () => {
  const watch = { resource: builtinResources.secrets, labelSelector: "app=db", mapToKeys: () => [] };
  const { informerFactory } = setup(
    { reconcile: done, owns: [builtinResources.statefulSets], watches: [watch] },
    {
      owns: [builtinResources.services],
      watches: [{ ...watch, resource: builtinResources.configMaps }],
      namespace: "ns",
    },
  );
  const existing = (apiVersion: string, plural: string, scope: object) =>
    informerFactory.informerFor(informerKey(apiVersion, plural, scope), () => assert.fail(`no informer for ${plural}`));
  existing("apps/v1", "statefulsets", { namespace: "ns" });
  existing("v1", "services", { namespace: "ns" });
  existing("v1", "secrets", { namespace: "ns", labelSelector: "app=db" });
  existing("v1", "configmaps", { namespace: "ns", labelSelector: "app=db" });
  existing("example.com/v1", "things", { namespace: "ns" });
});

/**
 * Ten objects exist before start; the first reconcile (t0) holds the only worker until t9 has been changed, then the
 * order of the remaining reconciles shows whether the live update overtook the initial list's keys.
 */
async function orderAfterLiveUpdate(usePriorityQueue: boolean): Promise<string[]> {
  const names = Array.from({ length: 10 }, (_, i) => `t${i}`);
  const seen: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { cluster, controller, run, stop } = setup(
    {
      reconcile: async (ctx) => {
        seen.push(ctx.name);
        if (seen.length === 1) await gate;
      },
    },
    { usePriorityQueue, workers: 1 },
  );
  for (const name of names) cluster.create(things, "ns", thing(name));
  // Count the keys the informer's handler puts on the queue (through addWithOpts on a priority queue).
  let queued = 0;
  const queue = controller.queue as typeof controller.queue & {
    addWithOpts?: (opts: object, ...keys: string[]) => void;
  };
  const method = queue.addWithOpts ? "addWithOpts" : "add";
  const add = (queue[method] as (...args: unknown[]) => void).bind(queue);
  Object.assign(queue, {
    [method]: (...args: unknown[]) => {
      queued++;
      add(...args);
    },
  });
  const running = run();
  await until(() => seen.length === 1 && queued === names.length, "the initial list queued, t0 being reconciled");
  cluster.update(things, "ns", { ...cluster.get(things, "ns", "t9"), spec: { n: 1 } });
  await until(() => queued === names.length + 1, "the update of t9 queued");
  release();
  await until(() => seen.length === names.length, "every key reconciled");
  stop.abort();
  await running;
  return seen;
}

test("usePriorityQueue: an update arriving while initial-list keys are still queued is reconciled before them", async () => {
  assert.deepEqual(await orderAfterLiveUpdate(true), ["t0", "t9", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"]);
});

test("without usePriorityQueue the same update waits behind the initial list's keys", async () => {
  assert.deepEqual(await orderAfterLiveUpdate(false), ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"]);
});
