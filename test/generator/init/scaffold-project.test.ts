// crdgen init's generate scripts, run through this checkout's CLI in the scaffolded folder (no npm install: the
// integration test does that once for the default scaffold).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const crdgenBin = path.join(repoRoot, "bin", "crdgen.js");
const multiVersionCrd = path.join(repoRoot, "test", "fixtures", "webhooks", "gizmo.yaml");

interface Scaffold {
  scripts: Record<string, string>;
  readme: string;
}

/** `crdgen init <dir> [args]`, then its package.json scripts and README. */
function scaffold(t: { after(fn: () => void): void }, args: string[]): { project: string } & Scaffold {
  const root = mkdtempSync(path.join(os.tmpdir(), "crdgen-init-unit-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const project = path.join(root, "op");
  // Explicit specs: from a checkout, init would pack crdgen and the runtime into vendor/ (install.integration.test).
  const specs = ["--crdgen-spec", "^0.1.0", "--runtime-spec", "^0.1.0"];
  const init = spawnSync(process.execPath, [crdgenBin, "init", project, ...specs, ...args], { encoding: "utf8" });
  assert.equal(init.status, 0, init.stderr);
  const { scripts } = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8")) as Scaffold;
  return { project, scripts, readme: readFileSync(path.join(project, "README.md"), "utf8") };
}

/** One of the scaffold's `crdgen ...` scripts, run by this checkout's bin in the project folder. */
function runScript(project: string, script: string) {
  const [command, ...args] = script.split(" ");
  assert.equal(command, "crdgen", `the script runs crdgen: ${script}`);
  return spawnSync(process.execPath, [crdgenBin, ...args], { cwd: project, encoding: "utf8" });
}

test("crdgen init --crdgen-spec/--runtime-spec: package.json depends on those specs, nothing is packed", (t) => {
  const { project } = scaffold(t, []);
  const pkg = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  assert.equal(pkg.devDependencies["crdgen"], "^0.1.0");
  assert.equal(pkg.dependencies["@crdgen/runtime"], "^0.1.0");
  assert.ok(!existsSync(path.join(project, "vendor")), "no vendor/ folder");
});

test("crdgen init without --webhooks: the generate scripts make no webhook files", (t) => {
  const { project, scripts, readme } = scaffold(t, []);
  assert.doesNotMatch(scripts["generate"]!, /--webhooks/);
  assert.doesNotMatch(readme, /webhooks\.ts/);
  copyFileSync(multiVersionCrd, path.join(project, "crds", "gizmo.yaml"));
  const generated = runScript(project, scripts["generate"]!);
  assert.equal(generated.status, 0, generated.stderr);
  assert.ok(existsSync(path.join(project, "src", "gizmo.hooks.ts")));
  assert.ok(!existsSync(path.join(project, "src", "gizmo.webhooks.ts")), "no webhooks file without --webhooks");
});

test("crdgen init --webhooks: both generate scripts pass --webhooks, so each kind gets its webhook files", (t) => {
  const { project, scripts, readme } = scaffold(t, ["--webhooks"]);
  assert.match(readme, /src\/<kind>\.webhooks\.ts/);
  assert.match(readme, /test\/<kind>\.webhooks\.test\.ts/, "the README names the scaffolded webhooks test");
  copyFileSync(multiVersionCrd, path.join(project, "crds", "gizmo.yaml"));
  const generated = runScript(project, scripts["generate"]!);
  assert.equal(generated.status, 0, generated.stderr);
  const files = [
    "src/gizmo.webhooks.ts",
    "src/gizmo.conversion.ts",
    "src/generated/webhooks.ts",
    "test/gizmo.webhooks.test.ts",
  ];
  for (const file of files) assert.ok(existsSync(path.join(project, file)), `npm run generate created ${file}`);
  assert.match(readFileSync(path.join(project, "src", "main.ts"), "utf8"), /newWebhooks/);
  // The check script generates the same way: the folder just written is up to date for it.
  const checked = runScript(project, scripts["generate:check"]!);
  assert.equal(checked.status, 0, checked.stderr);
  assert.match(checked.stdout, /up to date/);
});
