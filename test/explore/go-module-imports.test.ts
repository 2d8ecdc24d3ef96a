// The module's own imports resolve however the tree is given: several sub-folders of one module (their common folder
// holds the go.mod, and is not walked itself), and imports whose last path element is not the package's name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const built = (file: string) => import(path.join(repoRoot, "explore", "dist", file));
type Module = { modulePath: string; dir: string };
const { discover } = (await built("discover.js")) as { discover: (dirs: string[]) => { goModules: Module[] } };
const { goParser, readGoFile } = (await built("go/read-file.js")) as {
  goParser: () => Promise<unknown>;
  readGoFile: (
    parser: unknown,
    source: { file: string; text: string },
    modules: Module[],
  ) => { facts: { calls: { text: string; callee?: string; recv?: string }[] } };
};

test("sub-folders of one module given together: the go.mod of their common folder names the module", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-go-modules-"));
  try {
    writeFileSync(path.join(dir, "go.mod"), "module example.com/op\n\ngo 1.22\n");
    for (const sub of ["pkg/controllers", "cmd/op"]) {
      mkdirSync(path.join(dir, sub), { recursive: true });
      writeFileSync(path.join(dir, sub, "a.go"), `package ${path.basename(sub)}\n`);
    }
    const found = discover([path.join(dir, "pkg/controllers"), path.join(dir, "cmd/op")]);
    assert.deepEqual(found.goModules, [{ modulePath: "example.com/op", dir: "" }]);
    assert.deepEqual(discover([path.join(dir, "cmd/op")]).goModules, [
      { modulePath: "example.com/op/cmd/op", dir: "" },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an unaliased import is named as Go's tools assume: up to the first character not in an identifier", async () => {
  const text = [
    "package main",
    "",
    "import (",
    '\t"example.com/op/pkg/synchronization-controller"',
    '\t"example.com/op/pkg/go-widgets"',
    '\t"example.com/op/api/v1"',
    ")",
    "",
    "func main() {",
    "\tsynchronization.NewController()",
    "\twidgets.New()",
    "\tv1.Default()",
    "}",
    "",
  ].join("\n");
  const modules = [{ modulePath: "example.com/op", dir: "" }];
  const { facts } = readGoFile(await goParser(), { file: "cmd/main.go", text }, modules);
  const callees = Object.fromEntries(facts.calls.map((c) => [c.text, c.callee]));
  assert.deepEqual(callees, {
    "synchronization.NewController": "go:pkg/synchronization-controller.NewController",
    "widgets.New": "go:pkg/go-widgets.New",
    "v1.Default": "go:api/v1.Default",
  });
});
