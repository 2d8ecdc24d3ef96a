// Controller unit tests: the result rules of processNextWorkItem, cache sync before workers, and the finalizer helper.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import {
  Controller,
  TerminalError,
  type ControllerHooks,
  type ReconcileContext,
  type KubeClient,
} from "@crdgen/runtime";
import { HttpKubeClient } from "@crdgen/runtime/client";
import { FakeClock } from "@crdgen/runtime/testing";
import { SharedIndexInformer, SharedInformerFactory } from "@crdgen/runtime/cache";
import { newRateLimitingQueue, type RateLimitingQueue } from "@crdgen/runtime/workqueue";
import {
  FakeListerWatcher,
  list,
  obj,
  until,
  type Obj,
  thingsResource as resource,
  quiet,
} from "../support/cache-fakes.js";
import { makeKubeConfig, startFakeApi, unreachableKube } from "../support/fake-api-server.js";

// Informers keep the process alive until aborted: stop every one of them even when an assertion fails mid-test.
const stops: AbortController[] = [];
after(() => stops.forEach((s) => s.abort()));

/** A queue that records the calls the controller makes on it. */
function recordingQueue(clock = new FakeClock()): { queue: RateLimitingQueue<string>; calls: string[] } {
  const queue = newRateLimitingQueue<string>({ clock });
  const calls: string[] = [];
  for (const method of ["forget", "done", "addRateLimited", "addAfter"] as const) {
    const original = queue[method].bind(queue) as (...args: unknown[]) => void;
    (queue as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      calls.push(`${method}(${args.join(",")})`);
      original(...args);
    };
  }
  return { queue, calls };
}

async function controllerWith(
  items: Obj[],
  reconcile: ControllerHooks<Obj>["reconcile"],
  extra: { finalize?: (ctx: ReconcileContext, o: Obj) => Promise<void>; kube?: KubeClient } = {},
) {
  const lw = new FakeListerWatcher().queueList(list(items, "10"));
  const informer = new SharedIndexInformer<Obj>({ listerWatcher: lw });
  const informerFactory = new SharedInformerFactory();
  informerFactory.informerFor("things", () => informer);
  const { queue, calls } = recordingQueue();
  const stop = new AbortController();
  stops.push(stop);
  const kube = extra.kube ?? unreachableKube();
  const controller = new Controller<Obj>({
    name: "things",
    resource,
    kube,
    informerFactory,
    informer,
    queue,
    reconcile,
    logger: quiet,
    finalize: extra.finalize,
  });
  void informer.run(stop.signal);
  await until(() => informer.hasSynced(), "informer synced");
  return { controller, queue, calls, stop, informer };
}

test("a successful reconcile gets the cached object and forgets the key, then marks it done", async () => {
  const seen: string[] = [];
  const { controller, queue, calls, stop } = await controllerWith([obj("a", "1", { ns: "ns", n: 7 })], (ctx, o) => {
    seen.push(`${ctx.key} ${ctx.namespace} ${ctx.name} n=${o.spec?.n}`);
    return Promise.resolve();
  });
  queue.add("ns/a");
  assert.equal(await controller.processNextWorkItem(stop.signal), true);
  assert.deepEqual(seen, ["ns/a ns a n=7"]);
  assert.deepEqual(calls, ["forget(ns/a)", "done(ns/a)"]);
  stop.abort();
});

test("requeueAfter forgets the key and adds it after the delay", async () => {
  const { controller, queue, calls, stop } = await controllerWith([obj("a", "1", { ns: "ns" })], () =>
    Promise.resolve({ requeueAfter: 30_000 }),
  );
  queue.add("ns/a");
  await controller.processNextWorkItem(stop.signal);
  assert.deepEqual(calls, ["forget(ns/a)", "addAfter(ns/a,30000)", "done(ns/a)"]);
  assert.equal(queue.len(), 0, "the key waits for its delay instead of running again at once");
  stop.abort();
});

test("a thrown error requeues the key rate-limited and other keys keep flowing", async () => {
  const seen: string[] = [];
  const { controller, queue, calls, stop } = await controllerWith(
    [obj("bad", "1", { ns: "ns" }), obj("good", "2", { ns: "ns" })],
    (ctx) => {
      seen.push(ctx.name);
      return ctx.name === "bad" ? Promise.reject(new Error("boom")) : Promise.resolve();
    },
  );
  queue.add("ns/bad");
  queue.add("ns/good");
  await controller.processNextWorkItem(stop.signal);
  await controller.processNextWorkItem(stop.signal);
  assert.deepEqual(seen, ["bad", "good"]);
  assert.deepEqual(calls, [
    "addRateLimited(ns/bad)",
    "addAfter(ns/bad,5)",
    "done(ns/bad)",
    "forget(ns/good)",
    "done(ns/good)",
  ]);
  assert.equal(queue.numRequeues("ns/bad"), 1);
  stop.abort();
});

// Port of kubernetes-sigs/controller-runtime pkg/internal/controller/controller_test.go, Describe("controller") /
// "Processing queue items from a Controller" / It("should not requeue a Request if there is a terminal error"):
// AddedRatelimited is empty and the queue is empty afterwards. controller.go's reconcileHandler neither requeues nor
// calls Queue.Forget on a terminal error, so the recorded calls show no forget either.
test("a TerminalError is neither requeued nor forgotten (controller-runtime: should not requeue a Request if there is a terminal error)", async () => {
  const { controller, queue, calls, stop } = await controllerWith([obj("a", "1", { ns: "ns" })], () =>
    Promise.reject(new TerminalError("expected error: reconcile")),
  );
  queue.add("ns/a");
  await controller.processNextWorkItem(stop.signal);
  assert.deepEqual(
    calls.filter((c) => c.startsWith("addRateLimited")),
    [],
  );
  assert.equal(queue.len(), 0);
  assert.deepEqual(calls, ["done(ns/a)"]);
  stop.abort();
});

// Not an upstream case of its own: the same rule of controller.go (a terminal error skips both AddRateLimited and
// Forget) seen through the rate limiter, the way controller_test.go's It("should not reset backoff until there's a
// non-error result") reads NumRequeues: a terminal error after an ordinary failure leaves the backoff where it was.
test("a TerminalError does not reset the key's backoff: NumRequeues stays where earlier failures put it", async () => {
  let attempt = 0;
  const { controller, queue, calls, stop } = await controllerWith([obj("a", "1", { ns: "ns" })], () => {
    attempt++;
    return Promise.reject(attempt === 1 ? new Error("something's wrong") : new TerminalError("spec is invalid"));
  });
  queue.add("ns/a");
  await controller.processNextWorkItem(stop.signal); // ordinary error: requeued rate-limited (waits 5 ms)
  assert.equal(queue.numRequeues("ns/a"), 1);
  queue.add("ns/a"); // an event for the key arrives before its backoff has passed
  await controller.processNextWorkItem(stop.signal); // terminal error
  assert.equal(attempt, 2);
  assert.deepEqual(calls, ["addRateLimited(ns/a)", "addAfter(ns/a,5)", "done(ns/a)", "done(ns/a)"]);
  assert.equal(queue.numRequeues("ns/a"), 1);
  stop.abort();
});

test("a key whose object is gone from the cache is not reconciled", async () => {
  let calls = 0;
  const { controller, queue, stop } = await controllerWith([], () => {
    calls++;
    return Promise.resolve();
  });
  queue.add("ns/deleted");
  await controller.processNextWorkItem(stop.signal);
  assert.equal(calls, 0);
  stop.abort();
});

test("one key is never reconciled by two workers at once; a re-add during reconcile runs after it", async () => {
  let running = 0;
  let maxRunning = 0;
  let runs = 0;
  let release!: () => void;
  const { controller, queue, stop } = await controllerWith([obj("a", "1", { ns: "ns" })], async () => {
    running++;
    runs++;
    maxRunning = Math.max(maxRunning, running);
    if (runs === 1) await new Promise<void>((r) => (release = r));
    running--;
  });
  queue.add("ns/a");
  const first = controller.processNextWorkItem(stop.signal);
  await until(() => runs === 1, "first reconcile started");
  queue.add("ns/a"); // the object changed while it was being reconciled
  const second = controller.processNextWorkItem(stop.signal);
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 1, "the second worker waits: the key is being processed");
  release();
  await Promise.all([first, second]);
  assert.equal(runs, 2);
  assert.equal(maxRunning, 1);
  stop.abort();
});

test("run starts workers only after the cache has synced, then reconciles what the first LIST delivered", async () => {
  let releaseList: ((l: ReturnType<typeof list>) => void) | undefined;
  const lw = new FakeListerWatcher().queueList(() => new Promise((resolve) => (releaseList = resolve)));
  const informer = new SharedIndexInformer<Obj>({ listerWatcher: lw });
  const informerFactory = new SharedInformerFactory();
  informerFactory.informerFor("things", () => informer);
  const queue = newRateLimitingQueue<string>();
  // Record, for every queue.get() a worker makes, whether the cache had synced by then.
  const getsSynced: boolean[] = [];
  const get = queue.get.bind(queue);
  queue.get = () => {
    getsSynced.push(informer.hasSynced());
    return get();
  };
  const reconciled: string[] = [];
  informer.addEventHandler({ addFunc: (o) => queue.add(`${o.metadata!.namespace}/${o.metadata!.name}`) });
  const kube = unreachableKube();
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
  const stop = new AbortController();
  stops.push(stop);
  const running = controller.run(stop.signal);
  await until(() => releaseList !== undefined, "the first LIST was issued");
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(getsSynced, [], "no worker asks the queue for work while the first LIST is pending");
  releaseList!(list([obj("a", "1", { ns: "ns" })], "5"));
  await until(() => reconciled.length === 1, "the listed object is reconciled");
  assert.deepEqual(reconciled, ["ns/a"]);
  assert.ok(getsSynced.length > 0 && getsSynced.every(Boolean), "every get happened after the sync");
  stop.abort();
  await running;
});

test("with a finalize hook, the finalizer is added by a JSON patch guarded by a test op before the first reconcile", async () => {
  const api = await startFakeApi();
  try {
    let reconciled = 0;
    const kube = HttpKubeClient.fromKubeConfig(makeKubeConfig(api.url));
    const { controller, queue, stop } = await controllerWith(
      [obj("a", "7", { ns: "ns" })],
      () => {
        reconciled++;
        return Promise.resolve();
      },
      { finalize: () => Promise.resolve(), kube },
    );
    queue.add("ns/a");
    await controller.processNextWorkItem(stop.signal);
    assert.equal(reconciled, 0, "reconcile waits for the finalizer to be on the object");
    const patch = api.requests.at(-1)!;
    assert.equal(patch.method, "PATCH");
    assert.equal(patch.path, "/apis/example.com/v1/namespaces/ns/things/a");
    assert.equal(patch.headers["content-type"], "application/json-patch+json");
    assert.deepEqual(JSON.parse(patch.body), [
      { op: "test", path: "/metadata/resourceVersion", value: "7" },
      { op: "add", path: "/metadata/finalizers", value: ["example.com/finalizer"] },
    ]);
    stop.abort();
  } finally {
    await api.close();
  }
});

test("a deleted object with the finalizer runs finalize, then the finalizer is removed", async () => {
  const api = await startFakeApi();
  try {
    const order: string[] = [];
    const kube = HttpKubeClient.fromKubeConfig(makeKubeConfig(api.url));
    const dying = obj("a", "8", { ns: "ns" });
    Object.assign(dying.metadata!, { deletionTimestamp: new Date(), finalizers: ["other", "example.com/finalizer"] });
    const { controller, queue, stop } = await controllerWith(
      [dying],
      () => {
        order.push("reconcile");
        return Promise.resolve();
      },
      {
        kube,
        finalize: () => {
          order.push(`finalize (requests so far: ${api.requests.length})`);
          return Promise.resolve();
        },
      },
    );
    queue.add("ns/a");
    await controller.processNextWorkItem(stop.signal);
    assert.deepEqual(order, ["finalize (requests so far: 0)"]);
    assert.deepEqual(JSON.parse(api.requests.at(-1)!.body), [
      { op: "test", path: "/metadata/finalizers/1", value: "example.com/finalizer" },
      { op: "remove", path: "/metadata/finalizers/1" },
    ]);
    stop.abort();
  } finally {
    await api.close();
  }
});

test("workers yield to the event loop between keys: a timer runs while a backlog of CPU-bound reconciles drains", async () => {
  const items = Array.from({ length: 50 }, (_, i) => obj(`o${i}`, String(i + 1), { ns: "ns" }));
  const order: string[] = [];
  const { controller, queue, stop } = await controllerWith(items, (ctx) => {
    // A reconcile that never waits on I/O: it resolves without giving timers or sockets a turn.
    order.push(ctx.name);
    return Promise.resolve();
  });
  for (const o of items) queue.add(`ns/${o.metadata?.name ?? ""}`);
  setTimeout(() => order.push("timer"), 0);
  const running = controller.run(stop.signal);
  await until(() => order.length === items.length + 1, "every key and the timer");
  stop.abort();
  await running;
  // Without the yield the timer would come only after all 50 reconciles.
  assert.ok(order.indexOf("timer") < items.length, `timer at ${order.indexOf("timer")} of ${order.length}`);
});
