// Shared helpers stay per caller: N controllers calling one AddEventHandlersT(informer, add, update, delete) and one
// Run(ctx, name, queue, workers, reconcile) each get only their own handlers and reconcile function, and the report
// grows linearly with N (a context-insensitive reading attaches every caller's handlers to every controller: N²).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { explore, flowKeys, textReport, type ExploreResult } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const helpers = path.join(repoRoot, "test", "fixtures", "explore", "shared-helpers", "pkg", "controllerutils");

/** A controller in package c<i> that registers its handlers and runs its workers through the shared helpers. */
function controllerSource(i: number): string {
  return `package c${i}

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"example.com/many/pkg/controllerutils"
)

type Controller${i} struct {
	queue workqueue.TypedRateLimitingInterface[string]
}

func NewController${i}(factory informers.SharedInformerFactory) *Controller${i} {
	c := &Controller${i}{queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
	controllerutils.AddEventHandlersT(factory.Core().V1().ConfigMaps().Informer(), c.onAdd, c.onUpdate, c.onDelete)
	return c
}

func (c *Controller${i}) Run(ctx context.Context) {
	controllerutils.Run(ctx, "c${i}", c.queue, 1, c.reconcile)
}

func (c *Controller${i}) onAdd(obj *corev1.ConfigMap) { c.enqueue(obj) }

func (c *Controller${i}) onUpdate(_, obj *corev1.ConfigMap) { c.enqueue(obj) }

func (c *Controller${i}) onDelete(obj *corev1.ConfigMap) { c.enqueue(obj) }

func (c *Controller${i}) enqueue(obj *corev1.ConfigMap) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

func (c *Controller${i}) reconcile(ctx context.Context, key string) error { return nil }
`;
}

async function exploreMany(n: number): Promise<ExploreResult> {
  const dir = mkdtempSync(path.join(tmpdir(), "crdgen-explore-helpers-"));
  try {
    writeFileSync(path.join(dir, "go.mod"), "module example.com/many\n\ngo 1.24\n");
    cpSync(helpers, path.join(dir, "pkg", "controllerutils"), { recursive: true });
    for (let i = 0; i < n; i++) {
      mkdirSync(path.join(dir, "pkg", `c${i}`), { recursive: true });
      writeFileSync(path.join(dir, "pkg", `c${i}`, "controller.go"), controllerSource(i));
    }
    return await explore([dir]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("each of the controllers calling the shared helpers gets only its own registrations and reconcile function", async () => {
  const result = await exploreMany(4);
  assert.deepEqual(result.unlinked, []);
  assert.equal(result.controllers.length, 4);
  for (const c of result.controllers) {
    const own = c.queue.loc!.file;
    const type = c.name.split(".").at(-1)!; // named by package and type: c0.Controller0
    const handlers = c.sources.flatMap((s) => s.handlers);
    assert.deepEqual(
      handlers.map((h) => `${h.events.join(",")} ${h.fn.name} ${h.fn.loc!.file}`),
      [`add (*${type}).onAdd ${own}`, `update (*${type}).onUpdate ${own}`, `delete (*${type}).onDelete ${own}`],
      `${c.name}: its own three handlers, registered through AddEventHandlersT`,
    );
    assert.deepEqual(
      c.workers.map((w) => [w.process?.loc?.file, w.processAlso ?? []]),
      [[own, []]],
      `${c.name}: the reconcile passed to Run with its own queue`,
    );
  }
});

test("the report grows linearly with the number of controllers sharing the helpers (no cross product)", async () => {
  const sizes: { n: number; flows: number; lines: number }[] = [];
  for (const n of [3, 6, 12]) {
    const result = await exploreMany(n);
    sizes.push({ n, flows: flowKeys(result).length, lines: textReport(result).split("\n").length });
  }
  for (const s of sizes) assert.equal(s.flows, 3 * s.n, `${s.n} controllers: 3 flows each (add, update, delete)`);
  const [a, b, c] = sizes as [(typeof sizes)[0], (typeof sizes)[0], (typeof sizes)[0]];
  assert.equal(c.lines - b.lines, 2 * (b.lines - a.lines), `report lines ${sizes.map((s) => s.lines).join(", ")}`);
});
