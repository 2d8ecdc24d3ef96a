// The root of @crdgen/runtime is the operator author's API: its names (values and types) are exactly the list in
// README.md's "The runtime's API", and its subpaths are exactly the ones that section and runtime/package.json name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import * as root from "@crdgen/runtime";

/** The repository root: this file runs as dist/test/runtime/root-exports.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
const section = readme.slice(
  readme.indexOf("## The runtime's API"),
  readme.indexOf("\n## ", readme.indexOf("## The runtime's API") + 1),
);

/** Every name runtime/index.ts exports, types included, read by the TypeScript checker. */
function declaredRootExports(): string[] {
  const index = path.join(repoRoot, "runtime", "index.ts");
  const program = ts.createProgram([index], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(index)!)!;
  return checker
    .getExportsOfModule(module)
    .map((s) => s.name)
    .sort();
}

/** The first-column names of the README table whose header is `| <header> | what |`. */
function readmeTable(header: string): string[] {
  const start = section.indexOf(`| ${header} | what |`);
  assert.ok(start >= 0, `README's "The runtime's API" has a "| ${header} | what |" table`);
  const rows = section.slice(start).split("\n").slice(2);
  const names: string[] = [];
  for (const row of rows) {
    const m = /^\| `([^`]+)` \|/.exec(row);
    if (!m) break;
    names.push(m[1]!);
  }
  return names;
}

test("README.md lists exactly the names the root exports", () => {
  const listed = readmeTable("name");
  assert.equal(new Set(listed).size, listed.length, "each name is listed once");
  assert.deepEqual(
    [...listed].sort(),
    declaredRootExports(),
    "runtime/index.ts and README's list differ: update both together",
  );
});

test("every value the root exports at run time is in the list (no name slips through an export *)", () => {
  const declared = new Set(declaredRootExports());
  assert.deepEqual(
    Object.keys(root).filter((k) => !declared.has(k)),
    [],
  );
});

test("the root stays small: about 40 names", () => {
  assert.ok(declaredRootExports().length <= 45, `${declaredRootExports().length} names on the root`);
});

test("README.md lists exactly the subpaths runtime/package.json exports", () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "runtime", "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
  };
  const exported = Object.keys(pkg.exports)
    .filter((k) => k !== ".")
    .map((k) => `@crdgen/runtime/${k.slice(2)}`)
    .sort();
  assert.deepEqual([...readmeTable("subpath")].sort(), exported);
});

test("each subpath's index.ts opens with a one-line comment naming it", () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "runtime", "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
  };
  for (const key of Object.keys(pkg.exports).filter((k) => k !== ".")) {
    const first = readFileSync(path.join(repoRoot, "runtime", key.slice(2), "index.ts"), "utf8").split("\n")[0]!;
    assert.match(first, new RegExp(`^// @crdgen/runtime/${key.slice(2)}: \\S`), `runtime/${key.slice(2)}/index.ts`);
  }
});
