// findBinary's order (TEST_ASSET_<NAME>, assetsDir, KUBEBUILDER_ASSETS, crdgen's cache) and what MissingBinaryError
// tells a downstream project to run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { MissingBinaryError, findBinary } from "@crdgen/runtime/envtest";

/** Runs `body` with these variables set (undefined: unset) and a scratch folder, restoring both after. */
function withEnv(vars: Record<string, string | undefined>, body: (dir: string) => void) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-binaries-"));
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) Reflect.deleteProperty(process.env, k);
      else process.env[k] = v.replaceAll("<dir>", dir);
    }
  };
  set(vars);
  try {
    body(dir);
  } finally {
    set(saved);
    rmSync(dir, { recursive: true, force: true });
  }
}

const executable = (file: string) => {
  writeFileSync(file, "#!/bin/sh\n");
  chmodSync(file, 0o755);
  return file;
};

const nowhere = {
  TEST_ASSET_ETCD: undefined,
  TEST_ASSET_KUBE_SCHEDULER: undefined,
  KUBEBUILDER_ASSETS: undefined,
  CRDGEN_CACHE_DIR: "<dir>/cache",
};

test("a missing envtest binary: the error says npx crdgen envtest builds it, or KUBEBUILDER_ASSETS", () => {
  withEnv(nowhere, (dir) => {
    assert.throws(
      () => findBinary("etcd"),
      (error: unknown) =>
        error instanceof MissingBinaryError &&
        error.binary === "etcd" &&
        error.message.includes(path.join(dir, "cache", "controlplane")) &&
        error.message.includes("Build it with `npx crdgen envtest`") &&
        error.message.includes("point KUBEBUILDER_ASSETS at a folder holding etcd, kube-apiserver and kubectl"),
    );
  });
});

test("a missing controller binary: the error says npx crdgen envtest --controllers builds it", () => {
  withEnv(nowhere, () => {
    assert.throws(
      () => findBinary("kube-scheduler"),
      (error: unknown) =>
        error instanceof MissingBinaryError &&
        error.message.includes("`npx crdgen envtest --controllers`") &&
        error.message.includes("TEST_ASSET_KUBE_SCHEDULER"),
    );
  });
});

test("KUBEBUILDER_ASSETS is looked at before crdgen's cache, TEST_ASSET_<NAME> before both", () => {
  withEnv({ ...nowhere, KUBEBUILDER_ASSETS: "<dir>" }, (dir) => {
    const assets = executable(path.join(dir, "etcd"));
    assert.equal(findBinary("etcd"), assets);
    const own = executable(path.join(dir, "my-etcd"));
    process.env["TEST_ASSET_ETCD"] = own;
    assert.equal(findBinary("etcd"), own);
  });
});
