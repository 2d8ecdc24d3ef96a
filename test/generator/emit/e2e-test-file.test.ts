// --tests scaffolds <kind>.e2e.test.ts for a CRD read from a file, naming that file from the folder crdgen runs in
// (where npm runs the tests); a CRD from stdin has no file to install, so it gets none.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generate } from "../../../generator/generate.js";

/** The repository root: this file runs as dist/test/generator/emit/e2e-test-file.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const crd = "test/fixtures/schema/cluster-scoped/crd.yaml";

async function project(inputs: string[], stdin?: () => Promise<string>) {
  process.chdir(repoRoot);
  const dir = await mkdtemp(path.join(tmpdir(), "crdgen-e2e-test-file-"));
  await generate({
    inputs,
    ...(stdin ? { stdin } : {}),
    outDir: path.join(dir, "generated"),
    hooksDir: path.join(dir, "src"),
    testsDir: path.join(dir, "test"),
  });
  return dir;
}

test("a CRD from a file: test/<kind>.e2e.test.ts installs that file, named from where crdgen ran", async () => {
  const dir = await project([path.join(repoRoot, crd)]);
  try {
    const e2e = readFileSync(path.join(dir, "test", "storagepool.e2e.test.ts"), "utf8");
    assert.match(e2e, /^\/\/ User-owned: /);
    assert.ok(e2e.includes(`const crdFile = path.resolve(${JSON.stringify(crd)});`), e2e);
    assert.ok(e2e.includes(`import * as storagePoolHooks from "../src/storagepool.hooks.js";`), e2e);
    assert.ok(e2e.includes("const created = await newStoragePoolClient(kube).create(example);"), "cluster-scoped");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a CRD from stdin: its hooks test but no e2e test", async () => {
  const dir = await project(["-"], () => Promise.resolve(readFileSync(path.join(repoRoot, crd), "utf8")));
  try {
    assert.ok(existsSync(path.join(dir, "test", "storagepool.hooks.test.ts")));
    assert.ok(!existsSync(path.join(dir, "test", "storagepool.e2e.test.ts")));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
