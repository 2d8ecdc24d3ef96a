// What a hostile CEL input costs the generated validating webhook: for each object of
// test/runtime/validation/hostile-cel.ts, a fresh node process sends it through the webhook's handler
// (validate<Kind>() inside), after a warm-up admission of an ordinary object, and reports the time it took and the
// peak RSS it added. The goal (issue 29): each refused in < 100 ms with < 50 MB extra, in a Pod of 256 Mi.
//   npm run bench:cel-cost      (builds first; median of 3 fresh processes per object)
import { spawnSync } from "node:child_process";
import path from "node:path";
import { compiledDir, repoRoot } from "./paths.js";
import { hostileSpecs } from "../test/runtime/validation/hostile-cel.js";

const helper = path.join(compiledDir, "..", "test", "runtime", "validation", "hostile-cel.js");
const probe = `
const { admit, createReview, hostileSpecs, hostileWebhook, ordinarySpec } = await import(process.argv[1]);
const webhook = hostileWebhook();
await admit(webhook, createReview(ordinarySpec));
const review = createReview(hostileSpecs[process.argv[2]]);
const request = Buffer.from(JSON.stringify(review));
globalThis.gc();
const before = process.memoryUsage().rss;
const start = performance.now();
const { response } = await admit(webhook, JSON.parse(request.toString()));
const ms = performance.now() - start;
const extra = process.resourceUsage().maxRSS * 1024 - before;
console.log(JSON.stringify({ ms, extraMB: extra / 1048576, allowed: response.allowed, kb: request.length / 1024 }));`;

interface Run {
  ms: number;
  extraMB: number;
  allowed: boolean;
  kb: number;
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log("| hostile object | request (KB) | refused | time (ms) | peak RSS added (MB) |\n|---|---:|---|---:|---:|");
for (const what of Object.keys(hostileSpecs)) {
  const runs: Run[] = [];
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", probe, helper, what], {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: 600_000,
    });
    if (r.status !== 0) throw new Error(`${what}: ${r.stderr || r.signal}`);
    runs.push(JSON.parse(r.stdout.trim()) as Run);
  }
  const refused = runs.every((r) => !r.allowed) ? "yes" : "NO";
  const ms = median(runs.map((r) => r.ms)).toFixed(0);
  const mb = median(runs.map((r) => r.extraMB)).toFixed(0);
  console.log(`| ${what} | ${runs[0]!.kb.toFixed(0)} | ${refused} | ${ms} | ${mb} |`);
}
