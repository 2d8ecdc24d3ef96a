// Go's type checker as explore's Go front end (explore/go-typed): built once into the cache and reused, and where Go
// cannot be run, Go is read by syntax with the reason on the report's first line. The typed results themselves are
// checked against test/fixtures/explore/go-typed-queues and go-interface-dispatch by fixtures.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { explore, flowKeys, goTypesProgram, textReport } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const fixture = (name: string) => path.join(repoRoot, "test", "fixtures", "explore", name);

test("the Go program is built once and then taken from the cache", async () => {
  // Go must be on PATH here (CI has it): a missing Go fails this test, it is not skipped.
  const first = await goTypesProgram();
  const built = statSync(first).mtimeMs;
  const second = await goTypesProgram();
  assert.equal(second, first);
  assert.equal(statSync(second).mtimeMs, built, "a second call rebuilt the program");
});

test("without Go, Go is read by syntax only and the first line says why", async () => {
  const saved = process.env["PATH"];
  process.env["PATH"] = "";
  let result;
  try {
    result = await explore([fixture("go-inline-work")], { goTypes: true });
  } finally {
    process.env["PATH"] = saved;
  }
  assert.equal(
    result.goFrontEnd,
    "Go read by syntax only: the Go type checker could not be built (go not found on PATH)",
  );
  assert.match(textReport(result).split("\n")[0]!, /; Go read by syntax only: .*go not found on PATH\)$/);
  // The syntax reader's flows are the report: the same as when types were not asked for.
  const syntax = await explore([fixture("go-inline-work")]);
  assert.deepEqual(flowKeys(result), flowKeys(syntax));
});

test("types tell queues apart where names mislead: typed and syntax-only flows of go-typed-queues differ", async () => {
  const dir = fixture("go-typed-queues");
  const typed = await explore([dir], { goTypes: true });
  const syntax = await explore([dir]);
  const names = (r: typeof typed) => r.controllers.map((c) => c.name).sort();
  assert.deepEqual(names(typed), ["reports.Reports", "secrets.Controller", "services.Controller"]);
  // By name: JobQueue is taken for a queue and Backlog is not (the Pipeline sites are told apart by their shape: the
  // getter calls the Sync field a constructor parameter sets).
  assert.deepEqual(names(syntax), ["reports.Backlog", "reports.Reports", "secrets.Controller", "services.Controller"]);
  const processes = (r: typeof typed) =>
    r.controllers.flatMap((c) => c.workers.flatMap((w) => [w.process, ...(w.processAlso ?? [])].map((p) => p?.name)));
  assert.deepEqual(processes(typed).sort(), [
    "(*Controller).syncSecret",
    "(*Controller).syncService",
    "(*Reports).render",
  ]);
});

test("an interface call runs the implementations that reach it, not every one the type checker names", async () => {
  const dir = fixture("go-interface-dispatch");
  // The type checker: both controllers' c.step.Apply may run either implementation of steps.Step.
  const { stdout } = await promisify(execFile)(await goTypesProgram(), [dir], { maxBuffer: 1 << 26 });
  const { dispatch } = JSON.parse(stdout) as { dispatch: Record<string, string[]> };
  const short = (place: string) => path.relative(dir, place).split(path.sep).join("/");
  assert.deepEqual(
    Object.entries(dispatch).map(([call, targets]) => [short(call), targets.map(short).sort()]),
    ["alerts", "backups"].map((pkg) => [
      `${pkg}/controller.go:44:12-44:34`,
      ["steps/steps.go:15:1", "steps/steps.go:21:1"],
    ]),
  );
  // The flows: each controller reaches only the Step its constructor stored, with types and by syntax alike.
  const typed = await explore([dir], { goTypes: true });
  const processes = (r: typeof typed) =>
    r.controllers.map((c) => `${c.name} ${c.workers.map((w) => w.process?.name).join(",")}`);
  assert.deepEqual(processes(typed), ["alerts.Controller (*Notifier).Apply", "backups.Controller (*Archiver).Apply"]);
  assert.deepEqual(flowKeys(typed), flowKeys(await explore([dir])));
});

test("a controller type built through one shared helper is a controller per call, with types and by syntax", async () => {
  const dir = fixture("go-shared-constructor");
  const typed = await explore([dir], { goTypes: true });
  const processes = (r: typeof typed) =>
    r.controllers.map((c) => `${c.name} ${c.workers.map((w) => w.process?.name).join(",")}`);
  assert.deepEqual(processes(typed), ["StartSecrets syncSecret", "StartServices syncService"]);
  assert.deepEqual(flowKeys(await explore([dir])), flowKeys(typed));
});

test("a constructor nothing in the module calls is a root: the queue it makes is a controller's", async () => {
  const dir = fixture("go-typed-uncalled-constructor");
  // The Go program: gadgets.NewController (no caller) is no constructor, so its worker.New call makes a queue;
  // worker.New, which it calls, stays one.
  const { stdout } = await promisify(execFile)(await goTypesProgram(), [dir], { maxBuffer: 1 << 26 });
  const raw = JSON.parse(stdout) as { queueCalls: string[]; constructors: string[] };
  const short = (place: string) => path.relative(dir, place).split(path.sep).join("/");
  assert.deepEqual(raw.queueCalls.map(short), [
    "gadgets/controller.go:17:7-17:40",
    "widgets/controller.go:22:10-22:100",
  ]);
  assert.deepEqual(raw.constructors.map(short), ["worker/worker.go:17:1"]);
  const typed = await explore([dir], { goTypes: true });
  assert.deepEqual(
    typed.controllers.map((c) => `${c.name} ${c.workers.map((w) => w.process?.name).join(",")}`),
    ["NewController syncGadget", "widgets.Controller (*Controller).syncWidget"],
  );
  assert.deepEqual(flowKeys(typed), flowKeys(await explore([dir])));
});

test("a package go cannot build (C files without cgo) is skipped and named; the module's others are typed", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-go-types-"));
  try {
    writeFileSync(path.join(dir, "go.mod"), "module example.com/mixed\n\ngo 1.22\n");
    mkdirSync(path.join(dir, "plain"));
    writeFileSync(path.join(dir, "plain", "plain.go"), "package plain\n\nfunc Answer() int { return 42 }\n");
    mkdirSync(path.join(dir, "native"));
    writeFileSync(path.join(dir, "native", "native.go"), "package native\n");
    writeFileSync(path.join(dir, "native", "main.c"), "int main(void) { return 0; }\n");
    const { stdout } = await promisify(execFile)(await goTypesProgram(), [dir], { maxBuffer: 1 << 26 });
    const raw = JSON.parse(stdout) as { packages: number; errors: string[] };
    assert.equal(raw.packages, 1);
    assert.equal(raw.errors.length, 1);
    assert.match(raw.errors[0]!, /C source files not allowed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an informer made from a GroupVersionResource constant has its kind from types; syntax alone cannot tell", async () => {
  const dir = fixture("go-typed-gvr-informers");
  const typed = await explore([dir], { goTypes: true });
  assert.deepEqual(typed.controllers.flatMap((c) => c.sources.map((s) => s.kind)).sort(), [
    "Gadget",
    "GatewayPolicy",
    "Secret",
    "Widget",
  ]);
  // By syntax: the kinds are unknown, and the wrapper's own AddEventHandler is taken for a fifth registration.
  const syntax = await explore([dir]);
  assert.deepEqual(
    syntax.controllers.flatMap((c) => c.sources.map((s) => s.kind)),
    ["?", "?", "?", "?", "?"],
  );
});

test("kinds from a helper returning (informers, error) and an API module of its own; type switches pick the queue", async () => {
  const dir = fixture("go-typed-gvr-results");
  const { stdout } = await promisify(execFile)(await goTypesProgram(), [dir], { maxBuffer: 1 << 26 });
  const raw = JSON.parse(stdout) as {
    informerKinds: Record<string, string>;
    narrowed: Record<string, { only?: string[]; except?: string[] }>;
    perCallInformers: string[];
  };
  const short = (place: string) =>
    path
      .relative(dir, place)
      .split(path.sep)
      .join("/")
      .replace(/-\d+:\d+$/, "");
  // `o.widgets, err = New...(gvr)` and `dsets, err := ...`: the first result is the informer; Policy is found by the
  // TypeMeta it embeds in the replaced API module, Endpoints by a plural that is its name.
  assert.deepEqual(
    Object.entries(raw.informerKinds).map(([call, kind]) => `${short(call)} ${kind}`),
    [
      "widgets/operator.go:31:19 Widget",
      "widgets/operator.go:35:17 StatefulSet",
      "widgets/operator.go:39:16 DaemonSet",
      "widgets/operator.go:43:19 Policy",
      "widgets/operator.go:47:20 Endpoints",
      "widgets/operator.go:52:16 ConfigMap",
      "widgets/operator.go:53:15 Lease",
    ],
  );
  // NewFakeInformerFor(obj) makes the informer of what each call passes: the calls are the informers, not its body.
  assert.deepEqual(raw.perCallInformers.map(short), ["informers/fake.go:11:9"]);
  // OnUpdate: the case's call runs for StatefulSets only; the Add after the switch (whose cases return) never does.
  const narrowed = new Map(Object.entries(raw.narrowed).map(([call, n]) => [short(call), n]));
  assert.deepEqual(narrowed.get("reconciler/reconciler.go:51:3"), { only: ["StatefulSet"] });
  assert.deepEqual(narrowed.get("reconciler/reconciler.go:54:2"), { except: ["DaemonSet", "StatefulSet"] });
  // `if sts, ok := obj.(*appsv1.StatefulSet); ok { ...; return }` alike.
  assert.deepEqual(narrowed.get("reconciler/reconciler.go:60:3"), { only: ["StatefulSet"] });
  assert.deepEqual(narrowed.get("reconciler/reconciler.go:63:2"), { except: ["StatefulSet"] });
  const typed = await explore([dir], { goTypes: true });
  const kinds = (r: typeof typed) => r.controllers.map((c) => c.sources.map((s) => s.kind).join(","));
  assert.deepEqual(kinds(typed), ["ConfigMap,Lease,Widget,StatefulSet,DaemonSet,Policy,Endpoints", "StatefulSet"]);
  // By syntax: no kind is known, so every informer the reconciler handles reaches the status queue too (and the
  // wrapper's own AddEventHandler is taken for one more registration).
  assert.deepEqual(kinds(await explore([dir])), ["?,?,?,?,?,?,?", "?,?,?,?"]);
});

test("Go read on worker threads gives what one thread gives, in the same order", async () => {
  // Every Go fixture at once (enough files for three threads); the facts join in file order whoever read them.
  const root = path.join(repoRoot, "test", "fixtures", "explore");
  const here = await explore([root], { goTypes: false, goWorkers: 0 });
  const threads = await explore([root], { goTypes: false, goWorkers: 3 });
  assert.ok(here.files.go > 30 && here.controllers.length > 30, "the fixtures hold many Go files and controllers");
  assert.deepEqual(threads, here);
  assert.equal(textReport(threads), textReport(here));
});

test("a wrapper queue whose handler an option closure sets (WithReconciler(f)) is one queue per call with types too", async () => {
  const dir = fixture("go-option-queue");
  const typed = await explore([dir], { goTypes: true });
  assert.match(typed.goFrontEnd ?? "", /^Go types from go\/packages/);
  const processes = (r: typeof typed) => r.controllers.map((c) => c.workers.map((w) => w.process?.name).join(","));
  assert.deepEqual(processes(typed), processes(await explore([dir])));
  assert.equal(typed.controllers.length, 2, "the widget and gadget queues, no block for an option closure");
});
