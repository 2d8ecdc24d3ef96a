// Explore benchmark: `crdgen explore` on a generated 5,000-file Go tree (issue 30's goal: 10 s and 2 GB warm on this
// machine), and the size of what it prints.
//
//   npm run bench:explore                   (builds first; BENCH_GO_FILES=1000 for a quick run, BENCH_RUNS=3)
//
// The tree is one Go module written to a temporary folder: BENCH_GO_FILES / 20 packages, each a client-go style
// controller (an informer per kind, handlers through a helper, a rate-limited queue, a worker loop) spread over 3
// files, plus 17 files of ordinary code (types, helpers, loops, calls between them) so most of the tree is not
// controller code, as in a real operator. The module requires client-go, so Go's type checker (the typed front end,
// explore's default) loads it: its goal is 10 s and 2 GB on 5,000 files, the Go build cache warm. Each run is a fresh
// `node bin/crdgen.js explore <tree> --json` process (wall time, CPU time with its children, peak RSS), then the Go
// program runs once alone; the run must find every controller. BENCH_GO_TYPES=0: syntax only (`--no-go-types`).
//
// Output size: the text report, the flows and the mermaid/dot nodes of the result, on the full tree and on a tree a
// fifth of its size. Bytes, lines and nodes per flow must stay the same between the two (a cross product of
// registrations and controllers would make them grow with the tree): the benchmark fails when they grow by more than
// a quarter. Results: a table on stdout and bench/results/explore-<date>.{json,md}.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type ExploreResult, flowKeys, goTypesProgram, graphSize, textReport } from "@crdgen/explore";
import { repoRoot, resultsDir } from "./paths.js";

const FILES = Number(process.env["BENCH_GO_FILES"] ?? 5000);
/** BENCH_GO_TYPES=0: Go read by syntax only (`--no-go-types`), to compare with the typed front end (the default). */
const GO_TYPES = process.env["BENCH_GO_TYPES"] !== "0";
const RUNS = Number(process.env["BENCH_RUNS"] ?? 3);
const PER_PACKAGE = 20;
const packages = Math.ceil(FILES / PER_PACKAGE);
/** The smaller tree the output size is compared with. */
const SMALL_FILES = Math.max(2 * PER_PACKAGE, Math.round(FILES / 5 / PER_PACKAGE) * PER_PACKAGE);
/** How much more output per flow the larger tree may print before the benchmark calls it superlinear. */
const MAX_GROWTH = 1.25;

const kindOf = (i: number): string => `Widget${String(i).padStart(4, "0")}`;

function controllerGo(pkg: string, kind: string): string {
  return `package ${pkg}

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Controller reconciles ${kind} objects and the Deployments they own.
type Controller struct {
	queue   workqueue.TypedRateLimitingInterface[string]
	indexer cache.Indexer
	stats   *Stats
}

// NewController wires both informers to the queue.
func NewController(factory informers.SharedInformerFactory, own ${kind}Informer) *Controller {
	c := &Controller{stats: &Stats{}}
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "${kind.toLowerCase()}s"})
	own.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj interface{}) { c.enqueue(obj) },
		DeleteFunc: c.enqueue,
	})
	factory.Apps().V1().Deployments().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj interface{}) { c.enqueueOwner(obj) },
	})
	c.indexer = own.Informer().GetIndexer()
	return c
}

// Run starts the workers.
func (c *Controller) Run(ctx context.Context, workers int) {
	for i := 0; i < workers; i++ {
		go wait.UntilWithContext(ctx, c.runWorker, time.Second)
	}
	<-ctx.Done()
}
`;
}

function handlersGo(pkg: string): string {
  return `package ${pkg}

import "k8s.io/client-go/tools/cache"

func (c *Controller) enqueue(obj interface{}) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	c.stats.Enqueued++
	c.queue.Add(key)
}

func (c *Controller) enqueueOwner(obj interface{}) {
	if owner, ok := ownerKey(obj); ok {
		c.queue.AddAfter(owner, delayFor(owner))
	}
}
`;
}

function workerGo(pkg: string): string {
  return `package ${pkg}

import "context"

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

func (c *Controller) sync(ctx context.Context, key string) error {
	obj, exists, err := c.indexer.GetByKey(key)
	if err != nil || !exists {
		return err
	}
	return apply(ctx, obj)
}
`;
}

function fillerGo(pkg: string, kind: string, n: number): string {
  const t = `${kind}Part${n}`;
  return `package ${pkg}

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// ${t} is ordinary operator code: a type, a few methods, loops and calls.
type ${t} struct {
	Name     string
	Labels   map[string]string
	Replicas int32
	Items    []string
	Updated  time.Time
}

// New${t} builds a ${t} from labels.
func New${t}(name string, labels map[string]string) *${t} {
	p := &${t}{Name: name, Labels: map[string]string{}}
	for k, v := range labels {
		p.Labels[k] = strings.TrimSpace(v)
	}
	return p
}

func (p *${t}) Keys() []string {
	keys := make([]string, 0, len(p.Labels))
	for k := range p.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (p *${t}) Describe() string {
	var b strings.Builder
	for i, k := range p.Keys() {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%s=%s", k, p.Labels[k])
	}
	return b.String()
}

func (p *${t}) Scale(ctx context.Context, replicas int32) error {
	if replicas < 0 {
		return fmt.Errorf("%s: negative replicas %d", p.Name, replicas)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	p.Replicas = replicas
	p.Updated = time.Now()
	return nil
}

func merge${t}(a, b *${t}) *${t} {
	out := New${t}(a.Name, a.Labels)
	for k, v := range b.Labels {
		if _, ok := out.Labels[k]; !ok {
			out.Labels[k] = v
		}
	}
	out.Items = append(append(out.Items, a.Items...), b.Items...)
	if err := out.Scale(context.Background(), a.Replicas+b.Replicas); err != nil {
		return a
	}
	return out
}
`;
}

function supportGo(pkg: string, kind: string): string {
  return `package ${pkg}

import (
	"context"
	"time"

	"k8s.io/client-go/tools/cache"
)

// ${kind}Informer is the generated informer accessor for ${kind}.
type ${kind}Informer interface {
	Informer() cache.SharedIndexInformer
}

// Stats counts what the controller did.
type Stats struct {
	Enqueued int
}

func ownerKey(obj interface{}) (string, bool) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	return key, err == nil
}

func delayFor(key string) time.Duration {
	return time.Duration(len(key)) * time.Millisecond
}

func apply(ctx context.Context, obj interface{}) error {
	_ = ctx
	_ = obj
	return nil
}
`;
}

/** The tree's go.mod and go.sum (client-go's module graph, tidy), so that Go's type checker loads the tree. */
const goModule = path.join(repoRoot, "bench", "explore-go-module");

function writeTree(dir: string, wanted: number): number {
  for (const f of ["go.mod", "go.sum"]) writeFileSync(path.join(dir, f), readFileSync(path.join(goModule, f)));
  let files = 0;
  for (let i = 0; i < Math.ceil(wanted / PER_PACKAGE) && files < wanted; i++) {
    const pkg = `c${String(i).padStart(4, "0")}`;
    const kind = kindOf(i);
    const pdir = path.join(dir, "pkg", pkg);
    mkdirSync(pdir, { recursive: true });
    const sources: [name: string, text: string][] = [
      ["controller.go", controllerGo(pkg, kind)],
      ["handlers.go", handlersGo(pkg)],
      ["worker.go", workerGo(pkg)],
      ["support.go", supportGo(pkg, kind)],
    ];
    for (let n = 0; sources.length < PER_PACKAGE; n++) sources.push([`part${n}.go`, fillerGo(pkg, kind, n)]);
    for (const [name, text] of sources) {
      if (files >= wanted) break;
      writeFileSync(path.join(pdir, name), text);
      files++;
    }
  }
  return files;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// The CLI itself, in a child that also reports its own CPU time and peak RSS on exit: on a shared 2-CPU machine the
// wall time swings with the neighbours' load, the CPU time much less.
const bin = path.join(repoRoot, "bin", "crdgen.js");
const child = `process.on("exit", () => { const u = process.cpuUsage(); process.stderr.write("\\nCPU_MS " + (u.user + u.system) / 1000 + " MAX_RSS_KB " + process.resourceUsage().maxRSS + "\\n"); });
process.argv.splice(1, 0, ${JSON.stringify(bin)});
await import(${JSON.stringify(pathToFileURL(bin).href)});`;

interface Run {
  ms: number;
  /** User + system CPU of the explore process and its children (Go's type checker and `go list`). */
  cpuMs: number;
  rssMb: number;
  /** The 1-minute load average before the run. */
  load: number;
  controllers: number;
  sources: number;
  result: ExploreResult;
}

/** One fresh `crdgen explore <tree> --json`, checked to find every controller of a tree of `files` files. */
function exploreOnce(dir: string, files: number): Run {
  const expected = Math.ceil(files / PER_PACKAGE);
  const load = os.loadavg()[0]!;
  const started = process.hrtime.bigint();
  const args = ["--input-type=module", "-e", child, "explore", dir, "--json", ...(GO_TYPES ? [] : ["--no-go-types"])];
  // GNU time counts the children's CPU too (the Go program runs beside node); node's own figure otherwise.
  const run = timed(process.execPath, args);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`crdgen explore failed (${String(run.status)}): ${run.stderr}`);
  const cpuMs = run.cpuMs ?? Number(/CPU_MS ([\d.]+)/.exec(run.stderr)?.[1]);
  const rssMb = Number(/MAX_RSS_KB (\d+)/.exec(run.stderr)?.[1]) / 1024;
  const result = JSON.parse(run.stdout) as ExploreResult;
  if (GO_TYPES && !result.goFrontEnd?.startsWith("Go types from go/packages"))
    throw new Error(`the typed Go front end was not used: ${result.goFrontEnd}`);
  const controllers = result.controllers.length;
  const sources = result.controllers.reduce((n, c) => n + c.sources.length, 0);
  const complete = result.controllers.filter(
    (c) => c.sources.length === 2 && c.workers.length === 1 && c.workers[0]!.process,
  ).length;
  if (result.files.go !== files || controllers !== expected || complete !== expected || result.unlinked.length) {
    throw new Error(
      `explore found ${controllers} controllers (${complete} complete) in ${result.files.go} files; expected ${expected} in ${files}; unlinked: ${result.unlinked.slice(0, 5).join("; ")}`,
    );
  }
  return { ms, cpuMs, rssMb, load, controllers, sources, result };
}

const gnuTime = "/usr/bin/time";

/** Runs a command, with its and its children's CPU time and the largest peak RSS among them when GNU time is here. */
function timed(
  command: string,
  args: string[],
): {
  status: number | null;
  stdout: string;
  stderr: string;
  cpuMs?: number;
  rssMb?: number;
} {
  if (!existsSync(gnuTime)) return spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 30 });
  const run = spawnSync(gnuTime, ["-f", "GNU_TIME %U %S %M", command, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const m = /GNU_TIME ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(run.stderr);
  return m ? { ...run, cpuMs: (Number(m[1]) + Number(m[2])) * 1000, rssMb: Number(m[3]) / 1024 } : run;
}

/** The Go program alone on the tree (warm: the tree was explored before): wall, CPU and peak RSS. */
async function goProgramOnce(dir: string): Promise<{ ms: number; cpuMs?: number; rssMb?: number }> {
  const program = await goTypesProgram();
  const started = process.hrtime.bigint();
  const run = timed(program, [dir]);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`the Go program failed (${String(run.status)}): ${run.stderr}`);
  return { ms, ...(run.cpuMs === undefined ? {} : { cpuMs: run.cpuMs }), ...(run.rssMb ? { rssMb: run.rssMb } : {}) };
}

/** What the user gets to read: the text report (bytes, lines), the flows, the nodes of the mermaid/dot picture. */
interface OutputSize {
  files: number;
  controllers: number;
  flows: number;
  bytes: number;
  lines: number;
  graphNodes: number;
  bytesPerFlow: number;
  linesPerFlow: number;
  nodesPerFlow: number;
}

function outputSize(files: number, result: ExploreResult): OutputSize {
  const text = textReport(result);
  const flows = flowKeys(result).length;
  const size = {
    files,
    controllers: result.controllers.length,
    flows,
    bytes: Buffer.byteLength(text),
    lines: text.split("\n").length - 1,
    graphNodes: graphSize(result).nodes,
  };
  return {
    ...size,
    bytesPerFlow: size.bytes / flows,
    linesPerFlow: size.lines / flows,
    nodesPerFlow: size.graphNodes / flows,
  };
}

/** Fills the Go build cache as one `go build` does (else the first run compiles the export data explore reads). */
function goBuild(dir: string): void {
  if (!GO_TYPES) return;
  const build = spawnSync("go", ["build", "./..."], { cwd: dir, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`go build of the generated tree failed: ${build.stderr || build.error}`);
}

function treeOf(files: number): { dir: string; files: number; lines: number } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-bench-explore-"));
  const written = writeTree(dir, files);
  const lines = spawnSync("sh", ["-c", `cat $(find "${dir}" -name '*.go') | wc -l`], {
    encoding: "utf8",
  }).stdout.trim();
  return { dir, files: written, lines: Number(lines) };
}

const trees: { dir: string }[] = [];
try {
  const tree = treeOf(FILES);
  trees.push(tree);
  const { files, lines } = tree;
  console.log(`generated ${files} Go files (${lines} lines, ${packages} packages) in a temporary folder`);
  // Warm, as the goal says: the Go build cache filled as after one `go build` (the first run would compile the
  // dependencies' export data).
  goBuild(tree.dir);
  const runs: Run[] = [];
  for (let r = 0; r < RUNS; r++) {
    const run = exploreOnce(tree.dir, files);
    runs.push(run);
    console.log(
      `run ${r + 1}: ${(run.ms / 1000).toFixed(2)} s wall, ${(run.cpuMs / 1000).toFixed(2)} s CPU, peak RSS ${run.rssMb.toFixed(0)} MB (load average ${run.load.toFixed(2)} before), ${run.controllers} controllers, ${run.sources} watched kinds, every flow complete`,
    );
  }
  const goProgram = GO_TYPES ? await goProgramOnce(tree.dir) : undefined;
  const fmt = (x: number | undefined, unit: string, scale: number, digits: number) =>
    x === undefined ? "?" : `${(x / scale).toFixed(digits)} ${unit}`;
  const goLine = goProgram
    ? `the Go program alone (warm): ${fmt(goProgram.ms, "s", 1000, 2)} wall, ${fmt(goProgram.cpuMs, "s", 1000, 2)} CPU, peak RSS ${fmt(goProgram.rssMb, "MB", 1, 0)}`
    : "Go read by syntax only (BENCH_GO_TYPES=0)";
  console.log(goLine);
  const large = outputSize(files, runs.at(-1)!.result);
  const smallTree = treeOf(SMALL_FILES);
  trees.push(smallTree);
  goBuild(smallTree.dir);
  const smallRun = exploreOnce(smallTree.dir, smallTree.files);
  const small = outputSize(smallTree.files, smallRun.result);
  console.log(
    `run on ${smallTree.files} files: ${(smallRun.ms / 1000).toFixed(2)} s wall, ${(smallRun.cpuMs / 1000).toFixed(2)} s CPU, peak RSS ${smallRun.rssMb.toFixed(0)} MB`,
  );
  const growth = {
    bytesPerFlow: large.bytesPerFlow / small.bytesPerFlow,
    linesPerFlow: large.linesPerFlow / small.linesPerFlow,
    nodesPerFlow: large.nodesPerFlow / small.nodesPerFlow,
    flowsPerController: large.flows / large.controllers / (small.flows / small.controllers),
  };
  const superlinear = Object.entries(growth).filter(([, g]) => g > MAX_GROWTH);

  const date = new Date().toISOString().slice(0, 10);
  const ms = median(runs.map((r) => r.ms));
  const cpu = median(runs.map((r) => r.cpuMs));
  const rss = median(runs.map((r) => r.rssMb));
  const env = { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model.trim() ?? "?" };
  const round = (x: number, digits = 2): number => Number(x.toFixed(digits));
  const summary = {
    date,
    goFiles: files,
    goLines: lines,
    packages,
    runs: runs.map((r) => ({
      wallMs: Math.round(r.ms),
      cpuMs: Math.round(r.cpuMs),
      peakRssMb: Math.round(r.rssMb),
      loadAverage: round(r.load),
    })),
    medianMs: Math.round(ms),
    medianCpuMs: Math.round(cpu),
    medianPeakRssMb: Math.round(rss),
    goTypes: GO_TYPES,
    ...(goProgram
      ? {
          goProgram: {
            wallMs: Math.round(goProgram.ms),
            ...(goProgram.cpuMs === undefined ? {} : { cpuMs: Math.round(goProgram.cpuMs) }),
            ...(goProgram.rssMb === undefined ? {} : { peakRssMb: Math.round(goProgram.rssMb) }),
          },
        }
      : {}),
    goalMs: 10_000,
    goalPeakRssMb: 2_048,
    outputSize: [small, large].map((o) => ({
      ...o,
      bytesPerFlow: round(o.bytesPerFlow, 1),
      linesPerFlow: round(o.linesPerFlow),
      nodesPerFlow: round(o.nodesPerFlow),
    })),
    growthPerFlow: Object.fromEntries(Object.entries(growth).map(([k, g]) => [k, round(g, 3)])),
    maxGrowth: MAX_GROWTH,
    env,
  };
  const sizeRow = (o: OutputSize): string =>
    `| ${o.files.toLocaleString("en")} | ${o.controllers} | ${o.flows} | ${o.bytes.toLocaleString("en")} | ${o.lines.toLocaleString("en")} | ${o.graphNodes.toLocaleString("en")} | ${o.bytesPerFlow.toFixed(1)} | ${o.linesPerFlow.toFixed(2)} | ${o.nodesPerFlow.toFixed(2)} |`;
  const md = `# crdgen explore benchmark — ${date}

A generated Go module of ${files.toLocaleString("en")} files (${lines.toLocaleString("en")} lines) in ${packages} packages: each package one client-go style
controller (two informers, handlers through a helper, a rate-limited queue, a worker loop) in 3 files plus ${PER_PACKAGE - 3} files of
ordinary code, a module requiring client-go. \`node bin/crdgen.js explore <tree> --json${GO_TYPES ? "" : " --no-go-types"}\` in a fresh process, ${RUNS} runs; node ${env.node}, ${env.cpus} CPUs (${env.cpuModel}).
${GO_TYPES ? "Go's type checker (explore/go-typed) loads the module beside the syntax reader, the Go build cache warm; CPU is node's and its children's (the Go program, `go list`), peak RSS node's; " : ""}${goLine}.
Every run found all ${packages} controllers with both watched kinds, the worker loop and the processing function.
The machine is shared (2 CPUs, other work running): the wall time moves with the load average, the CPU time (user + system of
the explore process and its children) much less.

| Go files | wall per run (s) | CPU per run (s) | peak RSS per run (MB) | load average before | median wall | median CPU | median peak RSS | goal |
|---:|---|---|---|---|---:|---:|---:|---:|
| ${files.toLocaleString("en")} | ${runs.map((r) => (r.ms / 1000).toFixed(2)).join(", ")} | ${runs.map((r) => (r.cpuMs / 1000).toFixed(2)).join(", ")} | ${runs.map((r) => r.rssMb.toFixed(0)).join(", ")} | ${runs.map((r) => r.load.toFixed(2)).join(", ")} | **${(ms / 1000).toFixed(2)} s** | **${(cpu / 1000).toFixed(2)} s** | **${rss.toFixed(0)} MB** | ≤ 10 s, ≤ 2 GB |

## Output size

The text report (bytes, lines), the flows (kind, handler, queue, worker loop, processing function) and the nodes of the
mermaid/dot picture, on this tree and on one of ${smallTree.files.toLocaleString("en")} files (${(smallRun.ms / 1000).toFixed(2)} s wall, ${(smallRun.cpuMs / 1000).toFixed(2)} s CPU, peak RSS ${smallRun.rssMb.toFixed(0)} MB).
Per flow the output must stay the same size as the tree grows (no cross product of registrations and controllers):
from the smaller tree to the larger, bytes per flow grew ×${growth.bytesPerFlow.toFixed(3)}, lines per flow ×${growth.linesPerFlow.toFixed(3)},
nodes per flow ×${growth.nodesPerFlow.toFixed(3)}, flows per controller ×${growth.flowsPerController.toFixed(3)} (the benchmark fails above ×${MAX_GROWTH}).

| Go files | controllers | flows | text bytes | text lines | graph nodes | bytes per flow | lines per flow | nodes per flow |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${sizeRow(small)}
${sizeRow(large)}
`;
  await mkdir(resultsDir, { recursive: true });
  await writeFile(path.join(resultsDir, `explore-${date}.json`), `${JSON.stringify(summary, null, 2)}\n`);
  await writeFile(path.join(resultsDir, `explore-${date}.md`), md);
  console.log(`\n${md}`);
  if (superlinear.length) {
    throw new Error(
      `output grows faster than the flows: ${superlinear.map(([k, g]) => `${k} ×${g.toFixed(3)}`).join(", ")} from ${small.files} to ${large.files} files (limit ×${MAX_GROWTH})`,
    );
  }
} finally {
  for (const t of trees) rmSync(t.dir, { recursive: true, force: true });
}
