// The import rules, checked on the source: no cycles between files or between runtime folders; the runtime never
// imports the generator, explore or the samples; a sample's src/ never imports its tools/; the leaves (clock, log,
// metrics) import nothing of ours; controller/ never imports manager/; runtime and generator folders import only what
// their rows of ARCHITECTURE.md's tables allow (the generator's run one way: load -> model -> emit -> write). The
// graph comes from ts.preProcessFile over every .ts file of runtime/, generator/, explore/ and samples/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The repository root: this file runs as dist/test/architecture/imports.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const sourceRoots = ["runtime", "generator", "explore", "samples"];
const skipped = new Set(["node_modules", "dist", ".tmp"]);

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (skipped.has(e.name)) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [full] : [];
  });
}

const rel = (file: string) => path.relative(repoRoot, file).split(path.sep).join("/");

/** A module specifier of one of our packages, as the file it names ("@crdgen/runtime/cache" -> runtime/cache/index.ts). */
function packageTarget(spec: string): string | undefined {
  const m = /^@crdgen\/runtime(?:\/(.+))?$/.exec(spec);
  if (m) return `runtime/${m[1] ? `${m[1]}/` : ""}index.ts`;
  if (spec === "@crdgen/explore" || spec.startsWith("@crdgen/explore/")) return "explore/index.ts";
  if (spec === "crdgen" || spec.startsWith("crdgen/")) return "generator/index.ts";
  return undefined;
}

interface Edge {
  from: string;
  to: string;
  spec: string;
}

function importGraph(): { files: string[]; edges: Edge[] } {
  const files = sourceRoots
    .flatMap((r) => tsFiles(path.join(repoRoot, r)))
    .map(rel)
    .sort();
  const known = new Set(files);
  const edges: Edge[] = [];
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(path.join(repoRoot, file), "utf8"), true, true);
    for (const ref of info.importedFiles) {
      const spec = ref.fileName;
      let to: string | undefined;
      if (spec.startsWith(".")) {
        const resolved = rel(path.resolve(repoRoot, path.dirname(file), spec)).replace(/\.js$/, ".ts");
        to = known.has(resolved) ? resolved : known.has(`${resolved}/index.ts`) ? `${resolved}/index.ts` : resolved;
      } else to = packageTarget(spec);
      if (to !== undefined) edges.push({ from: file, to, spec });
    }
  }
  return { files, edges };
}

/** Strongly connected components with more than one member, or a member importing itself (Tarjan). */
function cycles(nodes: string[], edges: ReadonlyArray<{ from: string; to: string }>): string[][] {
  const out = new Map<string, string[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (;;) {
        const w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1 || (out.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}

const graph = importGraph();
const runtimeFolder = (file: string): string | undefined => /^runtime\/([^/]+)\//.exec(file)?.[1];

test("the graph covers the runtime, the generator and the sample", () => {
  for (const file of [
    "runtime/index.ts",
    "runtime/controller/controller.ts",
    "generator/cli.ts",
    "samples/mysql/src/main.ts",
  ]) {
    assert.ok(graph.files.includes(file), file);
  }
});

test("no import cycle between files", () => {
  assert.deepEqual(cycles(graph.files, graph.edges), [], "each entry lists the files of one cycle");
});

test("no import cycle between the runtime's folders", () => {
  // runtime/index.ts (the root) re-exports every folder and is no folder itself.
  const folderEdges = graph.edges
    .map((e) => ({ from: runtimeFolder(e.from), to: runtimeFolder(e.to), edge: e }))
    .filter(
      (e): e is { from: string; to: string; edge: Edge } =>
        e.from !== undefined && e.to !== undefined && e.from !== e.to,
    );
  const folders = [...new Set(folderEdges.flatMap((e) => [e.from, e.to]))].sort();
  const found = cycles(folders, folderEdges);
  const witnesses = found.map((c) =>
    folderEdges.filter((e) => c.includes(e.from) && c.includes(e.to)).map((e) => `${e.edge.from} -> ${e.edge.to}`),
  );
  assert.deepEqual(witnesses, [], "each entry lists the imports that close one cycle of folders");
});

test("the runtime never imports the generator, explore or the samples", () => {
  const bad = graph.edges.filter((e) => e.from.startsWith("runtime/") && /^(generator|explore|samples)\//.test(e.to));
  assert.deepEqual(
    bad.map((e) => `${e.from} imports ${e.spec}`),
    [],
  );
});

test("the leaves (clock, log, metrics) import nothing of ours from outside their folder", () => {
  const leaves = new Set(["clock", "log", "metrics"]);
  const bad = graph.edges.filter((e) => {
    const folder = runtimeFolder(e.from);
    return folder !== undefined && leaves.has(folder) && runtimeFolder(e.to) !== folder;
  });
  assert.deepEqual(
    bad.map((e) => `${e.from} imports ${e.spec}`),
    [],
  );
});

test("controller/ never imports manager/ (the manager runs controllers, not the reverse)", () => {
  const bad = graph.edges.filter((e) => runtimeFolder(e.from) === "controller" && runtimeFolder(e.to) === "manager");
  assert.deepEqual(
    bad.map((e) => `${e.from} imports ${e.spec}`),
    [],
  );
});

/** One of ARCHITECTURE.md's "Import rules" tables: a package's folder -> the folders of that package it may import. */
function allowedImports(pkg: "runtime" | "generator"): Map<string, Set<string>> {
  const doc = readFileSync(path.join(repoRoot, "ARCHITECTURE.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Import rules"));
  const header = `| ${pkg} folder | may import |`;
  assert.ok(section.includes(header), `ARCHITECTURE.md's import rules have a table headed "${header}"`);
  // The table's rows: the lines after its header (and the --- line) up to the first line that is not a row.
  const table = section.slice(section.indexOf(header)).split("\n").slice(2);
  const end = table.findIndex((line) => !line.startsWith("|"));
  const rows = (end === -1 ? table : table.slice(0, end)).map((line) => {
    const row = /^\| ([a-z]+) \| ([a-z, ]*)\|$/.exec(line);
    assert.ok(row, `a row of the ${pkg} table reads "| folder | a, b |": ${line}`);
    return row;
  });
  return new Map(
    rows.map((r) => [
      r[1]!,
      new Set(
        r[2]!
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ]),
  );
}

test("every runtime folder is in ARCHITECTURE.md's import table, and imports only the folders its row allows", () => {
  const allowed = allowedImports("runtime");
  const folders = readdirSync(path.join(repoRoot, "runtime"), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !skipped.has(e.name))
    .map((e) => e.name)
    .sort();
  assert.deepEqual([...allowed.keys()].sort(), folders, "the table lists exactly the runtime's folders");
  const bad = graph.edges.filter((e) => {
    const from = runtimeFolder(e.from);
    const to = runtimeFolder(e.to);
    return from !== undefined && to !== undefined && from !== to && !allowed.get(from)?.has(to);
  });
  assert.deepEqual(
    bad.map((e) => `${e.from} imports ${e.spec}`),
    [],
  );
});

const generatorFolder = (file: string): string | undefined => /^generator\/([^/]+)\//.exec(file)?.[1];
/** The generator's top-level files that run the phases; its other top-level files are leaves. */
const generatorEntries = new Set(["generator/cli.ts", "generator/generate.ts"]);

test("every generator folder is in ARCHITECTURE.md's import table, and imports only the folders its row allows", () => {
  const allowed = allowedImports("generator");
  const folders = readdirSync(path.join(repoRoot, "generator"), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !skipped.has(e.name))
    .map((e) => e.name)
    .sort();
  assert.deepEqual([...allowed.keys()].sort(), folders, "the table lists exactly the generator's folders");
  const bad = graph.edges.filter((e) => {
    const from = generatorFolder(e.from);
    const to = generatorFolder(e.to);
    return from !== undefined && to !== undefined && from !== to && !allowed.get(from)?.has(to);
  });
  assert.deepEqual(
    bad.map((e) => `${e.from} imports ${e.spec}`),
    [],
  );
});

test("the generator's table runs one way: no cycle between its folders, so the pipeline has an order", () => {
  const allowed = allowedImports("generator");
  const rows = [...allowed].flatMap(([from, tos]) => [...tos].map((to) => ({ from, to })));
  assert.deepEqual(cycles([...allowed.keys()], rows), [], "each entry lists the folders of one cycle in the table");
});

test("no generator folder imports cli.ts or generate.ts; the other top-level files import only each other", () => {
  const isLeaf = (file: string) => /^generator\/[^/]+\.ts$/.test(file) && !generatorEntries.has(file);
  const bad = graph.edges.filter(
    (e) =>
      (generatorFolder(e.from) !== undefined && generatorEntries.has(e.to)) ||
      (isLeaf(e.from) && e.to.startsWith("generator/") && !isLeaf(e.to)),
  );
  assert.deepEqual(
    bad.map((e) => `${e.from} imports ${e.spec}`),
    [],
  );
});

test("generated code imports only the runtime, @kubernetes/client-node, its own files and the user's hooks", () => {
  const generated = graph.files.filter((f) => /^samples\/[^/]+\/generated\//.test(f));
  assert.ok(generated.length > 0, "the sample's generated files are in the graph");
  const bad = generated.flatMap((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(repoRoot, file), "utf8"), true, true);
    return importedFiles
      .map((ref) => ref.fileName)
      .filter((spec) => {
        if (/^@crdgen\/runtime(\/|$)/.test(spec) || spec === "@kubernetes/client-node") return false;
        if (!spec.startsWith(".")) return true;
        const target = rel(path.resolve(repoRoot, path.dirname(file), spec));
        return !/^samples\/[^/]+\/(generated|src)\//.test(target);
      })
      .map((spec) => `${file} imports ${spec}`);
  });
  assert.deepEqual(bad, []);
});

test("a sample's operator (src/) never imports its tooling (tools/: demo, deploy manifests)", () => {
  const sampleDir = (file: string) => /^samples\/[^/]+\//.exec(file)?.[0];
  assert.ok(
    graph.files.some((f) => /^samples\/[^/]+\/tools\//.test(f)),
    "the sample's tools are in the graph",
  );
  const bad = graph.edges.filter(
    (e) => /^samples\/[^/]+\/src\//.test(e.from) && e.to.startsWith(`${sampleDir(e.from)}tools/`),
  );
  assert.deepEqual(
    bad.map((e) => `${e.from} imports ${e.spec}`),
    [],
  );
});

test("the generator never imports tree-sitter (explore's parsers are explore's own)", () => {
  const bad = graph.files
    .filter((f) => f.startsWith("generator/"))
    .filter((f) => /["'](web-)?tree-sitter/.test(readFileSync(path.join(repoRoot, f), "utf8")));
  assert.deepEqual(bad, []);
});
