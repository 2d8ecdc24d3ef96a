// `crdgen explore` on the fixtures under test/fixtures/explore/<name>/: the text report against a golden file
// (UPDATE_GOLDEN=1 rewrites it), and every handler, queue, producer, worker loop and processing function against the
// hand-written expected-flows.json, with precision and recall of the flows printed and required to be 100%.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  commonAncestor,
  dotReport,
  explore,
  flowKeys,
  mermaidReport,
  textReport,
  type Controller,
  type ExploreResult,
} from "@crdgen/explore";

/** The repository root: this file runs as dist/test/explore/fixtures.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const fixturesDir = path.join(repoRoot, "test", "fixtures", "explore");
const fixtureNames = readdirSync(fixturesDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const updateGolden = process.env["UPDATE_GOLDEN"] === "1";

interface ExpectedSpec {
  explore: string[];
  /** Read Go with Go's type checker (explore/go-typed): a fixture of what names cannot tell. */
  goTypes?: boolean;
  controllers: {
    /** The controller's name, when the fixture pins it (several controllers sharing one queue's code, e.g. crdgen's controllerFor). */
    name?: string;
    queue: string;
    sources: {
      kind: string;
      informer: string;
      /** Other informers the same registration may get, one chosen at run time; none when absent. */
      alternatives?: string[];
      /** wrappedBy: handlers of the same registration that run first and call this one; none when absent. */
      handlers: { fn: string; events: string[]; producers: string[]; wrappedBy?: string[] }[];
    }[];
    workers: {
      loop: string;
      get?: string;
      process: string;
      /** Other functions the worker hands the item to (predicates, key helpers, error handlers); none when absent. */
      alsoCalled?: string[];
      then: string[];
      done: string[];
      forget: string[];
      requeues: string[];
      /** Keys put on another controller's queue: `<method> <loc> -> <that queue's loc>`; none when absent. */
      enqueues?: string[];
    }[];
  }[];
}

interface Fixture {
  dir: string;
  /** Every reported path is relative to this folder (the explored folders' common ancestor). */
  root: string;
  spec: ExpectedSpec;
  result: ExploreResult;
}

const cache = new Map<string, Promise<Fixture>>();
function fixture(name: string): Promise<Fixture> {
  let pending = cache.get(name);
  if (!pending) {
    pending = (async () => {
      const dir = path.join(fixturesDir, name);
      const specFile = path.join(dir, "expected-flows.json");
      assert.ok(
        existsSync(specFile),
        `fixture ${name} has no expected-flows.json (hand-written expectations are required)`,
      );
      const spec = JSON.parse(readFileSync(specFile, "utf8")) as ExpectedSpec;
      const dirs = spec.explore.map((d) => path.relative(repoRoot, path.join(dir, d)) || ".");
      const result = await explore(
        dirs.map((d) => path.join(repoRoot, d)),
        { goTypes: spec.goTypes ?? false },
      );
      // A fixture of Go's type checker read by syntax only is a failure that says why (Go missing, module not loaded).
      if (spec.goTypes)
        assert.match(
          result.goFrontEnd ?? "(not asked)",
          /^Go types from go\/packages/,
          `${name}: ${result.goFrontEnd}`,
        );
      result.roots = dirs; // print the folders as given from the repository root, not as absolute paths
      return { dir, root: commonAncestor(dirs.map((d) => path.join(repoRoot, d))), spec, result };
    })();
    cache.set(name, pending);
  }
  return pending;
}

/** `file:line`, or `file#text` / `file#text#n`: the (n-th) line of file containing text, which must exist. */
function resolveLoc(root: string, written: string): string {
  if (written === "library") return written;
  const anchor = /^([^#]+)#(.+?)(?:#(\d+))?$/.exec(written);
  if (!anchor) return written;
  const [, file, text, nth] = anchor;
  const lines = readFileSync(path.join(root, file!), "utf8").split("\n");
  const hits = lines.flatMap((l, i) => (l.includes(text!) ? [i + 1] : []));
  const n = Number(nth ?? 1);
  assert.ok(
    nth ? hits.length >= n : hits.length === 1,
    `expected-flows location ${written}: ${hits.length} line(s) of ${file} contain that text`,
  );
  return `${file}:${hits[n - 1]}`;
}

const at = (l?: { file: string; line: number }) => (l ? `${l.file}:${l.line}` : "library");

/** The facts a report states, one string each, grouped by what they are; per named controller when `named`. */
function elementsOf(controllers: Controller[], named: boolean): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (category: string, value: string) => {
    const set = out.get(category) ?? new Set<string>();
    set.add(value);
    out.set(category, set);
  };
  for (const c of controllers) {
    const q = named ? `${c.name} ${at(c.queue.loc)}` : at(c.queue.loc);
    add("queues", q);
    for (const s of c.sources) {
      add("watches", `${q} ${s.kind} ${at(s.loc)}`);
      for (const a of s.alternatives ?? []) add("alternative informers", `${q} ${s.kind} ${at(a.loc)}`);
      for (const h of s.handlers) {
        add("handlers", `${q} ${s.kind} ${at(h.fn.loc)} ${[...h.events].sort().join(",")}`);
        for (const w of h.wrappedBy ?? []) add("wrappers", `${q} ${at(h.fn.loc)} <- ${at(w.loc)}`);
        for (const p of h.producers) add("producers", `${q} ${at(h.fn.loc)} -> ${at(p.loc)}`);
      }
    }
    for (const w of c.workers) {
      add("worker loops", `${q} ${at(w.loop.loc)}`);
      if (w.get) add("gets", `${q} ${at(w.get)}`);
      for (const p of [w.process, ...(w.processAlso ?? [])]) add("processing functions", `${q} ${at(p?.loc)}`);
      for (const p of w.alsoCalled ?? []) add("also called", `${q} ${at(p.loc)}`);
      for (const chain of w.then) add("hooks", `${q} ${at(chain.at(-1)?.loc)}`);
      for (const d of w.done) add("done", `${q} ${at(d)}`);
      for (const f of w.forget) add("forget", `${q} ${at(f)}`);
      for (const r of w.requeues) add("requeues", `${q} ${r.method} ${at(r.loc)}`);
      for (const e of w.enqueues ?? []) add("enqueues", `${q} ${e.method} ${at(e.loc)} -> ${at(e.queue)}`);
    }
  }
  return out;
}

/** The hand-written expectations as the report model, so both go through the same counting. */
function expectedControllers(root: string, spec: ExpectedSpec): Controller[] {
  const loc = (written: string) => {
    const r = resolveLoc(root, written);
    if (r === "library") return undefined;
    const i = r.lastIndexOf(":");
    return { file: r.slice(0, i), line: Number(r.slice(i + 1)) };
  };
  const place = (written: string) => ({ name: "", loc: loc(written) });
  return spec.controllers.map((c) => ({
    name: c.name ?? "",
    queue: { type: "", rateLimiter: "", loc: loc(c.queue) },
    sources: c.sources.map((s) => ({
      kind: s.kind,
      via: "",
      loc: loc(s.informer),
      ...(s.alternatives ? { alternatives: s.alternatives.map((a) => ({ via: "", loc: loc(a) })) } : {}),
      handlers: s.handlers.map((h) => ({
        events: h.events,
        fn: place(h.fn),
        ...(h.wrappedBy ? { wrappedBy: h.wrappedBy.map(place) } : {}),
        producers: h.producers.map((p) => ({ method: "", text: "", loc: loc(p)!, via: [] })),
      })),
    })),
    workers: c.workers.map((w) => ({
      loop: place(w.loop),
      get: w.get ? loc(w.get) : undefined,
      process: place(w.process),
      ...(w.alsoCalled ? { alsoCalled: w.alsoCalled.map(place) } : {}),
      then: w.then.map((t) => [place(t)]),
      done: w.done.map((d) => loc(d)!),
      forget: w.forget.map((f) => loc(f)!),
      requeues: w.requeues.map((r) => {
        const [method, where] = r.split(" ");
        return { method: method!, loc: loc(where!)! };
      }),
      ...(w.enqueues
        ? {
            enqueues: w.enqueues.map((e) => {
              const [method, where, , queue] = e.split(" ");
              return { method: method!, text: "", loc: loc(where!)!, queue: loc(queue!) };
            }),
          }
        : {}),
    })),
  }));
}

/** Golden files hold runtime/ lines as `runtime/<file>:*`: the hand-written expectations pin those by their text instead. */
function goldenText(text: string): string {
  return text
    .replace(/(runtime\/[\w/.-]+\.ts):\d+/g, "$1:*")
    .replace(/^(crdgen explore .* runtime: .*?)\d+ TypeScript file\(s\)/m, "$1* TypeScript file(s)");
}

function checkGolden(file: string, actual: string): void {
  if (updateGolden) {
    writeFileSync(file, actual);
    return;
  }
  assert.ok(
    existsSync(file),
    `${path.relative(repoRoot, file)} is missing: run UPDATE_GOLDEN=1 node --test dist/test/explore/fixtures.test.js, then review it`,
  );
  assert.equal(
    actual,
    readFileSync(file, "utf8"),
    `${path.relative(repoRoot, file)} differs (UPDATE_GOLDEN=1 rewrites it after a deliberate change)`,
  );
}

// One fixture per pattern: the five styles of the first issue, shared base controllers (Go embedding, a TypeScript
// base class), a client-node operator, crdgen's controllerFor with two kinds, one informer feeding two queues,
// TypeScript task queues fed by raw watches and ListWatch, a Pepr module, controller-runtime builders as real
// operators write them, informer kinds told by types, helpers shared by
// several controllers, a worker calling more than its processing function, workers requeueing onto their own and
// each other's queues, a wrapper queue type, an interface call with one implementation per controller, one
// controller type built per call of a shared constructor, and sync functions stored in one field by two constructors
// (Go) or passed to one class by two factories (TypeScript), one reconciler type built per controller by a helper, a
// field indexer two of three controllers set up, kinds written as new(T), and a repository's own builder wrapped around
// controller-runtime's (one controller per call of its constructor, the Reconcile passed at that call), and handlers
// built as nested generic value structs by shared constructors (each call's copy runs only the function passed there),
// and a queue returned as a constructor's second result, and informers made on first use by one factory helper that
// returns what its caller's function makes (each controller gets only its own), and a callback handed to a registrar
// (it runs on the registrar's events, a source of its own, not with the handler that registers it), and one controller
// type whose Register method makes the queue, built by several packages (one controller, one queue per object), and
// controller-runtime's priority queue (a queue by its type, keys in by AddWithOpts and out by GetWithPriority), and
// three controller types embedding one base made with each one's queue (`c.queue` promoted: each object's own), and
// a worker whose getter calls the work without the key (`err := n.run()`: run is the processing function), and
// controller-runtime's source.Channel (the kind from the channel's type argument or from what is sent on it), and a
// wrapper queue built with functional options (`NewQueue(name, WithReconciler(c.reconcile))`: that call's reconciler).
test("there is an explore fixture for each pattern explore is held to", () => {
  assert.deepEqual(fixtureNames, [
    "channel-queue",
    "controller-runtime",
    "controller-runtime-builders",
    "embedded-base",
    "go-any-root",
    "go-builder-own-for",
    "go-builder-registry",
    "go-builder-wrapper",
    "go-channel-source",
    "go-embedded-base-per-object",
    "go-helper-reconcilers",
    "go-informer-cache",
    "go-inline-work",
    "go-interface-dispatch",
    "go-method-queue-per-object",
    "go-multi-results",
    "go-new-kind",
    "go-option-queue",
    "go-priority-queue",
    "go-reconciler-per-call",
    "go-registrar-callback",
    "go-shared-constructor",
    "go-shared-indexer",
    "go-sync-field",
    "go-typed-gvr-informers",
    "go-typed-gvr-results",
    "go-typed-queues",
    "go-typed-uncalled-constructor",
    "go-value-handlers",
    "go-work-without-key",
    "go-worker-helper-literal",
    "informer-kinds",
    "requeues",
    "sample-controller",
    "shared-helpers",
    "shared-informer",
    "ts-base-class",
    "ts-client-node",
    "ts-controller-for",
    "ts-generated",
    "ts-operator-node",
    "ts-operator-node-vendored",
    "ts-pepr",
    "ts-pepr-typed",
    "ts-shared-class",
    "ts-task-queues",
    "ts-typed",
    "two-informers",
    "worker-calls",
    "wrapper-queue",
  ]);
});

const totals = new Map<string, { found: number; expected: number; correct: number }>();
const count = (category: string, found: Set<string>, expected: Set<string>) => {
  const t = totals.get(category) ?? { found: 0, expected: 0, correct: 0 };
  t.found += found.size;
  t.expected += expected.size;
  t.correct += [...found].filter((f) => expected.has(f)).length;
  totals.set(category, t);
};

for (const name of fixtureNames) {
  test(`explore ${name}: text report matches the golden file`, async () => {
    const { dir, result } = await fixture(name);
    checkGolden(path.join(dir, "expected.txt"), goldenText(textReport(result)));
  });

  test(`explore ${name}: names exactly the hand-written handlers, queues, producers, loops and processing functions`, async () => {
    const { root, spec, result } = await fixture(name);
    assert.deepEqual(result.unlinked, [], "everything found in a fixture links into a flow");
    assert.deepEqual(result.warnings, []);
    const expected = expectedControllers(root, spec);
    const named = spec.controllers.some((c) => c.name !== undefined);
    const actualElements = elementsOf(result.controllers, named);
    const expectedElements = elementsOf(expected, named);
    for (const category of new Set([...actualElements.keys(), ...expectedElements.keys()])) {
      const a = actualElements.get(category) ?? new Set<string>();
      const e = expectedElements.get(category) ?? new Set<string>();
      count(category, a, e);
      assert.deepEqual([...a].sort(), [...e].sort(), `${name}: ${category}`);
    }
    const flows = {
      found: new Set(flowKeys(result)),
      expected: new Set(flowKeys({ ...result, controllers: expected })),
    };
    count("flows", flows.found, flows.expected);
    assert.deepEqual([...flows.found].sort(), [...flows.expected].sort(), `${name}: flows`);
  });
}

test("precision and recall of the found flows (and their parts) across the fixtures are 100%", async () => {
  for (const name of fixtureNames) await fixture(name);
  assert.ok(totals.has("flows"), "the per-fixture tests ran before this one");
  const pct = (n: number, d: number) => (d === 0 ? "n/a" : `${((100 * n) / d).toFixed(1)}%`);
  const rows = [...totals].map(
    ([category, t]) =>
      `  ${category.padEnd(22)} precision ${pct(t.correct, t.found).padStart(6)} (${t.correct}/${t.found})   recall ${pct(t.correct, t.expected).padStart(6)} (${t.correct}/${t.expected})`,
  );
  console.log(`crdgen explore on ${fixtureNames.length} fixtures:\n${rows.join("\n")}`);
  for (const [category, t] of totals) {
    assert.equal(t.correct, t.found, `${category}: precision below 100%`);
    assert.equal(t.correct, t.expected, `${category}: recall below 100%`);
  }
  assert.ok(totals.get("flows")!.expected > 0);
});

test("explore skips vendor/ and *_test.go by default and reads them when asked", async () => {
  const dir = path.join(fixturesDir, "two-informers");
  const plain = await explore([dir]);
  const all = await explore([dir], { includeVendor: true, includeTests: true });
  assert.equal(plain.files.go, 5);
  assert.equal(all.files.go, 6, "vendor/k8s.io/client-go/util/workqueue/queue.go is read with includeVendor");
  // ... but a vendored client-go's own queue, handler and worker loop are library plumbing, not part of the report.
  assert.deepEqual(all.controllers, plain.controllers);
  assert.deepEqual(all.unlinked, plain.unlinked);
  const sample = path.join(fixturesDir, "sample-controller");
  const withTests = await explore([sample], { includeTests: true });
  assert.equal((await explore([sample])).files.go, 2);
  assert.equal(withTests.files.go, 3);
  // The test's c.workqueue.Add is not reached from any handler, and says so.
  assert.ok(
    withTests.unlinked.some((u) => u.includes("controller_test.go")),
    withTests.unlinked.join("\n"),
  );
});

test("mermaid and dot pictures of the sample-controller flows match their golden files", async () => {
  const { dir, result } = await fixture("sample-controller");
  checkGolden(path.join(dir, "expected.mmd"), mermaidReport(result));
  checkGolden(path.join(dir, "expected.dot"), dotReport(result));
});
