// Every real-world CRD in ../shared/crds generates (with --validation), and the generated operator code type-checks
// under strict TypeScript; so does its --format output, which parses and is the same program (the same tokens).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { generate } from "../../generator/generate.js";
import { listFiles } from "./support/read-tree.js";
import { programTokens, syntaxErrors } from "./support/typescript-tokens.js";

/** The repo root: this file runs as dist/test/generator/corpus.integration.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const corpusDir = path.resolve(repoRoot, "../shared/crds");
/** Inside the repo (gitignored .tmp/) so the generated code resolves @crdgen/runtime and @kubernetes/client-node from node_modules. */
const workDir = path.join(repoRoot, ".tmp", `corpus-${process.pid}`);

after(() => rmSync(workDir, { recursive: true, force: true }));

interface CorpusFile {
  /** <project>/<file>.yaml, as MANIFEST.tsv and FEATURES.tsv name it. */
  name: string;
  path: string;
  /** Where its output goes, relative to workDir: <project>/<stem>/. */
  dir: string;
}

interface CorpusRun {
  files: CorpusFile[];
  manifestCount: number;
  generateFailures: Array<{ file: string; error: string }>;
  generateMs: number;
  /** tsc errors by CRD file (files without errors are absent). */
  typeErrors: Map<string, string[]>;
  /** The same for the --format output of each CRD file (<project>/<stem>/formatted/). */
  formattedTypeErrors: Map<string, string[]>;
  tscMs: number;
  tscOutput: string;
}

let runOnce: Promise<CorpusRun> | undefined;
const corpus = (): Promise<CorpusRun> => (runOnce ??= runCorpus());

function listCorpus(): { files: CorpusFile[]; manifestCount: number } {
  const manifest = path.join(corpusDir, "MANIFEST.tsv");
  if (!existsSync(corpusDir) || !existsSync(manifest)) {
    throw new Error(
      `the CRD corpus is missing: expected ${corpusDir}/ with one folder per project of *.yaml CRDs and ${manifest}`,
    );
  }
  const files: CorpusFile[] = [];
  for (const project of readdirSync(corpusDir).sort()) {
    const projectDir = path.join(corpusDir, project);
    if (!statSync(projectDir).isDirectory()) continue;
    for (const name of readdirSync(projectDir).sort()) {
      if (!/\.ya?ml$/i.test(name)) continue;
      files.push({
        name: `${project}/${name}`,
        path: path.join(projectDir, name),
        dir: `${project}/${name.replace(/\.ya?ml$/i, "")}`,
      });
    }
  }
  const rows = readFileSync(manifest, "utf8")
    .split("\n")
    .slice(1)
    .filter((l) => l.trim() !== "");
  if (files.length === 0) throw new Error(`the CRD corpus at ${corpusDir} holds no <project>/*.yaml file`);
  return { files, manifestCount: rows.length };
}

/**
 * Each CRD file on its own, as a downstream repo with just that CRD would run it (hooks and main.ts included), with
 * --validation (the compiled ajv validators and structural trees must type-check too): into <dir>/, and with --format
 * into <dir>/formatted/.
 */
async function generateEach(files: CorpusFile[]): Promise<CorpusRun["generateFailures"]> {
  const failures: CorpusRun["generateFailures"] = [];
  for (const file of files) {
    const run = (dir: string, format: boolean) =>
      generate({
        inputs: [file.path],
        outDir: path.join(dir, "generated"),
        hooksDir: path.join(dir, "src"),
        // The scaffolded tests too: each starts from an example object that must type-check against its kind.
        testsDir: path.join(dir, "test"),
        validation: true,
        format,
      });
    try {
      await run(path.join(workDir, file.dir), false);
      await run(path.join(workDir, file.dir, "formatted"), true);
    } catch (error) {
      failures.push({ file: file.name, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return failures;
}

async function runCorpus(): Promise<CorpusRun> {
  const { files, manifestCount } = listCorpus();
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });

  const started = performance.now();
  const generateFailures = await generateEach(files);
  const generateMs = performance.now() - started;

  // One tsc over every output, with the repo's own strict settings (strict, noUncheckedIndexedAccess, NodeNext, ...).
  writeFileSync(
    path.join(workDir, "tsconfig.json"),
    JSON.stringify({
      extends: path.join(repoRoot, "tsconfig.base.json"),
      compilerOptions: { noEmit: true, declaration: false, sourceMap: false, skipLibCheck: true, types: ["node"] },
      include: ["**/*.ts"],
    }),
  );
  const tscStarted = performance.now();
  const tsc = spawnSync(
    process.execPath,
    [
      "--max-old-space-size=8192",
      path.join(repoRoot, "node_modules/typescript/bin/tsc"),
      "-p",
      path.join(workDir, "tsconfig.json"),
      "--pretty",
      "false",
    ],
    {
      cwd: workDir,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const tscMs = performance.now() - tscStarted;
  if (tsc.error) throw tsc.error;
  const tscOutput = tsc.stdout + tsc.stderr;

  // Map each error (path(line,col): error TSnnnn: ...) back to the CRD file whose output holds it.
  const byDir = new Map(files.map((f) => [f.dir, f.name]));
  const typeErrors = new Map<string, string[]>();
  const formattedTypeErrors = new Map<string, string[]>();
  for (const line of tscOutput.split("\n")) {
    const match = /^(.+?)\(\d+,\d+\): error TS\d+:/.exec(line);
    if (!match) continue;
    const rel = match[1]!.split(path.sep).join("/");
    const dir = rel.split("/").slice(0, 2).join("/");
    const crd = byDir.get(dir) ?? `(outside the outputs) ${rel}`;
    const errors = rel.split("/")[2] === "formatted" ? formattedTypeErrors : typeErrors;
    errors.set(crd, [...(errors.get(crd) ?? []), line]);
  }
  if (tsc.status !== 0 && typeErrors.size === 0)
    typeErrors.set("(tsc)", [`tsc exited ${tsc.status} without a located error:\n${tscOutput.slice(0, 4000)}`]);

  const total = files.length;
  const generated = total - generateFailures.length;
  const typeChecked = files.filter(
    (f) => !generateFailures.some((g) => g.file === f.name) && !typeErrors.has(f.name),
  ).length;
  console.log(`corpus: ${generated}/${total} generated, ${typeChecked}/${total} type-check`);
  console.log(
    `corpus: generating ${total} CRD files took ${(generateMs / 1000).toFixed(1)} s (${(generateMs / total).toFixed(0)} ms each); tsc over all outputs took ${(tscMs / 1000).toFixed(1)} s`,
  );
  for (const [reason, examples] of groupByReason(generateFailures.map((g) => ({ file: g.file, message: g.error })))) {
    console.log(
      `  generate failed (${examples.length}): ${reason}\n${examples
        .slice(0, 5)
        .map((e) => `    ${e.file}: ${e.message}`)
        .join("\n")}`,
    );
  }
  const typeFailures = [...typeErrors].flatMap(([file, lines]) =>
    lines.map((l) => ({ file, message: l.replace(/^.*?: error /, "") })),
  );
  for (const [reason, examples] of groupByReason(typeFailures)) {
    const crds = new Set(examples.map((e) => e.file));
    console.log(
      `  type-check failed (${crds.size} CRD files, ${examples.length} errors): ${reason}\n${examples
        .slice(0, 5)
        .map((e) => `    ${e.file}: ${e.message}`)
        .join("\n")}`,
    );
  }
  return { files, manifestCount, generateFailures, generateMs, typeErrors, formattedTypeErrors, tscMs, tscOutput };
}

/**
 * Each CRD file's formatted output against its unformatted output: the files that do not parse, and those whose
 * tokens differ (whitespace and comments aside), as "<CRD file>: <generated file>: <first problem>".
 */
async function compareFormatted(run: CorpusRun): Promise<{ unparsed: string[]; changed: string[]; files: number }> {
  const unparsed: string[] = [];
  const changed: string[] = [];
  let count = 0;
  for (const crd of run.files) {
    const plainDir = path.join(workDir, crd.dir);
    const formattedDir = path.join(plainDir, "formatted");
    const formatted = (await listFiles(formattedDir)).filter((f) => f.endsWith(".ts"));
    const plain = (await listFiles(plainDir)).filter((f) => f.endsWith(".ts") && !f.startsWith("formatted/"));
    if (formatted.join("\n") !== plain.join("\n")) changed.push(`${crd.name}: not the same files`);
    for (const file of formatted) {
      count++;
      const text = readFileSync(path.join(formattedDir, file), "utf8");
      const errors = syntaxErrors(file, text);
      if (errors.length) unparsed.push(`${crd.name}: ${file}: ${errors[0]}`);
      const before = programTokens(file, readFileSync(path.join(plainDir, file), "utf8"));
      const after = programTokens(file, text);
      const at = before.findIndex((token, i) => token !== after[i]);
      if (at !== -1 || before.length !== after.length)
        changed.push(`${crd.name}: ${file}: token ${at}: ${before[at] ?? "(end)"} became ${after[at] ?? "(end)"}`);
    }
  }
  return { unparsed, changed, files: count };
}

/** Groups messages by their shape: the TS error code and text with quoted names and numbers replaced. */
function groupByReason(
  items: Array<{ file: string; message: string }>,
): Map<string, Array<{ file: string; message: string }>> {
  const groups = new Map<string, Array<{ file: string; message: string }>>();
  for (const item of items) {
    const reason = item.message
      .replace(/'[^']*'|"[^"]*"/g, "'…'")
      .replace(/\/[^\s:]+/g, "/…")
      .replace(/(?<!TS\d*)\d+/g, "N");
    groups.set(reason, [...(groups.get(reason) ?? []), item]);
  }
  return new Map([...groups].sort((a, b) => b[1].length - a[1].length));
}

test("every CRD file in ../shared/crds generates", async () => {
  const run = await corpus();
  assert.equal(
    run.files.length,
    run.manifestCount,
    `MANIFEST.tsv lists ${run.manifestCount} files, the folders hold ${run.files.length}`,
  );
  assert.deepEqual(run.generateFailures, [], "every corpus CRD file generates");
});

test("the generated code of every corpus CRD type-checks under strict TypeScript", async () => {
  const run = await corpus();
  const failing = [...run.typeErrors].map(([file, lines]) => `${file}: ${lines.length} error(s), first: ${lines[0]}`);
  assert.deepEqual(failing, [], `tsc found errors in the output of ${failing.length} CRD file(s)`);
});

test("the --format output of every corpus CRD parses, is the same program, and type-checks", async () => {
  const run = await corpus();
  const { unparsed, changed, files } = await compareFormatted(run);
  const crdsOf = (problems: string[]) => new Set(problems.map((p) => p.split(": ")[0])).size;
  const typeChecked = run.files.length - run.formattedTypeErrors.size;
  console.log(
    `corpus --format: ${files - unparsed.length}/${files} files parse; CRD files: ${run.files.length - crdsOf(unparsed)}/${run.files.length} parse, ${run.files.length - crdsOf(changed)}/${run.files.length} the same program, ${typeChecked}/${run.files.length} type-check`,
  );
  assert.deepEqual(unparsed, [], "every formatted file parses");
  assert.deepEqual(changed, [], "every formatted file has the unformatted file's tokens");
  const failing = [...run.formattedTypeErrors].map(([file, lines]) => `${file}: ${lines.length} error(s): ${lines[0]}`);
  assert.deepEqual(failing, [], "the formatted output type-checks");
});
