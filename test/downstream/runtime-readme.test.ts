// runtime/README.md ships in @crdgen/runtime: its root table names exactly what runtime/index.ts exports and its
// subpath table exactly the subpaths of runtime/package.json "exports", so the package's own page does not drift.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const runtimeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../runtime");
const readme = readFileSync(path.join(runtimeDir, "README.md"), "utf8");

/** The rows of the README table under `## <heading>`: each row's cells. */
function tableRows(heading: string): string[][] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `runtime/README.md has a "## ${heading}" section`);
  const end = readme.indexOf("\n## ", start + 1);
  const lines = readme.slice(start, end < 0 ? undefined : end).split("\n");
  const rows = lines.filter((line) => line.startsWith("| ")).slice(2);
  assert.ok(rows.length > 0, `"## ${heading}" has a table`);
  return rows.map((row) => row.split(" | ").map((cell) => cell.replace(/^\| |\s*\|$/g, "")));
}

const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** Every name runtime/index.ts exports, types included, read by the TypeScript checker. */
function rootExports(): string[] {
  const index = path.join(runtimeDir, "index.ts");
  const program = ts.createProgram([index], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(index)!)!;
  return checker.getExportsOfModule(module).map((s) => s.name);
}

test("runtime/README.md's root table names exactly the root's exports", () => {
  const listed = tableRows("The root: `@crdgen/runtime`").flatMap((cells) => codeSpans(cells[1] ?? ""));
  assert.equal(new Set(listed).size, listed.length, "each name is listed once");
  assert.deepEqual([...listed].sort(), rootExports().sort(), "runtime/index.ts and runtime/README.md differ");
});

test("runtime/README.md's subpath table names exactly the package's exported subpaths", () => {
  const { exports } = JSON.parse(readFileSync(path.join(runtimeDir, "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
  };
  const subpaths = Object.keys(exports)
    .filter((key) => key !== ".")
    .map((key) => `@crdgen/runtime/${key.slice(2)}`);
  const listed = tableRows("Subpaths").map((cells) => codeSpans(cells[0] ?? "")[0]);
  assert.deepEqual(
    [...listed].sort(),
    subpaths.sort(),
    'runtime/package.json "exports" and the "## Subpaths" table of runtime/README.md differ: update both together',
  );
});
