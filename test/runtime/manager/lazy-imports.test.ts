// What an operator process loads before it needs it is heap it holds for its whole life, in every replica: node-forge
// (certificates), yaml (kubeconfig files) and the webhook server (with fast-json-patch, through admission) load on
// first use only. A fresh process imports the entry points a sharded operator's main.ts imports and lists the
// CommonJS packages Node loaded (an ES module import of a CommonJS package lands in the same require cache).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

const probe = `
import { createRequire } from "node:module";
await import("@crdgen/runtime");
await import("@crdgen/runtime/manager");
await import("@crdgen/runtime/sharding");
const cache = createRequire(process.cwd() + "/").cache;
console.log(JSON.stringify(Object.keys(cache)));`;

function loadedPackages(): string[] {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const files = JSON.parse(r.stdout) as string[];
  return [
    ...new Set(files.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1]).filter(Boolean)),
  ] as string[];
}

test("importing the runtime, its manager and sharding loads neither node-forge, yaml nor the webhook server", () => {
  const loaded = loadedPackages();
  assert.ok(loaded.includes("prom-client"), `the probe sees packages loaded by import: ${loaded.join(", ")}`);
  for (const lazy of ["node-forge", "yaml", "fast-json-patch"])
    assert.ok(!loaded.includes(lazy), `${lazy} loaded at import: ${loaded.join(", ")}`);
});
