// Generator benchmark: crdgen against the other CRD-to-TypeScript tools on the whole corpus (../shared/crds).
//
//   npm run bench:generate          (builds first; BENCH_TOOLS=crdgen,jstt runs a subset)
//
// Every tool runs in its own processes, timed with /usr/bin/time (wall seconds, peak RSS; the two one-process tools
// BENCH_REPEAT times, default 3, reporting the median):
//   crdgen           one process over every corpus folder (how a repo with many CRDs runs it)
//   crdgen-per-file  one process per CRD file (like for like with the tools that take one file)
//   cdk8s            `cdk8s import <file> --language typescript` (cdk8s-cli), one process per file (it takes one spec)
//   kubernetes-models `crd-generate --input <file>` (@kubernetes-models/crd-generate), one process per file
//   kfc              `kubernetes-fluent-client crd <file> <dir>`, one process per file
//   jstt             json-schema-to-typescript's compile() alone on every version's raw openAPIV3Schema, one process
// Then each tool's output for each CRD file is type-checked under `strict` (one tsc per tool; errors are mapped back
// to the CRD file whose output holds them; crdgen's from its per-file run) and crashes are counted.
// The peers are installed by this script into a cache folder outside the repo (npm install --prefix), never as
// project dependencies. Results: a table on stdout, and bench/results/generate-<date>.{json,md}.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
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
const tools = (process.env["BENCH_TOOLS"] ?? "crdgen,crdgen-per-file,cdk8s,kubernetes-models,kfc,jstt").split(",");

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

function fail(message) {
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
  if (run.status !== 0) fail(`npm install of the peers failed (exit ${run.status})`);
  writeFileSync(marker, wanted);
}

function listCorpus() {
  if (!existsSync(path.join(corpusDir, "MANIFEST.tsv")))
    fail(`the CRD corpus is missing: expected ${corpusDir}/ with MANIFEST.tsv`);
  const files = [];
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

/** Runs a command under /usr/bin/time: { ok, seconds, maxRssKb, output }. */
function timed(command, args, options = {}) {
  const report = path.join(cacheDir, `time-${process.pid}.txt`);
  const run = spawnSync(timeBin, ["-f", "%e %M", "-o", report, command, ...args], {
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
    timeout: 30 * 60_000,
    ...options,
  });
  const [seconds, maxRssKb] = readFileSync(report, "utf8").trim().split("\n").at(-1).split(" ").map(Number);
  return { ok: run.status === 0, seconds, maxRssKb, output: `${run.stdout ?? ""}${run.stderr ?? ""}` };
}

/**
 * The one-process runs (crdgen, json-schema-to-typescript) take seconds and vary by a third on a shared machine, so
 * each runs BENCH_REPEAT times (default 3) into a fresh folder: the median time, the highest peak, every time kept.
 */
const repeat = Math.max(1, Number(process.env["BENCH_REPEAT"] ?? 3) || 1);
function timedRepeatedly(prepare, command, args) {
  const runs = [];
  for (let i = 0; i < repeat; i++) {
    prepare();
    runs.push(timed(command, args));
  }
  const seconds = runs.map((r) => r.seconds).sort((a, b) => a - b);
  const last = runs.at(-1);
  return {
    ...last,
    ok: runs.every((r) => r.ok),
    seconds: seconds[Math.floor(seconds.length / 2)],
    maxRssKb: Math.max(...runs.map((r) => r.maxRssKb)),
    runs: runs.map((r) => r.seconds),
  };
}

/** Many processes: their wall times add up, the peak is the largest one's. */
function timedEach(files, commandFor) {
  let seconds = 0;
  let maxRssKb = 0;
  const crashed = [];
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
function typeCheck(outRoot, files, extraOptions = {}) {
  const failing = new Map();
  for (const project of [...new Set(files.map((f) => f.project))]) {
    const inProject = files.filter((f) => f.project === project);
    for (const [dir, error] of runTsc(outRoot, inProject, extraOptions, [`${project}/**/*.ts`]).failing)
      failing.set(dir, error);
  }
  return failing;
}

function runTsc(outRoot, files, extraOptions, include = ["**/*.ts"]) {
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
  const tsc = spawnSync(
    process.execPath,
    [
      "--max-old-space-size=6144",
      path.join(root, "node_modules/typescript/bin/tsc"),
      "-p",
      tsconfig,
      "--pretty",
      "false",
    ],
    { cwd: outRoot, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 },
  );
  const failing = new Map();
  const byDir = new Set(files.map((f) => f.dir));
  for (const line of `${tsc.stdout}${tsc.stderr}`.split("\n")) {
    const match = /^(.+?)\(\d+,\d+\): error (TS\d+): (.*)$/.exec(line);
    if (!match) continue;
    const dir = match[1].split(path.sep).join("/").split("/").slice(0, 2).join("/");
    if (!byDir.has(dir)) continue;
    if (!failing.has(dir)) failing.set(dir, `${match[2]}: ${match[3].slice(0, 160)}`);
  }
  if (tsc.status !== 0 && failing.size === 0) {
    // An error tsc could not place in a CRD's folder (or a crash of tsc) counts against all of them.
    for (const f of files) failing.set(f.dir, `tsc exit ${tsc.status}: ${`${tsc.stdout}${tsc.stderr}`.slice(0, 200)}`);
  }
  return { failing, status: tsc.status, output: `${tsc.stdout}${tsc.stderr}` };
}

/** Outputs of a tool that ran once over many files are split by CRD only when they name it; else checked as a whole. */
function summarize(tool, timing, files, failing, note) {
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
function redact(text) {
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
  if (!existsSync(timeBin)) fail(`${timeBin} is missing (apt-get install time): it measures each tool's peak memory`);
  if (!existsSync(path.join(root, "dist/generator/cli.js"))) fail("dist/ is missing: npm run build first");
  const files = listCorpus();
  mkdirSync(cacheDir, { recursive: true });
  if (tools.some((t) => !t.startsWith("crdgen"))) installPeers();
  const bin = (name) => path.join(peersDir, "node_modules", ".bin", name);
  const results = [];
  const log = (r) =>
    process.stderr.write(
      `${r.tool}: ${r.seconds} s, peak ${r.peakMb} MB, ${r.typeChecked}/${r.total} type-check, ${r.crashed} crashed\n`,
    );

  if (tools.includes("crdgen")) {
    const out = path.join(crdgenOut, "crdgen");
    const projects = [...new Set(files.map((f) => path.join(corpusDir, f.project)))];
    const r = timedRepeatedly(() => rmSync(out, { recursive: true, force: true }), process.execPath, [
      path.join(root, "bin/crdgen.js"),
      "generate",
      ...projects,
      "--out",
      path.join(out, "generated"),
    ]);
    const timing = {
      seconds: r.seconds,
      maxRssKb: r.maxRssKb,
      crashed: r.ok ? [] : files.map((f) => ({ file: f.name, error: r.output.slice(-300) })),
    };
    // Type-checked from the per-file run below (one folder per CRD file); here only whether the one run compiles as a
    // whole.
    const whole = runTsc(out, [], { noUncheckedIndexedAccess: true, types: ["node"] });
    const result = summarize(
      "crdgen",
      timing,
      files,
      new Map(),
      `one process, all folders; median of ${r.runs.map((s) => s.toFixed(1)).join(", ")} s`,
    );
    result.wholeOutputTypeChecks = whole.status === 0 && r.ok;
    if (!result.wholeOutputTypeChecks)
      process.stderr.write(`crdgen's one-run output does not type-check as a whole:\n${whole.output.slice(0, 2000)}\n`);
    results.push(result);
    log(result);
  }
  if (tools.includes("crdgen-per-file") || tools.includes("crdgen")) {
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
    const one = results.find((x) => x.tool === "crdgen");
    if (one) Object.assign(one, { typeChecked: result.typeChecked, typeErrors: result.typeErrors });
  }
  if (tools.includes("cdk8s")) {
    const out = path.join(peerOut, "cdk8s");
    rmSync(out, { recursive: true, force: true });
    const timing = timedEach(files, (f) => {
      mkdirSync(path.join(out, f.dir), { recursive: true });
      return [
        bin("cdk8s"),
        ["import", f.path, "--language", "typescript", "--output", ".", "--no-save", "--no-check-upgrade"],
        { cwd: path.join(out, f.dir) },
      ];
    });
    const result = summarize("cdk8s import", timing, files, typeCheck(out, files), "cdk8s-cli, one process per file");
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
    results.push(result);
    log(result);
  }
  if (tools.includes("jstt")) {
    const out = path.join(peerOut, "jstt");
    const list = path.join(cacheDir, "jstt-files.json");
    writeFileSync(list, JSON.stringify(files));
    const r = timedRepeatedly(() => rmSync(out, { recursive: true, force: true }), process.execPath, [
      path.join(here, "generate-jstt.mjs"),
      list,
      out,
      peersDir,
    ]);
    const crashed = existsSync(path.join(out, "crashes.json"))
      ? JSON.parse(readFileSync(path.join(out, "crashes.json"), "utf8"))
      : files.map((f) => ({ file: f.name, error: r.output.slice(-300) }));
    const result = summarize(
      "json-schema-to-typescript",
      { seconds: r.seconds, maxRssKb: r.maxRssKb, crashed },
      files,
      typeCheck(out, files),
      `compile() per version schema, one process; median of ${r.runs.map((s) => s.toFixed(1)).join(", ")} s`,
    );
    results.push(result);
    log(result);
  }

  const base = results.find((r) => r.tool === "crdgen");
  const rows = results.map((r) => ({
    ...r,
    timeVsCrdgen: base ? Number((r.seconds / base.seconds).toFixed(2)) : null,
    memoryVsCrdgen: base ? Number((r.peakMb / base.peakMb).toFixed(2)) : null,
  }));
  const header =
    "| tool | how | time (s) | × crdgen time | peak RSS (MB) | × crdgen memory | type-check (strict) | crashed |";
  const table = [
    header,
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.tool} | ${r.note} | ${r.seconds.toFixed(1)} | ${r.timeVsCrdgen ?? "-"} | ${r.peakMb} | ${r.memoryVsCrdgen ?? "-"} | ${r.typeChecked}/${r.total} | ${r.crashed} |`,
    ),
  ].join("\n");
  const peers = rows.filter((r) => !r.tool.startsWith("crdgen"));
  const fastest = peers.sort((a, b) => a.seconds - b.seconds)[0];
  const verdict =
    base && fastest
      ? `crdgen: ${base.seconds.toFixed(1)} s, peak ${base.peakMb} MB, ${base.typeChecked}/${base.total} type-check. Fastest peer: ${fastest.tool}, ${fastest.seconds.toFixed(1)} s, so crdgen is ${(fastest.seconds / base.seconds).toFixed(2)}× faster (target ≥ 3×: ${fastest.seconds / base.seconds >= 3 ? "met" : "MISSED"}); peak memory target < 1024 MB: ${base.peakMb < 1024 ? "met" : "MISSED"}.`
      : "";
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  const context = `${files.length} CRD files from ../shared/crds; ${os.cpus().length} CPUs (load average ${load} at the end); Node ${process.version}; ${new Date().toISOString()}`;
  process.stdout.write(`\n${table}\n\n${verdict}\n${context}\n`);
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(path.join(here, "results"), { recursive: true });
  writeFileSync(
    path.join(here, "results", `generate-${date}.json`),
    `${JSON.stringify({ context, peers: peerPackages, results: rows }, null, 2)}\n`,
  );
  writeFileSync(
    path.join(here, "results", `generate-${date}.md`),
    `# bench:generate ${date}\n\n${context}\n\n${table}\n\n${verdict}\n`,
  );
}

main();
