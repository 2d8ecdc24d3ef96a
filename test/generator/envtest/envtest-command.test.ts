// crdgen envtest: KUBEBUILDER_ASSETS as given, crdgen's cache when it is complete, and one line (exit 1) when the
// binaries would have to be built without Go. The build itself is not run here (it takes minutes); these runs have
// no `go` on PATH, so a test that tried to build would fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: this file runs as dist/test/generator/envtest/envtest-command.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const crdgenBin = path.join(repoRoot, "bin", "crdgen.js");

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** PATH without the folders that hold `go` (bash and the tools the script uses stay). */
const pathWithoutGo = (process.env["PATH"] ?? "")
  .split(path.delimiter)
  .filter((dir) => dir && !isExecutable(path.join(dir, "go")))
  .join(path.delimiter);

function scratch(): string {
  return mkdtempSync(path.join(os.tmpdir(), "crdgen-envtest-command-"));
}

/** A fake binary: a shell script printing `output` whatever it is asked. */
function fakeBinary(dir: string, name: string, output = "") {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), `#!/bin/sh\necho '${output}'\n`);
  chmodSync(path.join(dir, name), 0o755);
}

/** crdgen envtest with `env` on top of this environment, Go left out of PATH and crdgen's cache in `cache`. */
function envtest(args: string[], cache: string, env: Record<string, string> = {}) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== "KUBEBUILDER_ASSETS" && !k.startsWith("CRDGEN_")),
  );
  return spawnSync(process.execPath, [crdgenBin, "envtest", ...args], {
    encoding: "utf8",
    env: { ...base, PATH: pathWithoutGo, CRDGEN_CACHE_DIR: cache, ...env },
  });
}

test("the runs below have bash but no go on PATH", () => {
  const dirs = pathWithoutGo.split(path.delimiter);
  assert.ok(
    dirs.some((dir) => isExecutable(path.join(dir, "bash"))),
    `bash is on ${pathWithoutGo}`,
  );
  assert.ok(!dirs.some((dir) => isExecutable(path.join(dir, "go"))));
});

test("KUBEBUILDER_ASSETS holding etcd, kube-apiserver and kubectl is printed as it is, and nothing is built", () => {
  const dir = scratch();
  try {
    const assets = path.join(dir, "assets");
    for (const binary of ["etcd", "kube-apiserver", "kubectl"]) fakeBinary(assets, binary);
    const cache = path.join(dir, "cache");
    for (const args of [[], ["--print-only"]]) {
      const run = envtest(args, cache, { KUBEBUILDER_ASSETS: assets });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, `${assets}\n`, "the folder, alone on stdout: export KUBEBUILDER_ASSETS=$(...) works");
    }
    assert.deepEqual(readdirSync(dir), ["assets"], "no cache folder was made");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("KUBEBUILDER_ASSETS without kubectl: one line naming what is missing, exit 1", () => {
  const dir = scratch();
  try {
    for (const binary of ["etcd", "kube-apiserver"]) fakeBinary(dir, binary);
    const run = envtest([], path.join(dir, "cache"), { KUBEBUILDER_ASSETS: dir });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.equal(
      run.stderr,
      `crdgen: KUBEBUILDER_ASSETS is set to '${dir}', which has no kubectl: unset it to build them\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("without Go and without cached binaries: one line saying which Go to install and how else, exit 1", () => {
  const dir = scratch();
  try {
    const run = envtest([], dir);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    const lines = run.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0]!, /^crdgen: building the control plane needs Go 1\.\d+ or newer .*'go' is not on PATH/);
    assert.match(lines[0]!, /or set KUBEBUILDER_ASSETS to a folder holding etcd, kube-apiserver and kubectl/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("without Go, binaries cached at the wanted versions are used: their folder is printed", () => {
  const dir = scratch();
  try {
    const versions = { CRDGEN_KUBE_VERSION: "1.36.1", CRDGEN_ETCD_VERSION: "3.6.9" };
    const folder = path.join(dir, "controlplane", "1.36.1");
    fakeBinary(folder, "etcd", "etcd Version: 3.6.9");
    fakeBinary(folder, "kube-apiserver", "Kubernetes v1.36.1");
    fakeBinary(folder, "kubectl", "Client Version: v1.36.1");
    const run = envtest([], dir, versions);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `${folder}\n`);
    assert.match(run.stderr, /kubectl 1\.36\.1: cached/);
    // Only --controllers asks for the rest, and the cache does not have them.
    const controllers = envtest(["--controllers"], dir, versions);
    assert.equal(controllers.status, 1);
    assert.match(controllers.stderr, /^crdgen: building the control plane needs Go/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--print-only builds nothing: without the binaries it names the folder and exits 1", () => {
  const dir = scratch();
  try {
    const run = envtest(["--print-only"], dir, { CRDGEN_KUBE_VERSION: "1.36.1" });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.equal(
      run.stderr,
      `crdgen: ${path.join(dir, "controlplane", "1.36.1")} has no etcd, kube-apiserver, kubectl: ` +
        "crdgen envtest builds them (it needs Go), " +
        "or set KUBEBUILDER_ASSETS to a folder holding etcd, kube-apiserver and kubectl (setup-envtest's)\n",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the crdgen package ships the build script and its module templates, not the real node's scripts", () => {
  const pack = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  assert.equal(pack.status, 0, pack.stderr);
  const [manifest] = JSON.parse(pack.stdout) as Array<{ files: Array<{ path: string }> }>;
  const shipped = manifest!.files.map((f) => f.path).filter((p) => p.startsWith("controlplane/"));
  assert.deepEqual(shipped.sort(), [
    "controlplane/build.sh",
    "controlplane/etcd.go.mod.tmpl",
    "controlplane/go.mod.tmpl",
    "controlplane/kwok.go.mod.tmpl",
  ]);
});
