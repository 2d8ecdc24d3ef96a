// `--kind`: the flows of one watched kind in every output format, and an unknown kind named with the kinds found.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ExploreInputError, explore, filterByKind, kindsOf, type ExploreResult } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const twoInformers = "test/fixtures/explore/two-informers";
const crdgen = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(repoRoot, "bin", "crdgen.js"), "explore", ...args], {
    cwd: repoRoot,
    encoding: "utf8",
  });

test("kindsOf lists each watched kind once, sorted, kinds known only at run time last", async () => {
  const result = await explore([path.join(repoRoot, "samples/mysql"), path.join(repoRoot, "runtime")]);
  // The shard member's `acquired` listener (runtime/controller/sharded.ts) is a source of its own, named "(callback)".
  assert.deepEqual(kindsOf(result), ["MySQLCluster", "(callback)", "(kind set at run time)"]);
  assert.deepEqual(kindsOf(await explore([path.join(repoRoot, twoInformers)])), ["ConfigMap", "Pod"]);
});

test("filterByKind keeps only that kind's sources and the controllers that watch it; another case matches", async () => {
  const result = await explore([path.join(repoRoot, "test/fixtures/explore/controller-runtime")]);
  assert.equal(result.controllers.length, 3);
  for (const asked of ["Deployment", "deployment"]) {
    const only = filterByKind(result, asked);
    assert.deepEqual(
      only.controllers.map((c) => c.name),
      ["memcached", "secret-rotator"],
      "both controllers that watch Deployments, nothing else",
    );
    assert.deepEqual(
      only.controllers.flatMap((c) => c.sources.map((s) => s.kind)),
      ["Deployment", "Deployment"],
    );
    assert.deepEqual(only.onlyKind, { kind: "Deployment", kindsFound: 5 });
    // the workers and queues of the kept controllers are what the kind's events reach
    assert.deepEqual(only.controllers[0]?.workers, result.controllers.find((c) => c.name === "memcached")?.workers);
  }
  assert.equal(result.onlyKind, undefined, "the unfiltered result is left as it was");
});

test("filterByKind: an unknown kind is an input error naming the kinds found", async () => {
  const result = await explore([path.join(repoRoot, twoInformers)]);
  assert.throws(
    () => filterByKind(result, "Widget"),
    (error: unknown) =>
      error instanceof ExploreInputError &&
      error.message.includes('no flow of kind "Widget"') &&
      error.message.includes("the watched kinds are: ConfigMap, Pod"),
  );
  const none: ExploreResult = { ...result, controllers: [] };
  assert.throws(() => filterByKind(none, "Pod"), /no watched kind was found/);
});

test("crdgen explore --kind filters the text, JSON, mermaid and dot output to one kind", () => {
  const all = crdgen(twoInformers);
  assert.equal(all.status, 0, all.stderr);
  assert.match(all.stdout, /ConfigMap/);
  const text = crdgen(twoInformers, "--kind", "Pod");
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /only the flows of Pod \(--kind\), one of 2 watched kind\(s\)/);
  assert.match(text.stdout, /^ {2}Pod: /m);
  assert.doesNotMatch(text.stdout, /ConfigMap/);
  const json = crdgen(twoInformers, "--kind", "Pod", "--json");
  assert.equal(json.status, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as ExploreResult;
  assert.deepEqual(
    parsed.controllers.flatMap((c) => c.sources.map((s) => s.kind)),
    ["Pod"],
  );
  assert.deepEqual(parsed.onlyKind, { kind: "Pod", kindsFound: 2 });
  for (const format of ["mermaid", "dot"]) {
    const picture = crdgen(twoInformers, "--kind", "Pod", "--format", format);
    assert.equal(picture.status, 0, picture.stderr);
    assert.match(picture.stdout, /Pod/);
    assert.doesNotMatch(picture.stdout, /ConfigMap|onConfigMapUpdate/, format);
  }
});

test("crdgen explore --kind with an unknown kind: non-zero exit and the kinds found, nothing on stdout", () => {
  const run = crdgen(twoInformers, "--kind", "Widget");
  assert.equal(run.status, 1);
  assert.equal(run.stdout, "");
  assert.match(
    run.stderr,
    /--kind Widget: no flow of kind "Widget" in .*two-informers; the watched kinds are: ConfigMap, Pod/,
  );
});
