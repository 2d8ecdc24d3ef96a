// `npm start` of the sample (and of every project crdgen scaffolds: templates/main.ts.hbs has the same lines) without
// a usable kubeconfig: the reason on one line and exit 1, never a stack trace.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** dist/samples/mysql/src/main.js: this file runs as dist/test/samples/mysql/main.test.js. */
const main = fileURLToPath(new URL("../../../samples/mysql/src/main.js", import.meta.url));
const home = mkdtempSync(path.join(tmpdir(), "crdgen-main-home-")); // empty: no ~/.kube/config
after(() => rmSync(home, { recursive: true, force: true }));

function start(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const { KUBECONFIG: _k, KUBERNETES_SERVICE_HOST: _h, ...inherited } = process.env;
  const run = spawnSync(process.execPath, [main], { env: { ...inherited, HOME: home, ...env }, encoding: "utf8" });
  if (run.error) throw run.error;
  return run;
}

test("without any kubeconfig the operator says so in one line and exits 1", () => {
  const run = start({});
  assert.equal(run.status, 1, run.stderr);
  assert.equal(
    run.stderr,
    "no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account\n",
  );
  assert.equal(run.stdout, "");
});

test("a KUBECONFIG naming a missing file is named in one line, exit 1", () => {
  const missing = path.join(home, "no-such-kubeconfig");
  const run = start({ KUBECONFIG: missing });
  assert.equal(run.status, 1, run.stderr);
  assert.equal(run.stderr, `kubeconfig ${missing}: no such file\n`);
});
