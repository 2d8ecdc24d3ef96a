// Generator benchmark: crdgen against the other CRD-to-TypeScript tools on the whole corpus (../shared/crds).
//
//   npm run bench:generate          (builds first; BENCH_TOOLS=crdgen,jstt runs a subset)
//
// Every tool runs in its own processes, timed with /usr/bin/time (wall seconds, peak RSS; the one-process runs
// BENCH_REPEAT times, default 3, reporting the median), each peer in its fastest honest mode:
//   crdgen           one process over every corpus folder (how a repo with many CRDs runs it)
//   crdgen-validation  the same with --validation (defaults, normalize and validate functions too)
//   crdgen-per-file  one process per CRD file (like for like with the tools that take one file)
//   cdk8s            cdk8s-cli's import (importDispatch, what `cdk8s import` calls) in one process over every file
//                    (generate-cdk8s.ts; given several specs, the CLI imports only the first)
//   cdk8s-per-file   the same, one process per file
//   kubernetes-models `crd-generate --input <file>` (@kubernetes-models/crd-generate), one process per file (given
//                    every file at once it stops at the first schema its ajv cannot compile)
//   kfc              `kubernetes-fluent-client crd <file> <dir>`, one process per file (it takes one input)
//   jstt, jstt-fast  json-schema-to-typescript's compile() alone on every version's raw openAPIV3Schema, one process,
//                    with { format: false } and with { format: false, maxItems: -1 }
// Then each tool's output for each CRD file is type-checked under `strict` (one tsc per corpus project; errors are
// mapped back to the CRD file whose output holds them; crdgen's from its per-file run, or from the whole output when
// that run is left out) and crashes are counted; and one strict `tsc -p` over each tool's whole output measures what
// type-checking it costs (wall seconds and peak RSS, median of BENCH_TSC_REPEAT, default BENCH_REPEAT).
// The peers are installed by this script into a cache folder outside the repo (npm install --prefix), never as
// project dependencies. Results: a table on stdout, and bench/results/generate-<date><BENCH_RESULT_SUFFIX>.{json,md},
// with the load average and each target against the fastest peer of the same run.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { compiledDir, repoRoot as root, resultsDir } from "./paths.js";
import type { CorpusFile, Crash } from "./peer-run.js";

const corpusDir = path.resolve(root, "../shared/crds");
const cacheDir = path.join(
  process.env["CRDGEN_CACHE_DIR"] ?? path.join(os.homedir(), ".cache", "crdgen"),
  "bench-generate",
);
const peersDir = path.join(cacheDir, "peers");
/** Peer outputs live beside the peers' node_modules so their imports (cdk8s, kubernetes-fluent-client, ...) resolve. */
const peerOut = path.join(peersDir, "out");
/** crdgen's output lives in the repo (gitignored .tmp/) so @crdgen/runtime and @kubernetes/client-node resolve. */
const crdgenOut = path.join(root, ".tmp", "bench-generate");
const timeBin = "/usr/bin/time";
const tools = (
  process.env["BENCH_TOOLS"] ??
  "crdgen,crdgen-validation,crdgen-per-file,cdk8s,cdk8s-per-file,kubernetes-models,kfc,jstt,jstt-fast"
).split(",");

// Pinned versions. kubernetes-fluent-client 3.11.6 is the newest that runs on Node 20 (3.11.11 needs Node >= 22.19).
const peerPackages = {
  "cdk8s-cli": "2.207.60",
  cdk8s: "2.70.106",
  constructs: "10.8.1",
  "@kubernetes-models/crd-generate": "5.1.0",
  "@kubernetes-models/base": "5.0.1",
  "@kubernetes-models/validate": "4.0.0",
  "@kubernetes-models/apimachinery": "2.2.0",
  "kubernetes-fluent-client": "3.11.6",
  "json-schema-to-typescript": "16.0.0",
};

function fail(message: string): never {
  process.stderr.write(`bench:generate: ${message}\n`);
  process.exit(1);
}

function installPeers() {
  const marker = path.join(peersDir, "installed.json");
  const wanted = JSON.stringify(peerPackages);
  if (existsSync(marker) && readFileSync(marker, "utf8") === wanted) return;
  mkdirSync(peersDir, { recursive: true });
  writeFileSync(path.join(peersDir, "package.json"), JSON.stringify({ name: "crdgen-bench-peers", private: true }));
  const specs = Object.entries(peerPackages).map(([name, version]) => `${name}@${version}`);
  process.stderr.write(`installing the peers into ${peersDir}: ${specs.join(" ")}\n`);
  const run = spawnSync("npm", ["install", "--prefix", peersDir, "--no-audit", "--no-fund", ...specs], {
    stdio: "inherit",
  });
  if (run.status !== 0) fail(`npm install of the peers failed (exit ${String(run.status)})`);
  writeFileSync(marker, wanted);
}

function listCorpus(): CorpusFile[] {
  if (!existsSync(path.join(corpusDir, "MANIFEST.tsv")))
    fail(`the CRD corpus is missing: expected ${corpusDir}/ with MANIFEST.tsv`);
  const files: CorpusFile[] = [];
  for (const project of readdirSync(corpusDir).sort()) {
    const dir = path.join(corpusDir, project);
    if (!statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir).sort()) {
      if (/\.ya?ml$/.test(name))
        files.push({
          name: `${project}/${name}`,
          path: path.join(dir, name),
          dir: `${project}/${name.replace(/\.ya?ml$/, "")}`,
          project,
        });
    }
  }
  return files;
}

interface Timed {
  ok: boolean;
  seconds: number;
  maxRssKb: number;
  output: string;
}

/** Runs a command under /usr/bin/time. */
function timed(command: string, args: string[], options: { cwd?: string } = {}): Timed {
  const report = path.join(cacheDir, `time-${process.pid}.txt`);
  const run = spawnSync(timeBin, ["-f", "%e %M", "-o", report, command, ...args], {
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
    timeout: 30 * 60_000,
    ...options,
  });
  const [seconds = NaN, maxRssKb = NaN] = readFileSync(report, "utf8")
    .trim()
    .split("\n")
    .at(-1)!
    .split(" ")
    .map(Number);
  return { ok: run.status === 0, seconds, maxRssKb, output: `${run.stdout}${run.stderr}` };
}

/**
 * The one-process runs (crdgen, json-schema-to-typescript) take seconds and vary by a third on a shared machine, so
 * each runs BENCH_REPEAT times (default 3) into a fresh folder: the median time, the highest peak, every time kept.
 */
const repeat = Math.max(1, Number(process.env["BENCH_REPEAT"] ?? 3) || 1);
function timedRepeatedly(prepare: () => void, command: string, args: string[]): Timed & { runs: number[] } {
  const runs: Timed[] = [];
  for (let i = 0; i < repeat; i++) {
    prepare();
    runs.push(timed(command, args));
  }
  const seconds = runs.map((r) => r.seconds).sort((a, b) => a - b);
  const last = runs.at(-1)!;
  return {
    ...last,
    ok: runs.every((r) => r.ok),
    seconds: seconds[Math.floor(seconds.length / 2)]!,
    maxRssKb: Math.max(...runs.map((r) => r.maxRssKb)),
    runs: runs.map((r) => r.seconds),
  };
}

/** Many processes: their wall times add up, the peak is the largest one's. */
interface Timing {
  seconds: number;
  maxRssKb: number;
  crashed: Crash[];
}

function timedEach(
  files: CorpusFile[],
  commandFor: (file: CorpusFile) => [command: string, args: string[], options?: { cwd: string }],
): Timing {
  let seconds = 0;
  let maxRssKb = 0;
  const crashed: Crash[] = [];
  for (const file of files) {
    const [command, args, options] = commandFor(file);
    const r = timed(command, args, options);
    seconds += r.seconds;
    maxRssKb = Math.max(maxRssKb, r.maxRssKb);
    if (!r.ok)
      crashed.push({ file: file.name, error: r.output.trim().split("\n").slice(-3).join(" | ").slice(0, 300) });
  }
  return { seconds, maxRssKb, crashed };
}

/**
 * tsc (strict) over a tool's output, one run per corpus project (one over everything runs out of memory on some
 * tools' output): the CRD files (by <project>/<stem>/ folder) whose output has an error.
 */
type CompilerOptions = Record<string, unknown>;

function typeCheck(outRoot: string, files: CorpusFile[], extraOptions: CompilerOptions = {}): Map<string, string> {
  const failing = new Map<string, string>();
  for (const project of [...new Set(files.map((f) => f.project))]) {
    const inProject = files.filter((f) => f.project === project);
    for (const [dir, error] of runTsc(outRoot, inProject, extraOptions, [`${project}/**/*.ts`]).failing)
      failing.set(dir, error);
  }
  return failing;
}

interface TscRun {
  /** The CRD folders whose output has an error: the first error of each. */
  failing: Map<string, string>;
  status: number;
  output: string;
  seconds: number;
  maxRssKb: number;
}

function runTsc(outRoot: string, files: CorpusFile[], extraOptions: CompilerOptions, include = ["**/*.ts"]): TscRun {
  const tsconfig = path.join(outRoot, "tsconfig.bench.json");
  writeFileSync(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: "ES2022",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        types: [],
        ...extraOptions,
      },
      include,
      exclude: ["**/node_modules/**"],
    }),
  );
  const run = timed(
    process.execPath,
    [
      "--max-old-space-size=6144",
      path.join(root, "node_modules/typescript/bin/tsc"),
      "-p",
      tsconfig,
      "--pretty",
      "false",
    ],
    { cwd: outRoot },
  );
  const tsc = { status: run.ok ? 0 : 1, stdout: run.output, stderr: "" };
  const failing = new Map<string, string>();
  const byDir = new Set(files.map((f) => f.dir));
  for (const line of `${tsc.stdout}${tsc.stderr}`.split("\n")) {
    const match = /^(.+?)\(\d+,\d+\): error (TS\d+): (.*)$/.exec(line);
    if (!match) continue;
    const [, file = "", code = "", message = ""] = match;
    const dir = file.split(path.sep).join("/").split("/").slice(0, 2).join("/");
    if (!byDir.has(dir)) continue;
    if (!failing.has(dir)) failing.set(dir, `${code}: ${message.slice(0, 160)}`);
  }
  if (tsc.status !== 0 && failing.size === 0) {
    // An error tsc could not place in a CRD's folder (or a crash of tsc) counts against all of them.
    for (const f of files) failing.set(f.dir, `tsc exit ${tsc.status}: ${`${tsc.stdout}${tsc.stderr}`.slice(0, 200)}`);
  }
  return {
    failing,
    status: tsc.status,
    output: `${tsc.stdout}${tsc.stderr}`,
    seconds: run.seconds,
    maxRssKb: run.maxRssKb,
  };
}

/**
 * The type-check cost of a tool's whole output: one strict `tsc -p` over all of it (as a project holding it runs),
 * BENCH_TSC_REPEAT times (default 3): median wall seconds, highest peak RSS, and whether it passed.
 */
const tscRepeat = Math.max(1, Number(process.env["BENCH_TSC_REPEAT"] ?? repeat) || 1);
interface TypeCheckCost {
  seconds: number;
  peakMb: number;
  ok: boolean;
  runs: number[];
  errors: string;
}

function typeCheckCost(outRoot: string, extraOptions: CompilerOptions = {}): TypeCheckCost {
  const runs: TscRun[] = [];
  for (let i = 0; i < tscRepeat; i++) runs.push(runTsc(outRoot, [], extraOptions));
  const seconds = runs.map((r) => r.seconds).sort((a, b) => a - b);
  return {
    seconds: seconds[Math.floor(seconds.length / 2)]!,
    peakMb: Math.round(Math.max(...runs.map((r) => r.maxRssKb)) / 1024),
    ok: runs.every((r) => r.status === 0),
    runs: runs.map((r) => r.seconds),
    errors: runs[0]!.status === 0 ? "" : redact(runs[0]!.output.slice(0, 300)),
  };
}

/** Outputs of a tool that ran once over many files are split by CRD only when they name it; else checked as a whole. */
interface Result {
  tool: string;
  note: string;
  seconds: number;
  peakMb: number;
  crashed: number;
  typeChecked: number;
  total: number;
  crashes: Crash[];
  typeErrors: { dir: string; error: string }[];
  /** Each run's seconds, for the tools run BENCH_REPEAT times. */
  runs?: number[];
  typeCheckCost?: TypeCheckCost;
  /** crdgen's one-process runs: the whole output type-checks in one tsc. */
  wholeOutputTypeChecks?: boolean;
}

function summarize(
  tool: string,
  timing: Timing,
  files: CorpusFile[],
  failing: Map<string, string>,
  note: string,
): Result {
  const crashedDirs = new Set(timing.crashed.map((c) => files.find((f) => f.name === c.file)?.dir));
  const typeChecked = files.filter((f) => !crashedDirs.has(f.dir) && !failing.has(f.dir)).length;
  return {
    tool,
    note,
    seconds: Number(timing.seconds.toFixed(2)),
    peakMb: Math.round(timing.maxRssKb / 1024),
    crashed: timing.crashed.length,
    typeChecked,
    total: files.length,
    crashes: timing.crashed.slice(0, 10).map((c) => ({ file: c.file, error: redact(c.error) })),
    typeErrors: [...failing].slice(0, 10).map(([dir, error]) => ({ dir, error: redact(error) })),
  };
}

/** Error excerpts name this machine's folders: results are committed, so they say <peers>, <repo>, <corpus> and <home> instead. */
function redact(text: string): string {
  return text
    .split(peersDir)
    .join("<peers>")
    .split(cacheDir)
    .join("<cache>")
    .split(corpusDir)
    .join("<corpus>")
    .split(root)
    .join("<repo>")
    .split(os.homedir())
    .join("<home>");
}

function main() {
  const loadStart = os.loadavg();
  if (!existsSync(timeBin)) fail(`${timeBin} is missing (apt-get install time): it measures each tool's peak memory`);
  if (!existsSync(path.join(root, "dist/generator/cli.js"))) fail("dist/ is missing: npm run build first");
  const files = listCorpus();
  mkdirSync(cacheDir, { recursive: true });
  if (tools.some((t) => !t.startsWith("crdgen"))) installPeers();
  const bin = (name: string) => path.join(peersDir, "node_modules", ".bin", name);
  const results: Result[] = [];
  const log = (r: Result) =>
    process.stderr.write(
      `${r.tool}: ${r.seconds} s, peak ${r.peakMb} MB, ${r.typeChecked}/${r.total} type-check, ${r.crashed} crashed\n`,
    );

  const crdgenOneProcess = (tool: string, dir: string, flags: string[]) => {
    const out = path.join(crdgenOut, dir);
    const projects = [...new Set(files.map((f) => path.join(corpusDir, f.project)))];
    const r = timedRepeatedly(() => rmSync(out, { recursive: true, force: true }), process.execPath, [
      path.join(root, "bin/crdgen.js"),
      "generate",
      ...projects,
      "--out",
      path.join(out, "generated"),
      ...flags,
    ]);
    const timing: Timing = {
      seconds: r.seconds,
      maxRssKb: r.maxRssKb,
      crashed: r.ok ? [] : files.map((f) => ({ file: f.name, error: r.output.slice(-300) })),
    };
    // Type-checked per CRD from the per-file run below (one folder per CRD file); here one tsc over the whole output:
    // whether it compiles as a whole, and what that costs.
    const cost = typeCheckCost(out, { noUncheckedIndexedAccess: true, types: ["node"] });
    const result = summarize(
      tool,
      timing,
      files,
      new Map<string, string>(),
      `one process, all folders${flags.length ? ` ${flags.join(" ")}` : ""}; median of ${r.runs.map((s) => s.toFixed(1)).join(", ")} s`,
    );
    result.runs = r.runs;
    result.typeCheckCost = cost;
    result.wholeOutputTypeChecks = cost.ok && r.ok;
    // Without the per-file run: no error in the whole output means every CRD's output compiles; an error, none known to.
    if (!tools.includes("crdgen-per-file")) result.typeChecked = result.wholeOutputTypeChecks ? files.length : 0;
    if (!result.wholeOutputTypeChecks)
      process.stderr.write(`${tool}'s one-run output does not type-check as a whole: ${cost.errors}\n`);
    results.push(result);
    log(result);
  };
  if (tools.includes("crdgen")) crdgenOneProcess("crdgen", "crdgen", []);
  if (tools.includes("crdgen-per-file")) {
    const out = path.join(crdgenOut, "per-file");
    rmSync(out, { recursive: true, force: true });
    const timing = timedEach(files, (f) => [
      process.execPath,
      [
        path.join(root, "bin/crdgen.js"),
        "generate",
        f.path,
        "--out",
        path.join(out, f.dir, "generated"),
        "--hooks",
        path.join(out, f.dir, "src"),
      ],
    ]);
    const failing = typeCheck(out, files, { noUncheckedIndexedAccess: true, types: ["node"] });
    const result = summarize(
      "crdgen-per-file",
      timing,
      files,
      failing,
      "one process per CRD file, with hooks and main.ts",
    );
    results.push(result);
    log(result);
    for (const one of results.filter((x) => x.tool === "crdgen" || x.tool === "crdgen --validation"))
      Object.assign(one, { typeChecked: result.typeChecked, typeErrors: result.typeErrors });
  }
  if (tools.includes("cdk8s")) {
    // One process over every file: its CLI imports only the first of several specs, so generate-cdk8s.ts calls the
    // import command's own importDispatch once per file.
    const out = path.join(peerOut, "cdk8s");
    const list = path.join(cacheDir, "cdk8s-files.json");
    writeFileSync(list, JSON.stringify(files));
    const r = timedRepeatedly(() => rmSync(out, { recursive: true, force: true }), process.execPath, [
      path.join(compiledDir, "generate-cdk8s.js"),
      list,
      out,
      peersDir,
    ]);
    const crashed = existsSync(path.join(out, "crashes.json"))
      ? (JSON.parse(readFileSync(path.join(out, "crashes.json"), "utf8")) as Crash[])
      : files.map((f) => ({ file: f.name, error: r.output.trim().split("\n").slice(-3).join(" | ").slice(0, 300) }));
    const result = summarize(
      "cdk8s import",
      { seconds: r.seconds, maxRssKb: r.maxRssKb, crashed },
      files,
      typeCheck(out, files),
      `cdk8s-cli's import (importDispatch), one process over all files; median of ${r.runs.map((x) => x.toFixed(1)).join(", ")} s`,
    );
    result.runs = r.runs;
    result.typeCheckCost = typeCheckCost(out);
    results.push(result);
    log(result);
  }
  if (tools.includes("cdk8s-per-file")) {
    const out = path.join(peerOut, "cdk8s-per-file");
    rmSync(out, { recursive: true, force: true });
    const timing = timedEach(files, (f) => {
      mkdirSync(path.join(out, f.dir), { recursive: true });
      return [
        bin("cdk8s"),
        ["import", f.path, "--language", "typescript", "--output", ".", "--no-save", "--no-check-upgrade"],
        { cwd: path.join(out, f.dir) },
      ];
    });
    const result = summarize(
      "cdk8s import (per file)",
      timing,
      files,
      typeCheck(out, files),
      "cdk8s-cli, one process per file",
    );
    results.push(result);
    log(result);
  }
  if (tools.includes("kubernetes-models")) {
    // One process per file: given every file at once it stops at the first schema its ajv cannot compile.
    const out = path.join(peerOut, "kubernetes-models");
    rmSync(out, { recursive: true, force: true });
    const timing = timedEach(files, (f) => [
      bin("crd-generate"),
      ["--input", f.path, "--output", path.join(out, f.dir)],
    ]);
    const result = summarize(
      "@kubernetes-models/crd-generate",
      timing,
      files,
      typeCheck(out, files),
      "one process per file (all files at once crashes)",
    );
    result.typeCheckCost = typeCheckCost(out);
    results.push(result);
    log(result);
  }
  if (tools.includes("kfc")) {
    const out = path.join(peerOut, "kfc");
    rmSync(out, { recursive: true, force: true });
    const timing = timedEach(files, (f) => [bin("kubernetes-fluent-client"), ["crd", f.path, path.join(out, f.dir)]]);
    const result = summarize(
      "kubernetes-fluent-client crd",
      timing,
      files,
      typeCheck(out, files),
      "one process per file",
    );
    result.typeCheckCost = typeCheckCost(out);
    results.push(result);
    log(result);
  }
  // json-schema-to-typescript in two modes: format:false (no prettier pass), and also maxItems:-1 (no tuple types
  // for arrays with maxItems), its fastest setting whose output compiles.
  const jsttModes: [tool: string, dir: string, options: Record<string, unknown>][] = [
    ["jstt", "jstt", { format: false }],
    ["jstt-fast", "jstt-fast", { format: false, maxItems: -1 }],
  ];
  for (const [tool, dir, options] of jsttModes) {
    if (!tools.includes(tool)) continue;
    const out = path.join(peerOut, dir);
    const list = path.join(cacheDir, "jstt-files.json");
    writeFileSync(list, JSON.stringify(files));
    const r = timedRepeatedly(() => rmSync(out, { recursive: true, force: true }), process.execPath, [
      path.join(compiledDir, "generate-jstt.js"),
      list,
      out,
      peersDir,
      JSON.stringify(options),
    ]);
    const crashed = existsSync(path.join(out, "crashes.json"))
      ? (JSON.parse(readFileSync(path.join(out, "crashes.json"), "utf8")) as Crash[])
      : files.map((f) => ({ file: f.name, error: r.output.slice(-300) }));
    const result = summarize(
      "json-schema-to-typescript",
      { seconds: r.seconds, maxRssKb: r.maxRssKb, crashed },
      files,
      typeCheck(out, files),
      `compile() per version schema \`${JSON.stringify(options)}\`, one process; median of ${r.runs.map((s) => s.toFixed(1)).join(", ")} s`,
    );
    result.runs = r.runs;
    result.typeCheckCost = typeCheckCost(out);
    results.push(result);
    log(result);
  }

  // Last: the slowest of the crdgen runs.
  if (tools.includes("crdgen-validation"))
    crdgenOneProcess("crdgen --validation", "crdgen-validation", ["--validation"]);
  const base = results.find((r) => r.tool === "crdgen");
  const peers = results.filter((r) => !r.tool.startsWith("crdgen"));
  // The anchor is the fastest peer whose output compiles for every CRD (the issue's "fastest setting that produces
  // compiling output"); a faster mode that breaks some CRDs is still a row of the table.
  const compiling = peers.filter((r) => r.typeChecked === r.total && r.crashed === 0);
  const fastest = [...(compiling.length ? compiling : peers)].sort((a, b) => a.seconds - b.seconds)[0];
  const rows = results.map((r) => ({
    ...r,
    timeVsCrdgen: base ? Number((r.seconds / base.seconds).toFixed(2)) : null,
    memoryVsCrdgen: base ? Number((r.peakMb / base.peakMb).toFixed(2)) : null,
  }));
  const cost = (r: Result) =>
    r.typeCheckCost
      ? `${r.typeCheckCost.seconds.toFixed(1)} | ${r.typeCheckCost.peakMb}${r.typeCheckCost.ok ? "" : " (fails)"}`
      : "- | -";
  const header =
    "| tool | how | time (s) | × crdgen time | peak RSS (MB) | × crdgen memory | type-check (strict) | crashed | tsc over all output (s) | tsc peak RSS (MB) |";
  const table = [
    header,
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.tool} | ${r.note} | ${r.seconds.toFixed(1)} | ${r.timeVsCrdgen ?? "-"} | ${r.peakMb} | ${r.memoryVsCrdgen ?? "-"} | ${r.typeChecked}/${r.total} | ${r.crashed} | ${cost(r)} |`,
    ),
  ].join("\n");
  const mark = (met: boolean) => (met ? "✅" : "❌");
  const targets: string[] = [];
  if (base && fastest) {
    const speedup = fastest.seconds / base.seconds;
    const allCompile = base.typeChecked === base.total && base.crashed === 0;
    targets.push(
      `${mark(speedup >= 3 && allCompile)} ≥ 3× faster than the fastest peer (${fastest.tool}, ${fastest.note.split(";")[0]}: ${fastest.seconds.toFixed(1)} s) on all ${base.total} CRDs with 100% compiling: ${speedup.toFixed(2)}× (${base.seconds.toFixed(1)} s), ${base.typeChecked}/${base.total} type-check`,
      `${mark(base.peakMb < 1024)} peak RSS < 1 GB: ${base.peakMb} MB`,
    );
    const withCost = (r: Result): r is Result & { typeCheckCost: TypeCheckCost } => r.typeCheckCost !== undefined;
    const cdk8s = results.filter(withCost).find((r) => r.tool === "cdk8s import");
    const checked = peers.filter(withCost).filter((r) => r.typeCheckCost.ok);
    const fastestCheck = [...checked].sort((a, b) => a.typeCheckCost.seconds - b.typeCheckCost.seconds)[0];
    for (const own of results.filter(withCost).filter((r) => r.tool.startsWith("crdgen"))) {
      const t = own.typeCheckCost.seconds;
      if (cdk8s)
        targets.push(
          `${mark(own.typeCheckCost.ok && t <= 0.3 * cdk8s.typeCheckCost.seconds)} ${own.tool}'s output type-checks in ≤ 0.3× cdk8s's: ${(t / cdk8s.typeCheckCost.seconds).toFixed(2)}× (${t.toFixed(1)} s vs ${cdk8s.typeCheckCost.seconds.toFixed(1)} s)`,
        );
      if (fastest.typeCheckCost)
        targets.push(
          `${mark(own.typeCheckCost.ok && t <= fastest.typeCheckCost.seconds)} ${own.tool}'s output type-checks in ≤ 1× the fastest peer's (${fastest.tool}): ${(t / fastest.typeCheckCost.seconds).toFixed(2)}× (${t.toFixed(1)} s vs ${fastest.typeCheckCost.seconds.toFixed(1)} s)`,
        );
      if (fastestCheck && fastestCheck !== fastest)
        targets.push(
          `${mark(own.typeCheckCost.ok && t <= fastestCheck.typeCheckCost.seconds)} ${own.tool}'s output type-checks in ≤ 1× the peer whose output type-checks fastest (${fastestCheck.tool}, ${fastestCheck.note.split(";")[0]}): ${(t / fastestCheck.typeCheckCost.seconds).toFixed(2)}× (${t.toFixed(1)} s vs ${fastestCheck.typeCheckCost.seconds.toFixed(1)} s)`,
        );
    }
  }
  const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(1)).join(" ");
  const context =
    `${files.length} CRD files from ../shared/crds; ${os.cpus().length} CPUs shared with other work (load average ${fmtLoad(loadStart)} at the start, ${fmtLoad(os.loadavg())} at the end); ` +
    `Node ${process.version}; ${new Date().toISOString()}; one-process runs: median of ${repeat}, tsc: median of ${tscRepeat}`;
  const notes =
    "Time: wall seconds of the tool's processes (/usr/bin/time), summed over the processes for per-file rows. Peak RSS: the largest process's. " +
    "type-check: CRD files whose output passes a strict tsc (one tsc per corpus project). tsc over all output: one strict `tsc -p` over the tool's whole output (skipLibCheck; crdgen's with noUncheckedIndexedAccess and node types), wall seconds and peak RSS.";
  process.stdout.write(`\n${table}\n\n${targets.map((t) => `- ${t}`).join("\n")}\n${context}\n`);
  const date = new Date().toISOString().slice(0, 10);
  const suffix = process.env["BENCH_RESULT_SUFFIX"] ?? "";
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(
    path.join(resultsDir, `generate-${date}${suffix}.json`),
    `${JSON.stringify({ context, loadStart, loadEnd: os.loadavg(), peers: peerPackages, results: rows, targets }, null, 2)}\n`,
  );
  writeFileSync(
    path.join(resultsDir, `generate-${date}${suffix}.md`),
    `# bench:generate ${date}\n\n${context}\n\n${table}\n\n${notes}\n\n## Targets\n\n${targets.map((t) => `- ${t}`).join("\n")}\n`,
  );
}

main();
