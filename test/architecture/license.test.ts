// Every package ships the licence its package.json declares: npm packs a LICENSE only from the package's own folder,
// so runtime/ and explore/ carry copies of the root's, which must stay identical to it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: this file runs as dist/test/architecture/license.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");

test("the root LICENSE is the Apache License 2.0 the packages declare", () => {
  assert.match(read("LICENSE"), /^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
  for (const dir of [".", "runtime", "explore"]) {
    const manifest = JSON.parse(read(path.join(dir, "package.json"))) as { license?: string };
    assert.equal(manifest.license, "Apache-2.0", `${dir}/package.json`);
  }
});

test("runtime/ and explore/ ship a copy of the root LICENSE", () => {
  for (const dir of ["runtime", "explore"]) assert.equal(read(`${dir}/LICENSE`), read("LICENSE"), `${dir}/LICENSE`);
});
