// The mermaid and dot pictures: a shared informer and its handler drawn once, fanning out to each queue; workers named
// by the function that takes the keys; a note on pictures too large to read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  dotReport,
  explore,
  filterByKind,
  graphSize,
  mermaidReport,
  readableNodes,
  type Controller,
  type ExploreResult,
} from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const fixture = (name: string) => path.join(repoRoot, "test", "fixtures", "explore", name);

/** Mermaid nodes by id with their label, and the edges as `from>to`. */
function parseMermaid(text: string): { nodes: Map<string, string>; edges: string[] } {
  const nodes = new Map<string, string>();
  const edges: string[] = [];
  for (const line of text.split("\n")) {
    const node = /^ {2}(n\d+)\W+"(.*)"\W*$/.exec(line);
    const edge = /^ {2}(n\d+) -->(?:\|".*"\|)? (n\d+)$/.exec(line);
    if (edge) edges.push(`${edge[1]}>${edge[2]}`);
    else if (node) nodes.set(node[1]!, node[2]!);
  }
  return { nodes, edges };
}

test("a shared informer and its handler appear once, with an edge to each queue they feed", async () => {
  const { nodes, edges } = parseMermaid(mermaidReport(await explore([fixture("shared-informer")])));
  const ids = (re: RegExp) => [...nodes].filter(([, label]) => re.test(label)).map(([id]) => id);
  const [kind, ...moreKinds] = ids(/^Widget<br\/>/);
  const [handler, ...moreHandlers] = ids(/^func literal in NewController<br\/>update</);
  const queues = ids(/^queue /);
  assert.ok(kind && handler, [...nodes.values()].join("\n"));
  assert.deepEqual([moreKinds, moreHandlers], [[], []], "no duplicated informer or handler node");
  assert.equal(queues.length, 2);
  assert.deepEqual(
    edges.filter((e) => e.startsWith(`${handler}>`)).sort(),
    queues.map((q) => `${handler}>${q}`).sort(),
  );
  assert.equal(new Set(edges).size, edges.length, "no edge drawn twice");
});

test("a worker written as a closure is shown by the named function that takes the keys", async () => {
  const result = await explore([fixture("shared-informer")]);
  assert.ok(result.controllers.every((c) => c.workers[0]?.loop.name.startsWith("func literal")));
  for (const picture of [mermaidReport(result), dotReport(result)]) {
    assert.match(picture, /worker \(\*Controller\)\.processNextWidgetRefreshItem/);
    assert.match(picture, /worker \(\*Controller\)\.processNextWidgetOperationItem/);
    assert.doesNotMatch(picture, /worker func literal/);
  }
});

test("a kind known only at run time is not taken for a shared informer: each controller keeps its own", async () => {
  const result = await explore([fixture("ts-controller-for"), path.join(repoRoot, "runtime")]);
  // The owned and the watched kind's informers (a sharded runtime's listener source is no watch of a kind).
  const runtimeKinds = result.controllers.map(
    (c) => c.sources.filter((s) => s.kind === "(kind set at run time)").length,
  );
  assert.deepEqual(runtimeKinds, [2, 2]);
  const { nodes } = parseMermaid(mermaidReport(result));
  assert.equal([...nodes.values()].filter((l) => l.startsWith("(kind set at run time)")).length, 4);
});

/** `n` controllers, each watching its own kind: 5 nodes each (kind, handler, queue, worker, processing function). */
function manyControllers(n: number): ExploreResult {
  const controller = (i: number): Controller => {
    const loc = (line: number) => ({ file: `pkg/c${i}/controller.go`, line });
    return {
      name: `c${i}`,
      queue: { ref: "c.queue", type: "workqueue.NewTypedRateLimitingQueue", rateLimiter: "default", loc: loc(10) },
      sources: [
        {
          kind: `Kind${i}`,
          via: "Informer()",
          loc: loc(12),
          handlers: [
            {
              events: ["add"],
              fn: { name: "(*Controller).enqueue", loc: loc(20) },
              producers: [{ method: "Add", text: "c.queue.Add", loc: loc(21), via: [] }],
            },
          ],
        },
      ],
      workers: [
        {
          loop: { name: "(*Controller).worker", loc: loc(30) },
          process: { name: "(*Controller).sync", loc: loc(40) },
          then: [],
          done: [],
          forget: [],
          requeues: [],
        },
      ],
    };
  };
  const controllers = Array.from({ length: n }, (_, i) => controller(i));
  return { roots: ["."], files: { go: n, ts: 0 }, controllers, unlinked: [], warnings: [] };
}

test(`a picture of more than ${readableNodes} nodes says so and suggests --kind; one of that size does not`, () => {
  const large = manyControllers(61);
  assert.equal(graphSize(large).nodes, 305);
  const note = /305 nodes: more than 300 is hard to read; crdgen explore --kind <Kind> draws one kind's flows/;
  assert.match(mermaidReport(large).split("\n")[1]!, new RegExp(`^ {2}%% ${note.source}$`));
  assert.match(dotReport(large), new RegExp(`^ {2}// ${note.source}$`, "m"));
  const limit = manyControllers(60);
  assert.equal(graphSize(limit).nodes, 300);
  assert.doesNotMatch(mermaidReport(limit), /%%|--kind/);
  assert.doesNotMatch(dotReport(limit), /\/\/|--kind/);
  assert.equal(graphSize(filterByKind(large, "Kind7")).nodes, 5);
});

test("crdgen explore prints the size note on stderr for a large picture, and not with --kind", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-large-"));
  try {
    // 40 copies of the sample controller, 9 nodes each: over the limit together, well under it for one kind
    for (let i = 0; i < 40; i++) cpSync(fixture("sample-controller"), path.join(dir, `op${i}`), { recursive: true });
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(repoRoot, "bin", "crdgen.js"), "explore", dir, ...args], {
        encoding: "utf8",
      });
    for (const format of ["mermaid", "dot"]) {
      const all = run("--format", format);
      assert.equal(all.status, 0, all.stderr);
      assert.match(all.stderr, /^crdgen explore: \d+ nodes: more than 300 is hard to read; .* --kind <Kind>/m);
      const one = run("--format", format, "--kind", "Foo");
      assert.equal(one.status, 0, one.stderr);
      assert.equal(one.stderr, "");
    }
    assert.doesNotMatch(run().stderr, /nodes/, "the text report draws no picture");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
