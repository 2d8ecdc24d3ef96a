// The text report's per-kind summary: one line per watched kind, first, each flow as handler → queue → processing
// function, a handler feeding several queues named once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { explore, textReport, type Controller, type ExploreResult } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const fixture = (name: string) => path.join(repoRoot, "test", "fixtures", "explore", name);

/** `file:line` of the one line of a fixture file containing `text`. */
function lineOf(dir: string, file: string, text: string): string {
  const lines = readFileSync(path.join(dir, file), "utf8").split("\n");
  const hits = lines.flatMap((l, i) => (l.includes(text) ? [i + 1] : []));
  assert.equal(hits.length, 1, `${file}: ${hits.length} lines contain ${text}`);
  return `${file}:${hits[0]}`;
}

const summaryOf = (report: string) => {
  const lines = report.split("\n");
  const start = lines.indexOf("By kind (handler → queue (how keys are added) → processing function):");
  assert.ok(start > 0, report);
  const end = lines.indexOf("", start);
  return {
    start,
    lines: lines.slice(start + 1, end),
    firstController: lines.findIndex((l) => l.startsWith("controller ")),
  };
};

test("one informer handler feeding two queues: the kind's line names the handler once and both flows", async () => {
  const dir = fixture("shared-informer");
  const report = textReport(await explore([dir]));
  const { start, lines, firstController } = summaryOf(report);
  const f = "pkg/widgets/controller.go";
  assert.deepEqual(lines, [
    `  Widget: UpdateFunc (${lineOf(dir, f, "UpdateFunc: func")})` +
      ` → "widget-refresh" (AddRateLimited) → (*Controller).refreshWidget (${lineOf(dir, f, ") refreshWidget(")})` +
      `; → "widget-operation" (Add) → (*Controller).operateOnWidget (${lineOf(dir, f, ") operateOnWidget(")})`,
  ]);
  assert.ok(start < firstController, "the summary comes before the per-controller blocks");
});

test("handlers that feed the same queue the same way share one segment; kinds are sorted", async () => {
  const dir = fixture("two-informers");
  const { lines } = summaryOf(textReport(await explore([dir])));
  const process = `(*Controller).syncApp (${lineOf(dir, "pkg/controller/worker.go", ") syncApp(")})`;
  assert.deepEqual(lines, [
    `  ConfigMap: UpdateFunc (*Controller).onConfigMapUpdate (${lineOf(dir, "pkg/controller/handlers.go", "onConfigMapUpdate(")}) → c.queue (AddAfter) → ${process}`,
    `  Pod: AddFunc/DeleteFunc (*Controller).onPod (${lineOf(dir, "pkg/controller/handlers.go", ") onPod(")}), UpdateFunc (${lineOf(dir, "pkg/controller/controller.go", "UpdateFunc: func")}) → c.queue (Add) → ${process}`,
  ]);
});

test("crdgen's runtime: the kind's line ends in the user's hook, the function that does the work", async () => {
  const result = await explore([path.join(repoRoot, "samples/mysql"), path.join(repoRoot, "runtime")]);
  const { lines } = summaryOf(textReport(result));
  // MySQLCluster, the shard member's acquired listener, and the kinds set at run time (owns and watches).
  assert.equal(lines.length, 3);
  assert.match(lines[0]!, /^ {2}MySQLCluster: addFunc \(runtime\/handler\/event-handlers\.ts:\d+\), updateFunc /);
  assert.match(
    lines[1]!,
    /^ {2}\(callback\): acquired \(runtime\/controller\/sharded\.ts:\d+\) → this\.queue \(add\) /,
  );
  for (const line of lines) assert.match(line, / → reconcile \(samples\/mysql\/src\/mysqlcluster\.hooks\.ts:\d+\)$/);
});

test("two controllers whose queues read the same are told apart by the controller's name", () => {
  const controller = (name: string, kind: string): Controller => ({
    name,
    queue: { ref: "c.queue", type: "workqueue.NewTypedRateLimitingQueue", rateLimiter: "default" },
    sources: [
      {
        kind,
        via: "Informer()",
        handlers: [
          {
            events: ["add"],
            fn: { name: "(*Controller).enqueue", loc: { file: `${name}.go`, line: 3 } },
            producers: [{ method: "Add", text: "c.queue.Add", loc: { file: `${name}.go`, line: 4 }, via: [] }],
          },
        ],
      },
    ],
    workers: [
      {
        loop: { name: "(*Controller).worker", loc: { file: `${name}.go`, line: 9 } },
        then: [],
        done: [],
        forget: [],
        requeues: [],
      },
    ],
  });
  const result: ExploreResult = {
    roots: ["."],
    files: { go: 2, ts: 0 },
    controllers: [controller("pods", "Pod"), controller("secrets", "Secret")],
    unlinked: [],
    warnings: [],
  };
  const { lines } = summaryOf(textReport(result));
  assert.deepEqual(lines, [
    "  Pod: AddFunc (*Controller).enqueue (pods.go:3) → c.queue of pods (Add) → (processing function not found)",
    "  Secret: AddFunc (*Controller).enqueue (secrets.go:3) → c.queue of secrets (Add) → (processing function not found)",
  ]);
});
