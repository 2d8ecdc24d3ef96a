// `npm run demo` (the README's main command) as a user runs it: it must exit 0 and show every step of the story.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { startControlPlane } from "@crdgen/runtime/envtest";
import { repoRoot } from "./control-plane.js";

async function runDemo(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const child = spawn(process.execPath, [path.join(repoRoot, "dist/samples/mysql/tools/demo.js"), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(code, 0, `demo exited ${code}:\n${out}`);
  return out;
}

test("the demo exits 0 and its output shows every step reaching its state", async () => {
  const out = await runDemo([]);
  const steps = [
    /== children created\n(.*\n){7}/,
    /== status moves to Ready\n\s+phase Ready, ready 3\/3/,
    // The webhooks: a defaulted field, a refused downgrade (CEL first as v1, the webhook as v1alpha1), v1alpha1 as v1.
    /== create a MySQLCluster without spec\.version\n\s+spec\.version 8\.4\.3 /,
    /== downgrade db to 5\.7\.44 as v1\n\s+refused \(the CRD's CEL rule .*422 Invalid: .*spec\.version cannot move to an older/,
    /== downgrade db to 5\.7\.44 as v1alpha1 \(spec\.image\)\n\s+refused .*admission webhook "vmysqlcluster-v1\.example\.com" denied the request: .*spec\.version: Invalid value: "5\.7\.44"/,
    /== create legacy as v1alpha1 .*\n\s+example\.com\/v1: replicas 1, imageRepository mysql, version 8\.0\.36/,
    /== scale from 3 to 5 instances\n\s+StatefulSet db: spec\.replicas 5/,
    /== Ready again with 5 instances\n\s+phase Ready, ready 5\/5/,
    /== upgrade to 8\.0\.37\n\s+phase Ready, ready 5\/5, currentVersion 8\.0\.37/,
    /== deleted Service restored\n\s+Service db recreated/,
    /== delete the cluster\n\s+MySQLCluster db is gone/,
    /== children garbage-collected\n\s+StatefulSet db deleted by the garbage collector/,
    /all steps reached their expected state/,
  ];
  for (const step of steps) assert.match(out, step);
  assert.doesNotMatch(out, /FAILED/);
});

test("demo --context uses that kubeconfig context's cluster, installs the CRD itself and starts no control plane", async () => {
  // A cluster the demo did not start and that has no CRD installed: a control plane of the test's own.
  const plane = await startControlPlane({ controllers: true });
  try {
    const out = await runDemo(["--context", "envtest"], { ...process.env, KUBECONFIG: plane.kubeconfigPath });
    assert.match(out, /using kubeconfig context envtest \(no local control plane\)/);
    assert.doesNotMatch(out, /starting a local control plane/);
    assert.match(out, /all steps reached their expected state/);
  } finally {
    await plane.stop();
  }
});
