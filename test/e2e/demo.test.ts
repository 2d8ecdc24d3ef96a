// `npm run demo` (the README's main command) as a user runs it: it must exit 0 and show every step of the story.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "./control-plane.js";

test("the demo exits 0 and its output shows every step reaching its state", async () => {
  const child = spawn(process.execPath, [path.join(repoRoot, "dist/samples/mysql/src/demo.js")], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(code, 0, `demo exited ${code}:\n${out}`);
  const steps = [
    /== children created\n(.*\n){7}/,
    /== status moves to Ready\n\s+phase Ready, ready 3\/3/,
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
