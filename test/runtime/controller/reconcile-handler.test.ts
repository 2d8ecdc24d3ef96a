// controller-runtime's result rules, panic recovery, reconciliation deadline and start-once rule, ported from
// kubernetes-sigs/controller-runtime pkg/internal/controller/controller_test.go (Describe "controller"). Go's fake
// reconciler takes its results from a channel; here a script of outcomes, one per reconcile. Go's workers run on
// their own; here the test turns them (processNextWorkItem) and steps a FakeClock past each backoff.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Controller, TerminalError, type ReconcileContext, type ReconcileResult } from "@crdgen/runtime";
import { FakeClock } from "@crdgen/runtime/testing";
import { Registry } from "@crdgen/runtime/metrics";
import { SharedIndexInformer, SharedInformerFactory } from "@crdgen/runtime/cache";
import { newRateLimitingQueue, type GetResult, type RateLimitingQueue } from "@crdgen/runtime/workqueue";
import {
  FakeListerWatcher,
  list,
  obj,
  until,
  type Obj,
  thingsResource as resource,
  quiet,
} from "../support/cache-fakes.js";
import { unreachableKube } from "../support/fake-api-server.js";

const stops: AbortController[] = [];
after(() => stops.forEach((s) => s.abort()));

/** Go's reconcile.Request{Namespace: "foo", Name: "bar"} as a queue key. */
const request = "foo/bar";

/**
 * controller_test.go's DelegatingQueue: counts the controller's calls (Add +1 and Forget -1 as "trying", AddAfter,
 * AddRateLimited) and delegates to a real queue, whose own internal re-adds are not counted.
 */
class DelegatingQueue implements RateLimitingQueue<string> {
  private trying = 0;
  private addAfterCount = 0;
  private addRateLimitedCount = 0;
  constructor(private readonly inner: RateLimitingQueue<string>) {}
  counts(): { trying: number; addAfter: number; addRateLimited: number } {
    return { trying: this.trying, addAfter: this.addAfterCount, addRateLimited: this.addRateLimitedCount };
  }
  add(item: string): void {
    this.trying++;
    this.inner.add(item);
  }
  forget(item: string): void {
    this.trying--;
    this.inner.forget(item);
  }
  addAfter(item: string, delayMs: number): void {
    this.addAfterCount++;
    this.inner.addAfter(item, delayMs);
  }
  addRateLimited(item: string): void {
    this.addRateLimitedCount++;
    this.inner.addRateLimited(item);
  }
  numRequeues(item: string): number {
    return this.inner.numRequeues(item);
  }
  len(): number {
    return this.inner.len();
  }
  get(): Promise<GetResult<string>> {
    return this.inner.get();
  }
  done(item: string): void {
    this.inner.done(item);
  }
  shutDown(): void {
    this.inner.shutDown();
  }
  shutDownWithDrain(): Promise<void> {
    return this.inner.shutDownWithDrain();
  }
  shuttingDown(): boolean {
    return this.inner.shuttingDown();
  }
}

type Hook = (ctx: ReconcileContext, o: Obj) => Promise<ReconcileResult | undefined>;

interface Setup {
  reconcile: Hook;
  recoverPanic?: boolean;
  reconciliationTimeoutMs?: number;
}

async function newController(setup: Setup) {
  const clock = new FakeClock();
  const queue = new DelegatingQueue(newRateLimitingQueue<string>({ clock }));
  const registry = new Registry();
  const informer = new SharedIndexInformer<Obj>({
    logger: quiet,
    listerWatcher: new FakeListerWatcher().queueList(list([obj("bar", "1", { ns: "foo" })], "10")),
  });
  const informerFactory = new SharedInformerFactory();
  informerFactory.informerFor("things", () => informer);
  const stop = new AbortController();
  stops.push(stop);
  const controller = new Controller<Obj>({
    name: "testcontroller",
    resource,
    kube: unreachableKube(),
    informerFactory,
    informer,
    queue,
    logger: quiet,
    metricsRegistry: registry,
    reconcile: setup.reconcile,
    recoverPanic: setup.recoverPanic,
    reconciliationTimeoutMs: setup.reconciliationTimeoutMs,
  });
  void informer.run(stop.signal);
  await until(() => informer.hasSynced(), "informer synced");
  const metric = async (name: string, labels: Record<string, string> = {}, part = name) => {
    const { values } = await registry.getSingleMetric(name)!.get();
    const want = { controller: "testcontroller", ...labels };
    return values.find(
      (v) =>
        ((v as { metricName?: string }).metricName ?? name) === part &&
        Object.entries(want).every(([k, w]) => String((v.labels as Record<string, unknown>)[k]) === w),
    )?.value;
  };
  return { controller, queue, clock, stop, signal: stop.signal, metric };
}

/** A reconcile hook that returns (or throws) the scripted outcomes in turn, as Go's fakeReconciler.AddResult. */
function scripted(...outcomes: Array<ReconcileResult | Error>): Hook & { calls: string[] } {
  const calls: string[] = [];
  const hook = (ctx: ReconcileContext) => {
    calls.push(ctx.key);
    const next = outcomes.shift();
    if (next === undefined) throw new Error("the reconciler was called more often than scripted");
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  return Object.assign(hook, { calls });
}

/** A hook that waits for its signal and fails with the signal's reason, as Go's `<-ctx.Done(); return ctx.Err()`. */
const waitForAbort: Hook = (ctx) =>
  new Promise((_, reject) => {
    const fail = () => reject(ctx.signal.reason as Error);
    if (ctx.signal.aborted) fail();
    else ctx.signal.addEventListener("abort", fail, { once: true });
  });

/** A hook that dereferences a nil result, as Go's `var res *reconcile.Result; return *res, nil`. */
const nilDereference: Hook = () => {
  const res = undefined as unknown as ReconcileResult;
  return Promise.resolve({ requeue: res.requeue });
};

// --- Describe("Reconciler") ---------------------------------------------------------------------------------------

// controller_test.go It("should call the Reconciler function")
test("controller-runtime: should call the Reconciler function", async () => {
  const { controller, signal } = await newController({ reconcile: () => Promise.resolve({ requeue: true }) });
  assert.deepEqual(await controller.reconcile(request, signal), { requeue: true });
});

// controller_test.go It("should not recover panic if RecoverPanic is false"): the panic itself comes out.
test("controller-runtime: should not recover panic if RecoverPanic is false", async () => {
  const { controller, signal } = await newController({ reconcile: nilDereference, recoverPanic: false });
  await assert.rejects(controller.reconcile(request, signal), (error: unknown) => {
    assert.ok(error instanceof TypeError, "the hook's own TypeError, not a recovered copy");
    assert.doesNotMatch(error.message, /\[recovered\]/);
    return true;
  });
});

// controller_test.go It("should recover panic if RecoverPanic is true by default")
test("controller-runtime: should recover panic if RecoverPanic is true by default", async () => {
  const { controller, signal } = await newController({ reconcile: nilDereference });
  await assert.rejects(controller.reconcile(request, signal), /\[recovered\]/);
});

// controller_test.go It("should recover panic if RecoverPanic is true")
test("controller-runtime: should recover panic if RecoverPanic is true", async () => {
  const { controller, signal } = await newController({ reconcile: nilDereference, recoverPanic: true });
  await assert.rejects(controller.reconcile(request, signal), /\[recovered\]/);
});

// controller_test.go It("should time out if ReconciliationTimeout is set"): Go's 1 ns is the timer's 1 ms here; the
// reconciler waits for its context and returns ctx.Err(), context.DeadlineExceeded: a TimeoutError here.
test("controller-runtime: should time out if ReconciliationTimeout is set", async () => {
  const { controller, signal } = await newController({
    reconciliationTimeoutMs: 1,
    reconcile: waitForAbort,
  });
  await assert.rejects(controller.reconcile(request, signal), (error: unknown) => {
    assert.ok(error instanceof DOMException);
    assert.equal(error.name, "TimeoutError");
    assert.equal(error.message, "reconciliation timeout");
    return true;
  });
});

// controller_test.go It("should not configure a timeout if ReconciliationTimeout is zero"): an AbortSignal has no
// Deadline() to ask, so the port checks that no per-reconcile signal (and so no timer) stands between the
// controller's signal and the hook.
test("controller-runtime: should not configure a timeout if ReconciliationTimeout is zero", async () => {
  let seen: AbortSignal | undefined;
  const { controller, signal } = await newController({
    reconcile: (ctx) => {
      seen = ctx.signal;
      return Promise.resolve(undefined);
    },
  });
  await controller.reconcile(request, signal);
  assert.equal(seen, signal);
});

// --- Describe("Start") --------------------------------------------------------------------------------------------

// controller_test.go It("should return an error if it gets started more than once"): a cancelled context so that
// the first Start returns at once.
test("controller-runtime: should return an error if it gets started more than once", async () => {
  const { controller } = await newController({ reconcile: scripted() });
  const cancelled = AbortSignal.abort();
  await controller.run(cancelled);
  await assert.rejects(controller.run(cancelled), {
    message:
      "controller was started more than once. This is likely to be caused by being added to a manager multiple times",
  });
});

// --- Describe("Processing queue items from a Controller") ----------------------------------------------------------

// controller_test.go It("should not reset backoff until there's a non-error result")
test("controller-runtime: should not reset backoff until there's a non-error result", async () => {
  const { controller, queue, clock, signal } = await newController({
    reconcile: scripted(new Error("something's wrong"), new Error("another thing's wrong"), {}),
  });
  queue.add(request);
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 0 });

  await controller.processNextWorkItem(signal); // returns an error
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 1 });

  clock.step(5); // the first backoff
  await controller.processNextWorkItem(signal); // a second error
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 2 });

  clock.step(10); // the second backoff, twice the first
  await controller.processNextWorkItem(signal); // finally no error
  assert.deepEqual(queue.counts(), { trying: 0, addAfter: 0, addRateLimited: 2 });

  assert.equal(queue.len(), 0);
  assert.equal(queue.numRequeues(request), 0);
});

// controller_test.go It("should requeue a Request with rate limiting if the Result sets Requeue:true and continue
// processing items")
test("controller-runtime: should requeue a Request with rate limiting if the Result sets Requeue:true and continue processing items", async () => {
  const { controller, queue, clock, signal } = await newController({
    reconcile: scripted({ requeue: true }, { requeue: false }),
  });
  queue.add(request);
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 0 });

  await controller.processNextWorkItem(signal); // asks for a requeue
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 1 });
  assert.equal(queue.len(), 0, "the requeue waits for the rate limiter");

  clock.step(5);
  assert.equal(queue.len(), 1);
  await controller.processNextWorkItem(signal); // a second time, without asking for a requeue
  assert.deepEqual(queue.counts(), { trying: 0, addAfter: 0, addRateLimited: 1 });

  assert.equal(queue.len(), 0);
  assert.equal(queue.numRequeues(request), 0);
});

// controller_test.go It("should requeue a Request after a duration (but not rate-limitted) if the Result sets
// RequeueAfter (regardless of Requeue)")
test("controller-runtime: should requeue a Request after a duration (but not rate-limited) if the Result sets RequeueAfter (regardless of Requeue)", async () => {
  const { controller, queue, clock, signal } = await newController({
    reconcile: scripted({ requeueAfter: 100, requeue: true }, { requeueAfter: 100 }),
  });
  queue.add(request);
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 0 });

  await controller.processNextWorkItem(signal); // asks for requeue and requeueAfter
  assert.deepEqual(queue.counts(), { trying: 0, addAfter: 1, addRateLimited: 0 });

  clock.step(100);
  await controller.processNextWorkItem(signal); // asks for requeueAfter only
  // Go's comment: "we don't increment the count in addafter", so forget takes it below zero.
  assert.deepEqual(queue.counts(), { trying: -1, addAfter: 2, addRateLimited: 0 });

  assert.equal(queue.len(), 0);
  assert.equal(queue.numRequeues(request), 0);
});

// controller_test.go It("should perform error behavior if error is not nil, regardless of RequeueAfter"). Go's
// reconciler returns a Result and an error at once; a hook either returns or throws, so the first reconcile is the
// throw alone (nothing of a result can reach the queue), then the RequeueAfter-only reconcile as in Go.
test("controller-runtime: should perform error behavior if error is not nil, regardless of RequeueAfter", async () => {
  const { controller, queue, clock, signal } = await newController({
    reconcile: scripted(new Error("expected error: reconcile"), { requeueAfter: 100 }),
  });
  queue.add(request);
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 0 });

  await controller.processNextWorkItem(signal);
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 1 });

  clock.step(5);
  await controller.processNextWorkItem(signal);
  assert.deepEqual(queue.counts(), { trying: 0, addAfter: 1, addRateLimited: 1 });

  assert.equal(queue.len(), 0);
  assert.equal(queue.numRequeues(request), 0);
});

// controller_test.go Context("prometheus metric reconcile_total"): each result label starts at 0 (Go resets the vector
// first; a fresh registry here) and counts one reconcile of its kind. Go checks label "retry" before the requeue case
// and "retry_after" before the requeueAfter case (labels it never sets); the port checks the labels it then reads.
for (const [it, outcome, label] of [
  ["should get updated on successful reconciliation", {}, "success"],
  ["should get updated on reconcile errors", new Error("expected error: reconcile"), "error"],
  ["should get updated when reconcile returns with retry enabled", { requeue: true }, "requeue"],
  [
    "should get updated when reconcile returns with retryAfter enabled",
    { requeueAfter: 5 * 3600_000 },
    "requeue_after",
  ],
] as const) {
  test(`controller-runtime: prometheus metric reconcile_total ${it}`, async () => {
    const { controller, queue, signal, metric } = await newController({ reconcile: scripted(outcome) });
    const total = "controller_runtime_reconcile_total";
    assert.equal(await metric(total, { result: label }), 0);
    queue.add(request);
    await controller.processNextWorkItem(signal);
    assert.equal(await metric(total, { result: label }), 1);
    for (const other of ["success", "error", "requeue", "requeue_after"].filter((l) => l !== label))
      assert.equal(await metric(total, { result: other }), 0, `result=${other} untouched`);
  });
}

// controller_test.go Context("should update prometheus metrics") / It("should requeue a Request if there is an error
// and continue processing items")
test("controller-runtime: should update prometheus metrics: should requeue a Request if there is an error and continue processing items", async () => {
  const { controller, queue, clock, signal, metric } = await newController({
    reconcile: scripted(new Error("expected error: reconcile"), {}),
  });
  assert.equal(await metric("controller_runtime_reconcile_errors_total"), 0);
  queue.add(request);
  await controller.processNextWorkItem(signal); // gives an error
  assert.equal(await metric("controller_runtime_reconcile_errors_total"), 1);
  clock.step(5);
  await controller.processNextWorkItem(signal); // a second time without error
  assert.equal(queue.len(), 0);
  assert.equal(queue.numRequeues(request), 0);
});

// controller_test.go Context("should update prometheus metrics") / It("should add a reconcile time to the reconcile
// time histogram")
test("controller-runtime: should update prometheus metrics: should add a reconcile time to the reconcile time histogram", async () => {
  const { controller, queue, signal, metric } = await newController({ reconcile: scripted({}) });
  const histogram = "controller_runtime_reconcile_time_seconds";
  // As in Go, the series exists once observed (Go's test creates it by asking): no series yet is no sample yet.
  assert.equal((await metric(histogram, {}, `${histogram}_count`)) ?? 0, 0);
  queue.add(request);
  await controller.processNextWorkItem(signal);
  assert.equal(queue.len(), 0);
  assert.equal(queue.numRequeues(request), 0);
  assert.notEqual(await metric(histogram, {}, `${histogram}_count`), 0);
});

// --- What controller.go's Reconcile and reconcileHandler do with panics and deadlines (no upstream case of its own) --

test("a recovered panic counts in reconcile_panics_total and as an error, and is requeued with backoff", async () => {
  const { controller, queue, signal, metric } = await newController({ reconcile: nilDereference });
  queue.add(request);
  await controller.processNextWorkItem(signal);
  assert.equal(await metric("controller_runtime_reconcile_panics_total"), 1);
  assert.equal(await metric("controller_runtime_reconcile_errors_total"), 1);
  assert.equal(await metric("controller_runtime_reconcile_total", { result: "error" }), 1);
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 1 });
});

test("errors thrown on purpose are not panics: an Error, a TerminalError, a TypeError with a cause (fetch's)", async () => {
  const { controller, queue, clock, signal, metric } = await newController({
    reconcile: scripted(
      new Error("not ready"),
      new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") }),
      new TerminalError("spec is invalid"),
    ),
  });
  queue.add(request);
  await controller.processNextWorkItem(signal);
  clock.step(5);
  await controller.processNextWorkItem(signal);
  queue.add(request);
  await controller.processNextWorkItem(signal);
  assert.equal(await metric("controller_runtime_reconcile_panics_total"), 0);
  assert.equal(await metric("controller_runtime_reconcile_errors_total"), 3);
});

test("a thrown value that is not an Error is a panic, recovered with its inspected value", async () => {
  const { controller, signal, metric } = await newController({
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case under test
    reconcile: () => Promise.reject({ code: 7 }),
  });
  await assert.rejects(controller.reconcile(request, signal), { message: "panic: { code: 7 } [recovered]" });
  assert.equal(await metric("controller_runtime_reconcile_panics_total"), 1);
});

test("recoverPanic false: the panic stops every worker, run() rejects with it, and it is neither requeued nor counted as a result", async () => {
  let calls = 0;
  const { controller, queue, signal, metric } = await newController({
    recoverPanic: false,
    reconcile: (ctx, o) => {
      calls++;
      return nilDereference(ctx, o);
    },
  });
  queue.add(request);
  await assert.rejects(controller.run(signal), TypeError);
  assert.equal(calls, 1);
  assert.equal(await metric("controller_runtime_reconcile_panics_total"), 1);
  for (const result of ["success", "error", "requeue", "requeue_after"])
    assert.equal(await metric("controller_runtime_reconcile_total", { result }), 0, `result=${result}`);
  assert.equal(
    await metric("controller_runtime_reconcile_time_seconds", {}, "controller_runtime_reconcile_time_seconds_count"),
    1,
  );
  assert.deepEqual(queue.counts(), { trying: 1, addAfter: 0, addRateLimited: 0 });
  assert.equal(queue.shuttingDown(), true, "the controller stopped");
});

test("reconcile_timeouts_total counts a reconcile whose deadline fired, not one cut short by the controller stopping", async () => {
  const timedOut = await newController({ reconciliationTimeoutMs: 1, reconcile: waitForAbort });
  timedOut.queue.add(request);
  await timedOut.controller.processNextWorkItem(timedOut.signal);
  assert.equal(await timedOut.metric("controller_runtime_reconcile_timeouts_total"), 1);
  assert.equal(await timedOut.metric("controller_runtime_reconcile_total", { result: "error" }), 1);

  const stopped = await newController({ reconciliationTimeoutMs: 3_600_000, reconcile: waitForAbort });
  stopped.queue.add(request);
  const turn = stopped.controller.processNextWorkItem(stopped.signal);
  stopped.stop.abort(new Error("shutting down"));
  await turn;
  assert.equal(await stopped.metric("controller_runtime_reconcile_timeouts_total"), 0);
});
