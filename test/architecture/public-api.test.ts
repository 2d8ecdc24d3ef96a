// The runtime's public API, held by a snapshot (a light apidiff): every name each entry point of runtime/package.json
// "exports" publishes, values and types, read from the compiled .d.ts by the TypeScript checker. Adding, removing or
// turning a value into a type is a visible decision: the snapshot changes in the same commit.
// UPDATE_API=1 node --test dist/test/architecture/public-api.test.js rewrites public-api.snapshot.txt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The repository root: this file runs as dist/test/architecture/public-api.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const runtimeDir = path.join(repoRoot, "runtime");
const snapshotFile = path.join(repoRoot, "test", "architecture", "public-api.snapshot.txt");
const updateApi = process.env["UPDATE_API"] === "1";

interface EntryPoint {
  /** The import specifier: @crdgen/runtime or @crdgen/runtime/<subpath>. */
  specifier: string;
  /** The compiled declarations the "types" condition names. */
  declarations: string;
  /** Its source: runtime/index.ts or runtime/<subpath>/index.ts. */
  source: string;
}

function entryPoints(): EntryPoint[] {
  const pkg = JSON.parse(readFileSync(path.join(runtimeDir, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, { types: string }>;
  };
  return Object.entries(pkg.exports).map(([key, conditions]) => ({
    specifier: key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`,
    declarations: path.join(runtimeDir, conditions.types),
    source: path.join(runtimeDir, key === "." ? "index.ts" : path.join(key.slice(2), "index.ts")),
  }));
}

const entries = entryPoints();

/** One snapshot line per name: `<specifier> <name>`, or `<specifier> type <name>` for a name with no value. */
function declaredApi(): Map<string, string[]> {
  const program = ts.createProgram(
    entries.map((e) => e.declarations),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    },
  );
  const checker = program.getTypeChecker();
  const api = new Map<string, string[]>();
  for (const entry of entries) {
    const file = program.getSourceFile(entry.declarations);
    assert.ok(file, `${entry.declarations} exists (build first: npx tsc -b)`);
    const names = checker.getExportsOfModule(checker.getSymbolAtLocation(file)!).map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return target.flags & ts.SymbolFlags.Value ? symbol.name : `type ${symbol.name}`;
    });
    api.set(entry.specifier, names.sort(byName));
  }
  return api;
}

/** By name, a type marker aside, in code-point order (no locale). */
function byName(a: string, b: string): number {
  const [x, y] = [a.replace(/^type /, ""), b.replace(/^type /, "")];
  return x < y ? -1 : x > y ? 1 : 0;
}

function render(api: Map<string, string[]>): string {
  return [...api].flatMap(([specifier, names]) => names.map((name) => `${specifier} ${name}`)).join("\n") + "\n";
}

function parse(text: string): Map<string, string[]> {
  const api = new Map<string, string[]>();
  for (const line of text.split("\n").filter((l) => l !== "")) {
    const space = line.indexOf(" ");
    const specifier = line.slice(0, space);
    api.set(specifier, [...(api.get(specifier) ?? []), line.slice(space + 1)]);
  }
  return api;
}

/** Per entry point, the names added and removed against the snapshot; empty when they agree. */
function apiDiff(snapshot: Map<string, string[]>, current: Map<string, string[]>): string[] {
  const report: string[] = [];
  for (const specifier of new Set([...snapshot.keys(), ...current.keys()])) {
    const before = new Set(snapshot.get(specifier) ?? []);
    const now = new Set(current.get(specifier) ?? []);
    const added = [...now].filter((n) => !before.has(n));
    const removed = [...before].filter((n) => !now.has(n));
    if (added.length === 0 && removed.length === 0) continue;
    report.push(`${specifier}:`);
    if (added.length > 0) report.push(`  added:   ${added.join(", ")}`);
    if (removed.length > 0) report.push(`  removed: ${removed.join(", ")}`);
  }
  return report;
}

const current = declaredApi();

test("every entry point publishes exactly the names in public-api.snapshot.txt", () => {
  if (updateApi) writeFileSync(snapshotFile, render(current));
  assert.ok(existsSync(snapshotFile), "public-api.snapshot.txt is missing: UPDATE_API=1 writes it");
  const diff = apiDiff(parse(readFileSync(snapshotFile, "utf8")), current);
  assert.deepEqual(
    diff,
    [],
    `The runtime's public API changed:\n${diff.join("\n")}\nWhen that is meant, rewrite the snapshot and commit it ` +
      "with the change: UPDATE_API=1 node --test dist/test/architecture/public-api.test.js",
  );
});

test("the values each entry point exports at run time are exactly its declared values", async () => {
  for (const entry of entries) {
    const values = Object.keys((await import(entry.specifier)) as object).sort();
    const declared = current
      .get(entry.specifier)!
      .filter((n) => !n.startsWith("type "))
      .sort();
    assert.deepEqual(values, declared, entry.specifier);
  }
});

test("each entry point lists its names: no export * in an index.ts", () => {
  const starred = entries.filter((e) => /^export \* from /m.test(readFileSync(e.source, "utf8")));
  assert.deepEqual(
    starred.map((e) => path.relative(repoRoot, e.source)),
    [],
  );
});

test("only the tests import the runtime's internals (#runtime/...)", () => {
  const skipped = new Set(["node_modules", "dist", ".tmp", "fixtures"]);
  const tsFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      if (skipped.has(e.name)) return [];
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return tsFiles(full);
      return /\.(ts|mts|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [full] : [];
    });
  const outside = ["generator", "samples", "explore", "bench", "runtime"]
    .map((d) => path.join(repoRoot, d))
    .filter((d) => existsSync(d))
    .flatMap(tsFiles)
    .filter((f) =>
      ts
        .preProcessFile(readFileSync(f, "utf8"), true, true)
        .importedFiles.some((i) => i.fileName.startsWith("#runtime/")),
    )
    .map((f) => path.relative(repoRoot, f));
  assert.deepEqual(outside, [], "these import #runtime/...: use the package's entry points");
});
