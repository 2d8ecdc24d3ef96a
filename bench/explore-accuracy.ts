// Explore accuracy on real operators: `crdgen explore` (Go's type checker, JSON and text) on checkouts of real
// repositories, scored against answer keys written by hand from their code (bench/explore-accuracy/<repo>.json):
// controllers found, processing function right, watched kinds attached that the key does not list, kinds missed,
// text lines per controller, time and peak memory.
//
//   npm run bench:explore-accuracy -- --checkouts <dir>            (each key's repo checked out at <dir>/<repo>)
//   npm run bench:explore-accuracy -- --checkouts <dir> --crdgen <other crdgen root> --label before cert-manager
//   npm run bench:explore-accuracy -- --checkouts <dir> path/to/new-key.json      (a key being written, by its path)
//
// A checkout is the key's commit (`git archive <commit>`); the key names the folder explore runs on. Time and memory
// are GNU time's for the whole `crdgen explore` process tree (the Go program included): wall, CPU (user + system)
// and the largest peak RSS. A repo whose explore exits non-zero is scored as finding nothing and marked failed.
// Results: a table on stdout and bench/results/explore-accuracy-<date>[-<label>].{md,json}.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { ExploreResult } from "@crdgen/explore";
import { type AnswerKey, linesPerController, type RepoScore, scoreRepo } from "./explore-accuracy/score.js";
import { repoRoot, resultsDir } from "./paths.js";

const keysDir = path.join(repoRoot, "bench", "explore-accuracy");

interface Usage {
  wallS: number;
  cpuS: number;
  rssMb: number;
  load: number;
}

interface RepoRun {
  key: AnswerKey;
  score: RepoScore;
  /** Why `crdgen explore` gave no result (it exited non-zero): the repo is scored as finding nothing. */
  failed?: string;
  frontEnd: string;
  usage: Usage;
  blockLines: number[];
  textLines: number;
}

const TIME = "/usr/bin/time";

/** One `crdgen explore` process under GNU time: its stdout and what the whole process tree used. */
function runExplore(crdgen: string, dir: string, args: string[]): { stdout: string; usage: Usage; failed?: string } {
  const load = os.loadavg()[0]!;
  const argv = [path.join(crdgen, "bin", "crdgen.js"), "explore", dir, ...args];
  const timed = existsSync(TIME);
  const started = process.hrtime.bigint();
  const run = timed
    ? spawnSync(TIME, ["-f", "TIME %e %U %S %M", process.execPath, ...argv], { encoding: "utf8", maxBuffer: 1 << 30 })
    : spawnSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 1 << 30 });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(run.stderr);
  const usage = m
    ? { wallS: Number(m[1]), cpuS: Number(m[2]) + Number(m[3]), rssMb: Number(m[4]) / 1024, load }
    : { wallS: wall, cpuS: NaN, rssMb: NaN, load };
  if (run.status !== 0) {
    // One repo that crashes explore is a result (nothing found), not the end of the measurement.
    const reason = run.stderr.split("\n").find((l) => l.trim() && !l.startsWith("TIME ") && !l.startsWith("Command "));
    console.error(`crdgen explore ${dir} failed (${String(run.status)}):\n${run.stderr}`);
    return { stdout: "", usage, failed: `exit ${String(run.status)}: ${reason?.trim() ?? "no message"}` };
  }
  return { stdout: run.stdout, usage };
}

function runRepo(key: AnswerKey, checkout: string, crdgen: string, extra: string[]): RepoRun {
  const dir = path.join(checkout, key.root);
  const json = runExplore(crdgen, dir, ["--format", "json", ...extra]);
  if (json.failed !== undefined) {
    const score = scoreRepo(key, { controllers: [] });
    return { key, score, failed: json.failed, frontEnd: "-", usage: json.usage, blockLines: [], textLines: 0 };
  }
  const result = JSON.parse(json.stdout) as ExploreResult;
  const text = runExplore(crdgen, dir, extra).stdout;
  return {
    key,
    score: scoreRepo(key, result),
    frontEnd:
      result.goFrontEnd ?? (extra.includes("--no-go-types") ? "syntax only (--no-go-types)" : "Go's type checker"),
    usage: json.usage,
    blockLines: linesPerController(text),
    textLines: text.split("\n").length,
  };
}

const pct = (n: number, d: number): string => (d ? `${((100 * n) / d).toFixed(0)}%` : "-");
const median = (xs: number[]): number => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : 0);

interface Totals {
  keyed: number;
  found: number;
  complete: number;
  right: number;
  among: number;
  wrong: number;
  foreign: number;
  missed: number;
  unresolved: number;
  extra: number;
}

function totalsOf(runs: RepoRun[]): Totals {
  const t: Totals = {
    keyed: 0,
    found: 0,
    complete: 0,
    right: 0,
    among: 0,
    wrong: 0,
    foreign: 0,
    missed: 0,
    unresolved: 0,
    extra: 0,
  };
  for (const { score } of runs) {
    t.extra += score.extra.length;
    for (const c of score.controllers) {
      t.keyed += 1;
      t.found += c.found ? 1 : 0;
      t.complete += c.complete ? 1 : 0;
      t.right += c.processRight ? 1 : 0;
      t.among += c.processAmong ? 1 : 0;
      t.wrong += c.wrongKinds.length;
      t.foreign += c.foreignSources.length;
      t.missed += c.missedKinds.length;
      t.unresolved += c.unresolvedKinds.length;
    }
  }
  return t;
}

function summaryRow(name: string, runs: RepoRun[]): string {
  const t = totalsOf(runs);
  const blocks = runs.flatMap((r) => r.blockLines);
  const time = runs.map((r) => r.usage);
  const wall = time.reduce((s, u) => s + u.wallS, 0).toFixed(1);
  const cpu = time.reduce((s, u) => s + u.cpuS, 0).toFixed(1);
  const rss = Math.max(...time.map((u) => u.rssMb)).toFixed(0);
  return (
    `| ${name} | ${t.keyed} | ${t.found} (${pct(t.found, t.keyed)}) | ${t.complete} | ${t.found + t.extra} | ` +
    `${t.right} (${pct(t.right, t.keyed)}) | ${t.among} | ${t.wrong} | ${t.foreign} | ${t.missed} | ` +
    `${t.unresolved} | ` +
    `${Math.max(0, ...blocks)} / ${median(blocks)} | ${wall} s / ${cpu} s / ${rss} MB |`
  );
}

/** The first three of a list, and how many more: 16 alternatives would bury the line. */
const shortList = (xs: string[]): string =>
  xs.slice(0, 3).join(" | ") + (xs.length > 3 ? ` (+${xs.length - 3} more)` : "");

function failures(run: RepoRun): string[] {
  const out: string[] = [];
  for (const c of run.score.controllers) {
    const problems: string[] = [];
    if (!c.found) problems.push("not found");
    if (c.found && !c.processRight)
      problems.push(`process: expected ${c.processExpected}, got ${shortList(c.processGot) || "none"}`);
    if (c.wrongKinds.length) problems.push(`wrong kinds: ${c.wrongKinds.join(", ")}`);
    if (c.foreignSources.length) problems.push(`foreign watches: ${shortList(c.foreignSources)}`);
    if (c.missedKinds.length) problems.push(`missed kinds: ${c.missedKinds.join(", ")}`);
    if (c.unresolvedKinds.length) problems.push(`unresolved kinds: ${c.unresolvedKinds.join(", ")}`);
    if (problems.length) out.push(`- ${c.id}${c.found ? ` (found as ${c.found})` : ""}: ${problems.join("; ")}`);
  }
  for (const e of run.score.extra) out.push(`- extra controller not in the key: ${e}`);
  return out;
}

function markdown(runs: RepoRun[], label: string, crdgen: string): string {
  const head =
    "| repo | keyed | found | complete | reported | process right | process among | wrong kinds | foreign watches | " +
    "missed kinds | `?` kinds | lines/controller max / median | wall / CPU / peak RSS |\n" +
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|";
  const rows = runs.map((r) =>
    summaryRow(`${r.key.repo}@${r.key.commit.slice(0, 10)} \`${r.key.root}\`${r.failed ? " (explore failed)" : ""}`, [
      r,
    ]),
  );
  const sections = runs.map(
    (r) =>
      `### ${r.key.repo} (${r.key.url}, ${r.key.commit})\n\n` +
      (r.failed ? `**crdgen explore failed** (${r.failed}); scored as finding nothing. ` : "") +
      `Front end: ${r.frontEnd}. Text report: ${r.textLines} ` +
      `lines. Load average before the run: ${r.usage.load.toFixed(1)}.\n\n${failures(r).join("\n") || "No failures."}`,
  );
  const built = crdgen === repoRoot ? "this checkout" : `the build at --crdgen ${path.basename(crdgen)}`;
  const title = `# Explore accuracy on real operators${label ? ` (${label})` : ""}`;
  return `${title}\n\ncrdgen: ${built}. ${os.cpus().length} CPUs.

${head}
${rows.join("\n")}
${summaryRow("**total**", runs)}

"found": a block paired with the key's controller (its name, or made in its package); "complete": that block has
watches and a worker with a processing function. "process right": every processing function the block names (each
worker's and its run-time alternatives) is the key's; "process among": the key's function is one of them.
"wrong kinds": watched kinds attached to a controller whose key does not list them; "foreign watches": watches
registered in another keyed controller's folder (not this one's), cross-talk even where the kind is right. Time and
memory: the \`--format json\` run (GNU time, whole process tree).

${sections.join("\n\n")}
`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      checkouts: { type: "string" },
      crdgen: { type: "string", default: repoRoot },
      label: { type: "string", default: "" },
      "no-go-types": { type: "boolean", default: false },
    },
  });
  const checkouts = values.checkouts ?? process.env["EXPLORE_ACCURACY_CHECKOUTS"];
  if (!checkouts) throw new Error("give --checkouts <dir> (each key's repository checked out at <dir>/<repo>)");
  const names = positionals.length
    ? positionals
    : readdirSync(keysDir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => f.slice(0, -5));
  const extra = values["no-go-types"] ? ["--no-go-types"] : [];
  const runs: RepoRun[] = [];
  for (const name of names) {
    // A name is a key in bench/explore-accuracy/, or the path of a key file being written (`my/kubevirt.json`).
    const file = name.endsWith(".json") ? name : path.join(keysDir, `${name}.json`);
    const key = JSON.parse(readFileSync(file, "utf8")) as AnswerKey;
    const run = runRepo(key, path.join(checkouts, key.repo), values.crdgen, extra);
    runs.push(run);
    console.log(summaryRow(`${key.repo}${run.failed ? " (explore failed)" : ""}`, [run]));
  }
  console.log(summaryRow("total", runs));
  const md = markdown(runs, values.label, values.crdgen);
  const date = new Date().toISOString().slice(0, 10);
  const base = path.join(resultsDir, `explore-accuracy-${date}${values.label ? `-${values.label}` : ""}`);
  await mkdir(resultsDir, { recursive: true });
  await writeFile(`${base}.md`, md);
  await writeFile(`${base}.json`, `${JSON.stringify(runs, null, 2)}\n`);
  console.log(`written ${path.relative(repoRoot, base)}.{md,json}`);
}

await main();
