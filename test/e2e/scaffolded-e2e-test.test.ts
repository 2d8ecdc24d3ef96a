// A project made by `crdgen init` from this checkout runs its scaffolded test/<kind>.e2e.test.ts against the local
// control plane: `npm run test:e2e` (crdgen envtest for KUBEBUILDER_ASSETS, then node --test) passes them, and plain
// `npm test` leaves them out. The project's packages are links to this checkout: nothing comes from a registry.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "./control-plane.js";

const crdgenBin = path.join(repoRoot, "bin", "crdgen.js");
/** One kind of each scope; both are valid without a spec, as the scaffolded test creates them. */
const crds = {
  "gadget.yaml": "test/fixtures/schema/closed-and-empty-object/crd.yaml",
  "storagepool.yaml": "test/fixtures/schema/cluster-scoped/crd.yaml",
};

const temps: string[] = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/**
 * The project's commands' environment: not nested in this test run, and KUBEBUILDER_ASSETS only as its scripts set it.
 */
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k !== "NODE_TEST_CONTEXT" && k !== "KUBEBUILDER_ASSETS"),
);

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 600_000, env: childEnv });
  if (result.error) throw new Error(`${command} ${args.join(" ")} could not run in ${cwd}: ${result.error.message}`);
  const output = result.stdout + result.stderr;
  assert.equal(result.status, 0, `${command} ${args.join(" ")} (in ${cwd}) exited ${result.status}:\n${output}`);
  return output;
}

/** node_modules of the project as links into this checkout: crdgen and @crdgen/runtime, and what their scripts run. */
function linkPackages(project: string) {
  const modules = path.join(project, "node_modules");
  const link = (name: string, target: string) => {
    mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
    symlinkSync(target, path.join(modules, name), "dir");
  };
  link("crdgen", repoRoot);
  link("@crdgen/runtime", path.join(repoRoot, "runtime"));
  for (const name of ["@kubernetes/client-node", "@types/node", "typescript"])
    link(name, path.join(repoRoot, "node_modules", name));
  mkdirSync(path.join(modules, ".bin"));
  symlinkSync(path.join("..", "crdgen", "bin", "crdgen.js"), path.join(modules, ".bin", "crdgen"));
  symlinkSync(path.join("..", "typescript", "bin", "tsc"), path.join(modules, ".bin", "tsc"));
}

test("a crdgen init project passes its scaffolded e2e tests with npm run test:e2e; npm test leaves them out", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "crdgen-scaffold-e2e-"));
  temps.push(root);
  const project = path.join(root, "my-operator");
  run(process.execPath, [crdgenBin, "init", project], root);
  linkPackages(project);
  for (const [name, fixture] of Object.entries(crds))
    copyFileSync(path.join(repoRoot, fixture), path.join(project, "crds", name));

  run("npm", ["run", "generate"], project);
  for (const file of ["test/gadget.e2e.test.ts", "test/storagepool.e2e.test.ts"])
    assert.ok(existsSync(path.join(project, file)), `npm run generate created ${file}`);

  // Each e2e test waits until its kind's reconcile ran on a real API server; the hooks tests are not among them.
  const e2e = run("npm", ["run", "test:e2e"], project);
  assert.match(e2e, /^# pass 2$/m, e2e);
  assert.match(e2e, /^# skipped 0$/m, e2e);
  assert.match(e2e, /^ok \d+ - Gadget on a local control plane$/m, e2e);
  assert.match(e2e, /^ok \d+ - StoragePool on a local control plane$/m, e2e);

  // npm test runs the hooks tests only: no e2e suite, skipped or not.
  const unit = run("npm", ["test"], project);
  assert.match(unit, /^# pass 2$/m, unit);
  assert.doesNotMatch(unit, /on a local control plane/, unit);
});
