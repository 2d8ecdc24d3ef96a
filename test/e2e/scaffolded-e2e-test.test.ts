// A project made by `crdgen init` from this checkout runs its scaffolded test/<kind>.e2e.test.ts against the local
// control plane: `npm run test:e2e` (crdgen envtest for KUBEBUILDER_ASSETS, then node --test) passes them, and plain
// `npm test` leaves them out. The project's packages are links to this checkout: nothing comes from a registry.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "./control-plane.js";
import { crdgenBin, linkPackages, runInProject } from "./linked-project.js";

/** One kind of each scope; both are valid without a spec, as the scaffolded test creates them. */
const crds = {
  "gadget.yaml": "test/fixtures/schema/closed-and-empty-object/crd.yaml",
  "storagepool.yaml": "test/fixtures/schema/cluster-scoped/crd.yaml",
};

const temps: string[] = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The project's commands: KUBEBUILDER_ASSETS only as its scripts set it. */
const run = (command: string, args: string[], cwd: string) =>
  runInProject(command, args, cwd, { drop: ["KUBEBUILDER_ASSETS"] });

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
