// The Go reader lowers each expression once: the operand of `&x`, `*x`, `x.(T)` and `(x)` used to be read a second
// time with the node's other children (nodes are new objects at each look-up), doubling its calls and functions.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const built = (file: string) => import(path.join(repoRoot, "explore", "dist", "go", file));
type Facts = { calls: { id: string }[]; fns: { id: string }[] };
const { goParser, readGoFile } = (await built("read-file.js")) as {
  goParser: () => Promise<unknown>;
  readGoFile: (parser: unknown, source: { file: string; text: string }, modules: unknown[]) => { facts: Facts };
};

test("an operand under &, *, a type assertion or parentheses gives one call fact and one function fact", async () => {
  const text = [
    "package main",
    "",
    "func main() {",
    "\tp := &Config{sync: func() { work() }}",
    "\tv := *load()",
    "\tt := get().(Thing)",
    "\tn := (count())",
    "\t_, _, _, _ = p, v, t, n",
    "}",
    "",
  ].join("\n");
  const { facts } = readGoFile(await goParser(), { file: "main.go", text }, []);
  const callIds = facts.calls.map((c) => c.id);
  assert.equal(callIds.length, 4, "work, load, get and count");
  assert.equal(new Set(callIds).size, callIds.length, "no call read twice");
  assert.equal(new Set(facts.fns.map((f) => f.id)).size, facts.fns.length, "no function read twice");
});
