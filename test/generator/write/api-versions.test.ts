// A CRD's API versions change (renamed, storage moved) and CRDs go, and the user's project still builds: user files
// import a kind's version-free module, and what is still broken is listed one line each with what to do.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { stringify } from "yaml";
import { compileOutput, repoRoot, repoTempDir } from "../support/compile-output.js";
import { readTree } from "../support/read-tree.js";

const crdgenBin = path.join(repoRoot, "bin", "crdgen.js");
const temps: string[] = [];
after(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A project folder inside the repository (so its code resolves @crdgen/runtime), with crds/. */
function project(): string {
  const dir = repoTempDir("api-versions-");
  temps.push(dir);
  mkdirSync(path.join(dir, "crds"));
  return dir;
}

interface Version {
  name: string;
  storage: boolean;
}

function writeCrd(dir: string, kind: string, versions: Version[]): void {
  const plural = `${kind.toLowerCase()}s`;
  const group = "shop.example.com";
  const schema = {
    type: "object",
    properties: {
      spec: { type: "object", properties: { size: { type: "integer" } } },
      status: { type: "object", properties: { ready: { type: "boolean" } } },
    },
  };
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase() },
      scope: "Namespaced",
      versions: versions.map((v) => ({
        name: v.name,
        served: true,
        storage: v.storage,
        subresources: { status: {} },
        schema: { openAPIV3Schema: schema },
      })),
    },
  };
  writeFileSync(path.join(dir, "crds", `${kind.toLowerCase()}.yaml`), stringify(crd));
}

/** crdgen generate as a project's npm script runs it, from the project's folder. */
function generate(dir: string, ...extra: string[]): { stdout: string; stderr: string } {
  const args = ["generate", "crds", "--out", "src/generated", "--hooks", "src", "--tests", "test", ...extra];
  const run = spawnSync(process.execPath, [crdgenBin, ...args], { cwd: dir, encoding: "utf8" });
  if (run.error) throw run.error;
  assert.equal(run.status, 0, `crdgen ${args.join(" ")}:\n${run.stdout}${run.stderr}`);
  return run;
}

/** What a run said about the user's files: stderr without the list of removed generated files. */
const reported = (run: { stderr: string }): string =>
  run.stderr
    .split("\n")
    .filter((line) => !line.startsWith("removed: "))
    .join("\n");

/** The user's files (everything but the generated folder), path -> text. */
async function userFiles(dir: string): Promise<Map<string, string>> {
  const tree = await readTree(dir);
  return new Map([...tree].filter(([f]) => /^(src|test)\//.test(f) && !f.startsWith("src/generated/")));
}

function assertCompiles(dir: string): void {
  const compiled = compileOutput(dir);
  assert.equal(compiled.status, 0, compiled.output);
  rmSync(compiled.jsDir, { recursive: true, force: true });
}

test("a renamed version: the user's files are untouched, nothing is reported, and the project compiles", async () => {
  const dir = project();
  writeCrd(dir, "Cart", [{ name: "v1alpha1", storage: true }]);
  generate(dir, "--webhooks", "--validation");
  const before = await userFiles(dir);
  assert.match(before.get("src/cart.hooks.ts")!, /from "\.\/generated\/shop\.example\.com\/cart\.js";/);

  writeCrd(dir, "Cart", [{ name: "v1beta1", storage: true }]);
  const run = generate(dir, "--webhooks", "--validation");
  assert.equal(reported(run), "", "no hooks changed, no stale import, no orphan");
  assert.deepEqual(await userFiles(dir), before, "no user file changed, no .new file");
  assert.ok(!existsSync(path.join(dir, "src/generated/shop.example.com/v1alpha1")), "the old version's folder is gone");
  assertCompiles(dir);
});

test("a storage version moved: the user's files are untouched, nothing is reported, and the project compiles", async () => {
  const dir = project();
  writeCrd(dir, "Cart", [
    { name: "v1alpha1", storage: true },
    { name: "v1", storage: false },
  ]);
  generate(dir);
  const before = await userFiles(dir);
  assert.match(
    readFileSync(path.join(dir, "src/generated/shop.example.com/cart.ts"), "utf8"),
    /^export \* from "\.\/v1alpha1\/cart\.controller\.js";$/m,
  );

  writeCrd(dir, "Cart", [
    { name: "v1alpha1", storage: false },
    { name: "v1", storage: true },
  ]);
  const run = generate(dir);
  assert.equal(reported(run), "");
  assert.deepEqual(await userFiles(dir), before);
  assert.match(
    readFileSync(path.join(dir, "src/generated/shop.example.com/cart.ts"), "utf8"),
    /^export \* from "\.\/v1\/cart\.controller\.js";$/m,
    "the kind module follows the storage version",
  );
  assertCompiles(dir);
});

test("user files importing a version's modules that are gone are listed one per line, with the import to use", () => {
  const dir = project();
  writeCrd(dir, "Cart", [{ name: "v1alpha1", storage: true }]);
  generate(dir);
  // A file of the user's that imports a version's module, as the files of an earlier crdgen did.
  writeFileSync(
    path.join(dir, "src/cart-helpers.ts"),
    [
      'import type { Cart } from "./generated/shop.example.com/v1alpha1/cart.types.js";',
      'import { newCartClient } from "./generated/shop.example.com/v1alpha1/cart.client.js";',
      'import { newControllers } from "./generated/controllers.js";',
      "export type Carts = Cart[];",
      "export { newCartClient, newControllers };",
      "",
    ].join("\n"),
  );
  writeCrd(dir, "Cart", [{ name: "v1", storage: true }]);
  const run = generate(dir);
  assert.equal(
    reported(run),
    [
      "src/cart-helpers.ts:1: imports ./generated/shop.example.com/v1alpha1/cart.types.js, which is gone: " +
        "import from ./generated/shop.example.com/cart.js",
      "src/cart-helpers.ts:2: imports ./generated/shop.example.com/v1alpha1/cart.client.js, which is gone: " +
        "import from ./generated/shop.example.com/cart.js",
      "",
    ].join("\n"),
  );
  // With the suggested import, it compiles again.
  const helpers = path.join(dir, "src/cart-helpers.ts");
  writeFileSync(helpers, readFileSync(helpers, "utf8").replace(/v1alpha1\/cart\.(types|client)\.js/g, "cart.js"));
  assert.equal(reported(generate(dir)), "");
  assertCompiles(dir);
});

test("the user files of a removed CRD are listed as orphans, with what to do, and nothing else is", () => {
  const dir = project();
  writeCrd(dir, "Cart", [{ name: "v1", storage: true }]);
  writeCrd(dir, "Order", [{ name: "v1", storage: true }]);
  generate(dir);
  rmSync(path.join(dir, "crds/order.yaml"));
  const run = generate(dir);
  assert.equal(
    reported(run),
    [
      "src/order.hooks.ts: no CRD generates Order any more; delete it or restore the CRD",
      "test/order.e2e.test.ts: no CRD generates Order any more; delete it or restore the CRD",
      "test/order.hooks.test.ts: no CRD generates Order any more; delete it or restore the CRD",
      "",
    ].join("\n"),
  );
  assert.ok(existsSync(path.join(dir, "src/order.hooks.ts")), "an orphan is the user's: never deleted");
  // Deleting them, as the message says, leaves a project that compiles.
  for (const file of ["src/order.hooks.ts", "test/order.e2e.test.ts", "test/order.hooks.test.ts"])
    rmSync(path.join(dir, file));
  assertCompiles(dir);
});
