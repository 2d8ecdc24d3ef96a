// crdgen's controllerFor read as controller-runtime's builder is: each call is one controller, named after the function
// it is in, its kind the descriptor's; without the runtime's sources the queue and worker are the library's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { explore } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

test("without the runtime, each controllerFor call is still a controller of its descriptor's kind, processing its own reconcile hook", async () => {
  const result = await explore([path.join(repoRoot, "test/fixtures/explore/ts-controller-for")]);
  assert.deepEqual(result.unlinked, []);
  const blocks = result.controllers.map((c) => ({
    name: c.name,
    at: `${c.loc?.file}`,
    kinds: c.sources.map((s) => `${s.kind} via ${s.via}`),
    process: `${c.workers[0]?.process?.name} ${c.workers[0]?.process?.loc?.file}`,
  }));
  assert.deepEqual(blocks, [
    {
      name: "newGadgetController",
      at: "generated/example.com/v1/gadget.controller.ts",
      kinds: ["Gadget via controllerFor"],
      process: "reconcile src/gadget.hooks.ts",
    },
    {
      name: "newWidgetController",
      at: "generated/example.com/v1/widget.controller.ts",
      kinds: ["Widget via controllerFor"],
      process: "reconcile src/widget.hooks.ts",
    },
  ]);
});

test("a descriptor not in the explored sources: the kind comes from its name (gizmoResource → Gizmo)", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-controller-for-"));
  try {
    mkdirSync(path.join(dir, "src"));
    writeFileSync(
      path.join(dir, "src", "gizmo.controller.ts"),
      [
        'import * as rt from "@crdgen/runtime";',
        'import { gizmoResource } from "@example/gizmo-types";',
        'import * as hooks from "./gizmo.hooks.js";',
        "export function newGizmoController(kube: rt.KubeClient) {",
        "  return rt.controllerFor(kube, gizmoResource, hooks, {}, () => ({}));",
        "}",
        "",
      ].join("\n"),
    );
    writeFileSync(path.join(dir, "src", "gizmo.hooks.ts"), "export async function reconcile(): Promise<void> {}\n");
    const result = await explore([dir]);
    assert.deepEqual(result.unlinked, []);
    assert.equal(result.controllers.length, 1);
    const c = result.controllers[0]!;
    assert.equal(c.name, "newGizmoController");
    assert.deepEqual(
      c.sources.map((s) => s.kind),
      ["Gizmo"],
    );
    assert.equal(c.workers[0]?.process?.loc?.file, "src/gizmo.hooks.ts");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
