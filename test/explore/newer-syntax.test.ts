// Go syntax newer than the tree-sitter grammar: Go 1.26's new(expression) is named as unsupported by the parser (file,
// line and the call), read as a pointer to its value, and told apart from a real syntax error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { explore } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const sampleController = path.join(repoRoot, "test", "fixtures", "explore", "sample-controller");

/** The sample-controller fixture in a temporary folder with one line of controller.go replaced (same line count). */
async function withLine(find: string, replace: string, check: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-newer-"));
  try {
    cpSync(sampleController, dir, { recursive: true });
    const file = path.join(dir, "controller.go");
    const text = readFileSync(file, "utf8");
    assert.equal(text.split(find).length, 2, `controller.go has one line with ${find}`);
    writeFileSync(file, text.replace(find, replace));
    await check(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("new(expression) is reported as unsupported by the parser, with file, line and call, and the flows are all read", async () => {
  const untouched = await explore([sampleController]);
  const line = readFileSync(path.join(sampleController, "controller.go"), "utf8")
    .split("\n")
    .findIndex((l) => l.includes("err := c.syncHandler(ctx, objRef)"));
  await withLine("err := c.syncHandler(ctx, objRef)", "err := *new(c.syncHandler(ctx, objRef))", async (dir) => {
    const result = await explore([dir]);
    assert.deepEqual(result.warnings, [
      `controller.go:${line + 1}: parser does not support new(expression) (Go 1.26): \`new(c.syncHandler(ctx, objRef))\`; read as a pointer to that value`,
    ]);
    assert.ok(!result.warnings.some((w) => w.includes("syntax error")));
    // The processing function is found through the new(...) call: the flows are the untouched fixture's.
    assert.deepEqual(result.controllers, untouched.controllers);
    assert.deepEqual(result.unlinked, untouched.unlinked);
  });
});

test("several new(expression) calls in a file are one warning naming each line; new(Type) is no warning", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-newer-"));
  try {
    writeFileSync(
      path.join(dir, "p.go"),
      "package p\n\nfunc f() (*int, *int, *T) {\n\ta := new(42)\n\tb := new(g() + 1)\n\treturn a, b, new(T)\n}\n\nfunc g() int { return 1 }\n\ntype T struct{}\n",
    );
    const result = await explore([dir]);
    assert.deepEqual(result.warnings, [
      "p.go:4: parser does not support new(expression) (Go 1.26): `new(42)`, also at line 5; read as a pointer to that value",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a real syntax error inside new(...) is still a syntax error", async () => {
  await withLine("err := c.syncHandler(ctx, objRef)", "err := new(c.syncHandler(ctx, objRef) +)", async (dir) => {
    const result = await explore([dir]);
    assert.equal(result.warnings.length, 1, result.warnings.join("\n"));
    assert.match(result.warnings[0]!, /^controller\.go:\d+: Go syntax error/);
  });
});
