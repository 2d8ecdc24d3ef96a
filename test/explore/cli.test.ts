// `crdgen explore` as users run it: exit codes, the "nothing found" message, unreadable input, and the output formats.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ExploreResult } from "@crdgen/explore";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const crdgen = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(repoRoot, "bin", "crdgen.js"), "explore", ...args], {
    cwd: repoRoot,
    encoding: "utf8",
  });
/** The `--json` report: the explore result with its format version. */
const jsonReport = (stdout: string) => JSON.parse(stdout) as ExploreResult & { version: number };

test("a folder with no controller: exit 0 and the report says nothing was found", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-empty-"));
  try {
    writeFileSync(path.join(dir, "util.go"), "package util\n\nfunc Add(a, b int) int { return a + b }\n");
    writeFileSync(path.join(dir, "util.ts"), "export const add = (a: number, b: number) => a + b;\n");
    const run = crdgen(dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /1 Go file\(s\), 1 TypeScript file\(s\)/);
    assert.match(run.stdout, /No controller found/);
    const json = crdgen(dir, "--json");
    assert.equal(json.status, 0);
    assert.deepEqual(jsonReport(json.stdout).controllers, []);
    assert.match(json.stderr, /no controller found/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("unreadable input: non-zero exit and a message naming the path", () => {
  const missing = crdgen("test/fixtures/explore/no-such-operator");
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /cannot read test\/fixtures\/explore\/no-such-operator: no such file or folder/);
  const notAFolder = crdgen("test/fixtures/explore/sample-controller/go.mod");
  assert.equal(notAFolder.status, 1);
  assert.match(notAFolder.stderr, /cannot explore test\/fixtures\/explore\/sample-controller\/go\.mod: not a folder/);
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-bad-"));
  try {
    writeFileSync(path.join(dir, "package.json"), "{ not json");
    const badJson = crdgen(dir);
    assert.equal(badJson.status, 1);
    assert.match(badJson.stderr, /cannot read package\.json:/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--json, --format mermaid and --format dot describe the same flows", () => {
  const dir = "test/fixtures/explore/channel-queue";
  const json = crdgen(dir, "--json");
  assert.equal(json.status, 0, json.stderr);
  const parsed = jsonReport(json.stdout);
  assert.equal(parsed.version, 1);
  assert.equal(parsed.controllers.length, 1);
  assert.equal(parsed.controllers[0]?.sources[0]?.kind, "ConfigMap");
  const mermaid = crdgen(dir, "--format", "mermaid");
  assert.equal(mermaid.status, 0);
  assert.match(mermaid.stdout, /^flowchart LR\n/);
  assert.match(mermaid.stdout, /ConfigMap<br\/>Watch<br\/>syncer\/syncer\.go:30/);
  assert.match(mermaid.stdout, /process \(\*Syncer\)\.sync<br\/>syncer\/syncer\.go:65/);
  const dot = crdgen(dir, "--format", "dot");
  assert.equal(dot.status, 0);
  assert.match(dot.stdout, /^digraph flows \{/);
  assert.match(dot.stdout, /-> n\d+ \[label="Push syncer\/syncer\.go:42"\]/);
  const bad = crdgen(dir, "--format", "svg");
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /svg/);
});

test("a Go file with a syntax error is read as far as it parses and named in a warning", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-syntax-"));
  try {
    writeFileSync(path.join(dir, "broken.go"), "package broken\n\nfunc ok() {}\n\nfunc broken( {\n");
    const run = crdgen(dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /Warnings:\n {2}- broken\.go:\d+: Go syntax error/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a tree with only Java (or other languages explore does not read): exit 1 and a message counting the files", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-explore-java-"));
  try {
    mkdirSync(path.join(dir, "src", "main", "java"), { recursive: true });
    for (const name of ["Operator", "Reconciler", "Queue"])
      writeFileSync(path.join(dir, "src", "main", "java", `${name}.java`), `public class ${name} {}\n`);
    writeFileSync(path.join(dir, "README.md"), "# an operator in Java\n");
    const run = crdgen(dir);
    assert.equal(run.status, 1, run.stdout);
    assert.equal(run.stderr, "crdgen: found 3 .java files: explore reads Go and TypeScript\n");
    assert.equal(run.stdout, "");
    writeFileSync(path.join(dir, "hack.py"), "print(1)\n");
    const two = crdgen(dir, "--json");
    assert.equal(two.status, 1);
    assert.equal(two.stderr, "crdgen: found 3 .java files and 1 .py file: explore reads Go and TypeScript\n");
    // With Go or TypeScript next to them, the report runs and names what it did not read.
    writeFileSync(path.join(dir, "util.go"), "package util\n");
    const mixed = crdgen(dir, "--no-go-types");
    assert.equal(mixed.status, 0, mixed.stderr);
    assert.match(mixed.stdout, /: 1 Go file\(s\), 0 TypeScript file\(s\); not read: 3 \.java files and 1 \.py file\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
