// Worker threads (CRDGEN_WORKERS) must not change a byte of the output, nor the first error, nor leave files behind.
// The inputs are the hostile schema fixtures (names that collide, kinds named like the runtime's exports, deep and
// repeated schemas), with one group/version's kinds split over the first and the last file, so that two workers each
// hold part of it (its types are declared again, whole, on the main thread) while others stay whole in one worker.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { generate } from "../../../generator/generate.js";
import { listFiles } from "../support/read-tree.js";

/** The repo root: this file runs as dist/test/generator/load/parallel-models.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const schemaFixtures = path.join(repoRoot, "test/fixtures/schema");
const shared = "kinds-sharing-a-version";

const temp = mkdtempSync(path.join(os.tmpdir(), "crdgen-workers-"));
after(() => rmSync(temp, { recursive: true, force: true }));

/** The inputs: the shared group/version's first CRD first, every other fixture, then the rest of its CRDs. */
function hostileInputs(): string[] {
  const documents = readFileSync(path.join(schemaFixtures, shared, "crd.yaml"), "utf8").split(/^---$/m);
  assert.ok(documents.length > 2, `${shared}/crd.yaml holds several CRDs of one group/version`);
  const first = path.join(temp, "shared-first.yaml");
  const rest = path.join(temp, "shared-rest.yaml");
  writeFileSync(first, documents[0]!);
  writeFileSync(rest, documents.slice(1).join("---"));
  const others = readdirSync(schemaFixtures)
    .filter((name) => name !== shared)
    .sort()
    .map((name) => path.join(schemaFixtures, name, "crd.yaml"))
    .filter((file) => existsSync(file));
  assert.ok(others.length > 20, "the schema fixtures are there");
  return [first, ...others, rest];
}

/** Runs generate with CRDGEN_WORKERS set (restored after); the error it threw, if any. */
async function generateWith(workers: string, inputs: string[], out: string): Promise<Error | undefined> {
  const before = process.env["CRDGEN_WORKERS"];
  process.env["CRDGEN_WORKERS"] = workers;
  try {
    await generate({ inputs, outDir: path.join(out, "generated"), hooksDir: path.join(out, "src"), validation: true });
    return undefined;
  } catch (error) {
    return error as Error;
  } finally {
    if (before === undefined) delete process.env["CRDGEN_WORKERS"];
    else process.env["CRDGEN_WORKERS"] = before;
  }
}

test("worker threads write the same bytes as one thread over the hostile schema fixtures", async () => {
  const inputs = hostileInputs();
  const serial = path.join(temp, "serial");
  const parallel = path.join(temp, "parallel");
  assert.equal(await generateWith("0", inputs, serial), undefined);
  assert.equal(await generateWith("3", inputs, parallel), undefined);
  const files = await listFiles(serial);
  assert.ok(files.length > 100, `the fixtures give many files (${files.length})`);
  assert.deepEqual(await listFiles(parallel), files);
  const differing = files.filter(
    (file) => !readFileSync(path.join(parallel, file)).equals(readFileSync(path.join(serial, file))),
  );
  assert.deepEqual(differing, [], "files whose bytes differ between one thread and three workers");
});

test("with worker threads a bad file gives the same located error as one thread, and nothing is written", async () => {
  const inputs = hostileInputs();
  const middle = Math.floor(inputs.length / 2);
  const withBad = [
    ...inputs.slice(0, middle),
    path.join(repoRoot, "test/fixtures/bad/no-schema.yaml"),
    ...inputs.slice(middle),
  ];
  const serial = path.join(temp, "bad-serial");
  const parallel = path.join(temp, "bad-parallel");
  const serialError = await generateWith("0", withBad, serial);
  const parallelError = await generateWith("3", withBad, parallel);
  assert.ok(parallelError, "the bad file fails the run");
  assert.equal(parallelError.message, serialError?.message);
  assert.match(
    parallelError.message,
    /no-schema\.yaml \(document 0\) at \/spec\/versions\/1\/schema\/openAPIV3Schema: spec\.versions\[1\]\.schema\.openAPIV3Schema: Required value/,
  );
  assert.deepEqual(await listFiles(parallel), [], "no file of the failed run is left");
});
