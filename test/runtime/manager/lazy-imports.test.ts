// What an operator process loads before it needs it is heap it holds for its whole life, in every replica: node-forge
// (certificates), yaml (kubeconfig files), the webhook server and fast-json-patch (a defaulting webhook's first
// answer) load on first use only, and yaml goes again once a kubeconfig was read. A fresh process imports the entry
// points a sharded operator's main.ts imports and lists the CommonJS packages Node loaded (an ES module import of a
// CommonJS package lands in the same require cache); the runtime requires its CommonJS packages, so Node's
// ES-to-CommonJS machinery (cjs-module-lexer) is not loaded for them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const probe = `
import { createRequire } from "node:module";
await import("@crdgen/runtime");
await import("@crdgen/runtime/manager");
await import("@crdgen/runtime/sharding");
await import("@crdgen/runtime/webhook"); // what a kind's generated webhook module imports
const cache = createRequire(process.cwd() + "/").cache;
console.log(JSON.stringify({ files: Object.keys(cache), internal: process.moduleLoadList }));`;

function packagesOf(files: readonly string[]): string[] {
  return [
    ...new Set(files.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1]).filter(Boolean)),
  ] as string[];
}

function run(script: string, args: string[] = []): { files: string[]; internal: string[] } {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script, ...args], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { files: string[]; internal: string[] };
}

function loadedPackages(): string[] {
  return packagesOf(run(probe).files);
}

test("importing the runtime, manager, sharding and webhooks loads no node-forge, yaml or fast-json-patch", () => {
  const loaded = loadedPackages();
  assert.ok(loaded.includes("prom-client"), `the probe sees packages loaded by import: ${loaded.join(", ")}`);
  for (const lazy of ["node-forge", "yaml", "fast-json-patch"])
    assert.ok(!loaded.includes(lazy), `${lazy} loaded at import: ${loaded.join(", ")}`);
});

test("the runtime's CommonJS packages are required: Node's cjs-module-lexer is not loaded for them", () => {
  const { files, internal } = run(probe);
  assert.ok(packagesOf(files).includes("pino"), "the probe sees pino");
  assert.ok(!internal.some((m) => m.includes("cjs-module-lexer")), internal.filter((m) => m.includes("cjs")).join());
});

const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "https://127.0.0.1:6443" } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u, namespace: team-a } }]
current-context: x
`;

// Each read prints the namespace it found and what require's cache holds after it.
const readTwice = `
import { createRequire } from "node:module";
const { loadKubeClient } = await import("@crdgen/runtime");
if (process.argv[2] === "preloaded") createRequire(process.cwd() + "/")("yaml");
const cache = createRequire(process.cwd() + "/").cache;
for (let i = 0; i < 2; i++) {
  const kube = loadKubeClient({ kubeconfig: process.argv[1] });
  console.log(kube.defaultNamespace, Object.keys(cache).filter((f) => f.includes("/node_modules/yaml/")).length);
  kube.close();
}
console.log(JSON.stringify({ files: Object.keys(cache), internal: [] }));`;

function readKubeconfigTwice(mode: string): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), "lazy-yaml-"));
  const file = path.join(dir, "kubeconfig");
  writeFileSync(file, kubeconfig);
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", readTwice, file, mode], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split("\n").slice(0, 2);
}

test("yaml is loaded to read a kubeconfig file and let go after it, read after read", () => {
  assert.deepEqual(readKubeconfigTwice(""), ["team-a 0", "team-a 0"]);
});

test("a yaml the program loaded itself stays loaded after a kubeconfig read", () => {
  const [first, second] = readKubeconfigTwice("preloaded");
  assert.match(first!, /^team-a [1-9]/);
  assert.equal(second, first);
});
