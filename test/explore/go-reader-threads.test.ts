// A large tree's Go files are read on worker threads. Those threads must start whatever flags the host process was
// started with: a tool that drives explore from `node --input-type=module -e …` (the explore bench does) used to get
// ERR_INPUT_TYPE_NOT_ALLOWED from every worker. The flows must be those read on one thread.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { explore, flowKeys } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const tree = path.join(repoRoot, "test", "fixtures", "explore", "go-shared-indexer");

test("Go files read on a worker thread from a process started with --input-type and -e give one thread's flows", async () => {
  const script = [
    'import { explore, flowKeys } from "@crdgen/explore";',
    `const result = await explore([${JSON.stringify(tree)}], { goWorkers: 1 });`,
    "process.stdout.write(JSON.stringify({ flows: flowKeys(result), warnings: result.warnings }));",
  ].join("\n");
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8" });
  assert.equal(run.status, 0, `explore with a worker thread failed: ${run.stderr}`);
  const threaded = JSON.parse(run.stdout) as { flows: string[]; warnings: string[] };
  const oneThread = await explore([tree], { goWorkers: 0 });
  assert.ok(threaded.flows.length > 0, "the fixture has flows");
  assert.deepEqual(threaded.flows, flowKeys(oneThread));
  assert.deepEqual(threaded.warnings, oneThread.warnings);
});
