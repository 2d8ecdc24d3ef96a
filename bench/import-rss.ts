// The memory an operator pays for its imports: the RSS and the V8 heap in use of a fresh node process after importing
// one entry point and a full GC, for the runtime's root, the subpaths the sample operator and bench:runtime use, and
// @kubernetes/client-node. The heap is what every process of an operator holds before it caches anything.
//   npm run bench:import-rss      (builds first; median of 5 fresh processes per entry point, in MB)
import { spawnSync } from "node:child_process";
import path from "node:path";
import { repoRoot } from "./paths.js";

const generated = path.join(repoRoot, "dist/samples/mysql/generated");
const entries: [label: string, spec: string | null][] = [
  ["(nothing: bare node)", null],
  ["@crdgen/runtime", "@crdgen/runtime"],
  ["@crdgen/runtime/client", "@crdgen/runtime/client"],
  ["@crdgen/runtime/cache", "@crdgen/runtime/cache"],
  ["@crdgen/runtime/manager", "@crdgen/runtime/manager"],
  ["samples/mysql generated/example.com/v1", path.join(generated, "example.com/v1/index.js")],
  ["samples/mysql generated/controllers", path.join(generated, "controllers.js")],
  ["@kubernetes/client-node", "@kubernetes/client-node"],
];
const probe = `
const spec = process.argv[1];
if (spec !== "") await import(spec.startsWith("/") ? "file://" + spec : spec);
for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); }
const { rss, heapUsed } = process.memoryUsage();
console.log(rss, heapUsed);`;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log("| imported | RSS after GC (MB) | heap used after GC (MB) |\n|---|---:|---:|");
for (const [label, spec] of entries) {
  const rss: number[] = [];
  const heap: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", probe, spec ?? ""], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`${label}: ${r.stderr}`);
    const [rssBytes, heapBytes] = r.stdout.trim().split(" ").map(Number);
    rss.push(rssBytes! / 2 ** 20);
    heap.push(heapBytes! / 2 ** 20);
  }
  console.log(`| ${label} | ${median(rss).toFixed(1)} | ${median(heap).toFixed(1)} |`);
}
