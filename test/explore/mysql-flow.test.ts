// `crdgen explore samples/mysql runtime` prints the event flow the README describes in "The event flow, informer to
// reconcile": each step the README names (handlers, queue.add, processNextWorkItem, queue.get, forget / addAfter /
// addRateLimited / done, reconcile, the hooks file) is found, at a line that really is that step, in the README's
// order.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { explore, type Loc } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const controllerFile = "samples/mysql/generated/example.com/v1/mysqlcluster.controller.ts";
/** The wiring the generated controller's one call runs: queue, primary informer's handlers, the hand-over to the hooks. */
const controllerForFile = "runtime/controller/controller-for.ts";
const hooksFile = "samples/mysql/src/mysqlcluster.hooks.ts";

const lineAt = (l: Loc | undefined) => {
  assert.ok(l, "a location was reported");
  return readFileSync(path.join(repoRoot, l.file), "utf8").split("\n")[l.line - 1] ?? "";
};

/** The numbered steps of the README's event-flow section, by number. */
function readmeSteps(): Map<number, string> {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("## The event flow, informer to reconcile");
  assert.ok(start >= 0, "README.md has the section 'The event flow, informer to reconcile'");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 3));
  const steps = new Map<number, string>();
  for (const m of section.matchAll(/^(\d+)\. ([\s\S]*?)(?=^\d+\. |$(?![\s\S]))/gm))
    steps.set(Number(m[1]), m[2]!.replace(/\s+/g, " "));
  return steps;
}

/** Backticked names of a README step, reduced to their leading name (`queue.add(metaNamespaceKeyFunc(obj))` → queue.add). */
const namesIn = (step: string) => [...step.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\(.*$/, "").trim());

const resultPromise = explore([path.join(repoRoot, "samples/mysql"), path.join(repoRoot, "runtime")]);

test("the README's event-flow steps 3-6 are what explore reports for the MySQL operator", async () => {
  const result = await resultPromise;
  const steps = readmeSteps();
  for (const n of [3, 4, 5, 6]) assert.ok(steps.has(n), `README event flow has step ${n}`);
  assert.equal(result.controllers.length, 1, "one controller: the MySQLCluster one");
  const c = result.controllers[0]!;
  assert.deepEqual(result.unlinked, []);
  // The generated controller's controllerFor call is the controller: named after the function it is in, at that call.
  assert.equal(c.name, "newMySQLClusterController");
  assert.equal(c.loc?.file, controllerFile);
  assert.match(
    lineAt(c.loc),
    // The call's arguments follow on the next lines (the generator keeps lines within 120 columns).
    /rt\.controllerFor<MySQLCluster, MySQLClusterContext>\($/,
  );

  // Step 4: <kind>.controller.ts is one controllerFor call; the queue is made there
  // (runtime/controller/controller-for.ts)
  // and keys go on it with queue.add(metaNamespaceKeyFunc(obj)).
  assert.match(steps.get(4)!, /<kind>\.controller\.ts/);
  assert.ok(namesIn(steps.get(4)!).includes(controllerForFile), `README step 4 names ${controllerForFile}`);
  assert.match(
    readFileSync(path.join(repoRoot, controllerFile), "utf8"),
    /return rt\.controllerFor<MySQLCluster, MySQLClusterContext>\(\s*kube,\s*mySQLClusterResource,\s*hooks,\s*options,/,
  );
  assert.equal(c.queue.loc?.file, controllerForFile);
  assert.match(lineAt(c.queue.loc), /newRateLimitingQueue/);

  // Step 3: the SharedIndexInformer (the factory's forResource makes it) calls addFunc, updateFunc, deleteFunc; its
  // kind
  // is the mySQLClusterResource descriptor's.
  const primary = c.sources.find((s) => s.kind === "MySQLCluster");
  assert.ok(primary, `a MySQLCluster source among ${c.sources.map((s) => s.kind).join(", ")}`);
  assert.equal(primary.registeredAt?.file, controllerForFile, "handlers are added in controllerFor");
  assert.match(steps.get(3)!, /\*\*SharedIndexInformer\*\*/);
  assert.match(steps.get(3)!, /forResource/);
  assert.match(primary.via, /^new (rt\.|cache\.)?SharedIndexInformer$/);
  assert.equal(
    primary.loc?.file,
    "runtime/cache/informer-factory.ts",
    "the primary informer is the factory's (forResource)",
  );
  const handlerNames = ["addFunc", "updateFunc", "deleteFunc"];
  for (const name of handlerNames) assert.ok(namesIn(steps.get(3)!).includes(name), `README step 3 names ${name}`);
  assert.deepEqual(
    primary.handlers.map((h) => h.fn.name.replace(/ \(arrow\)$/, "")),
    handlerNames,
  );
  assert.deepEqual(
    primary.handlers.map((h) => h.events),
    [["add"], ["update"], ["delete"]],
  );
  const producerText = namesIn(steps.get(4)!).find((n) => n.startsWith("queue."));
  assert.equal(producerText, "queue.add");
  for (const h of primary.handlers) {
    assert.equal(h.producers.length, 1, `${h.fn.name} adds once`);
    assert.equal(h.producers[0]!.text, producerText);
    assert.match(lineAt(h.producers[0]!.loc), /queue\.add\(metaNamespaceKeyFunc\(/);
  }

  // Step 5: workers in runtime/controller/controller.ts, processNextWorkItem: queue.get(), reconcile, forget / addAfter
  // / addRateLimited, done.
  const step5 = steps.get(5)!;
  assert.equal(c.workers.length, 1);
  const w = c.workers[0]!;
  const step5File = namesIn(step5).find((n) => n.endsWith(".ts"));
  assert.equal(step5File, "runtime/controller/controller.ts");
  assert.equal(w.getter?.loc?.file, step5File);
  assert.ok(namesIn(step5).includes("processNextWorkItem"));
  assert.equal(w.getter.name, "Controller.processNextWorkItem");
  assert.ok(namesIn(step5).includes("queue.get"));
  assert.match(lineAt(w.get), /this\.queue\.get\(\)/);
  assert.match(lineAt(w.loop.loc), /worker\(/);
  const ops = [
    ...w.forget.map((l) => ["forget", l] as const),
    ...w.requeues.map((r) => [r.method, r.loc] as const),
    ...w.done.map((l) => ["done", l] as const),
  ];
  for (const name of ["forget", "addAfter", "addRateLimited", "done"]) {
    assert.ok(namesIn(step5).includes(name), `README step 5 names ${name}`);
    const found = ops.filter(([m]) => m === name);
    assert.ok(found.length > 0, `worker reports ${name}`);
    for (const [, l] of found) assert.match(lineAt(l), new RegExp(`this\\.queue\\.${name}\\(`));
  }
  assert.ok(namesIn(step5).includes("reconcile"));
  assert.equal(w.process?.loc?.file, step5File);

  // Step 6: your hook in <kind>.hooks.ts: the processing function hands over to the user's reconcile.
  assert.match(steps.get(6)!, /<kind>\.hooks\.ts/);
  const ends = w.then.map((chain) => chain.at(-1)!);
  const hook = ends.find((p) => p.loc?.file === hooksFile);
  assert.ok(hook, `a hand-over to ${hooksFile}: ${JSON.stringify(w.then)}`);
  assert.match(lineAt(hook.loc), /export async function reconcile\(/);
});

test("crdgen explore prints the MySQL flow in the README's order", () => {
  const run = spawnSync(
    process.execPath,
    [path.join(repoRoot, "bin", "crdgen.js"), "explore", "samples/mysql", "runtime"],
    { cwd: repoRoot, encoding: "utf8" },
  );
  assert.equal(run.status, 0, run.stderr);
  const out = run.stdout;
  // The printed order follows the event: handler → queue.add → worker loop → queue.get in processNextWorkItem →
  // reconcile hook.
  const order = [
    "addFunc",
    "queue.add",
    "worker ",
    "this.queue.get in Controller.processNextWorkItem",
    "process ",
    "hooks.reconcile",
    hooksFile,
    "forget",
    "requeue    addAfter",
    "requeue    addRateLimited",
  ];
  // One block, named after the generated function; the primary informer is the factory's (forResource), its kind the
  // descriptor's.
  assert.equal(out.match(/^controller /gm)?.length, 1, out);
  let from = out.indexOf("controller newMySQLClusterController\n");
  assert.ok(from >= 0, out);
  from = out.indexOf("watches    MySQLCluster via new SharedIndexInformer  runtime/cache/informer-factory.ts", from);
  assert.ok(from >= 0, out);
  for (const piece of order) {
    const i = out.indexOf(piece, from);
    assert.ok(i >= 0, `"${piece}" appears after position ${from} in:\n${out}`);
    from = i;
  }
  assert.ok(out.includes("done "), out);
});
