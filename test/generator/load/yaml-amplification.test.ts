// docs/security.md, "Bounded": YAML aliases cannot turn a small file into a huge amount of work. Aliases are counted (scalars'
// too) and the expanded size is capped at 10 times the file or 1 MB, whichever is larger, with one line naming the
// file; a billion-laughs document is refused the same way, never with a stack trace.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../generator/input-error.js";
import { parseCrds } from "../../../generator/load/parse-crds.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const laughsFile = "test/fixtures/bad/billion-laughs.yaml";
const temps: string[] = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A CRD whose root schema carries `extra` (lines indented for openAPIV3Schema's keys), after an optional comment. */
function crdWith(extra: string, comment = ""): string {
  return `${comment}apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bombs.bomb.example.com
spec:
  group: bomb.example.com
  names: { kind: Bomb, plural: bombs }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
${extra}
`;
}

/** One string of `length` characters anchored as &s, then `aliases` aliases of it in a list. */
function scalarBomb(length: number, aliases: number, comment = ""): string {
  const list = Array.from({ length: aliases }, () => "*s").join(",");
  return crdWith(`          description: &s "${"x".repeat(length)}"\n          x-copies: [${list}]`, comment);
}

function rejects(text: string, problem: RegExp, file = "bomb.yaml"): InputError {
  let caught: unknown;
  try {
    parseCrds([{ file, text }]);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof InputError, `an InputError, got ${String(caught)}`);
  assert.equal(caught.location.file, file);
  assert.equal(caught.location.documentIndex, 0);
  assert.match(caught.problem, problem);
  assert.doesNotMatch(caught.message, /\n/, "one line");
  return caught;
}

test("a 190 kB file of one 60 kB string and 43,000 aliases of it (2.6 GB expanded) is refused by its alias count", () => {
  const text = scalarBomb(60_000, 43_000);
  assert.ok(text.length > 180_000 && text.length < 200_000, `about 190 kB: ${text.length}`);
  rejects(text, /more than 1000 aliases in one document \(aliases of scalars count too\)/);
});

test("aliases of a scalar are counted: 1000 load, 1001 are refused", () => {
  const loaded = parseCrds([{ file: "ok.yaml", text: scalarBomb(1, 1000) }]);
  const schema = (loaded.crds[0]!.crd["spec"] as { versions: Array<{ schema: { openAPIV3Schema: object } }> })
    .versions[0]!.schema.openAPIV3Schema as { "x-copies": string[] };
  assert.equal(schema["x-copies"].length, 1000);
  assert.ok(schema["x-copies"].every((s) => s === "x"));
  rejects(scalarBomb(1, 1001), /more than 1000 aliases/);
});

test("a string aliased within the count but expanding past 10 times the file is refused, naming the alias", () => {
  // 900 aliases of 100 kB: 90 MB from a 100 kB file.
  rejects(scalarBomb(100_000, 900), /aliases \(such as \*s\) expand it to more than 1 MB/);
});

test("a 118 kB file of one 62 kB string and 999 aliases (60 MB of output before) is refused: 10 times the file", () => {
  const properties = Array.from({ length: 999 }, (_, i) => `            p${i}: { type: string, description: *d }`);
  const text = crdWith(
    `          description: &d "${"x".repeat(62_000)}"\n          properties:\n${properties.join("\n")}`,
  );
  assert.ok(text.length > 110_000 && text.length < 125_000, `about 118 kB: ${text.length}`);
  rejects(text, /expand it to more than 1\.1 MB, the most crdgen reads from this file \(10 times the file's size/);
});

test("the cap is 1 MB for a small file, and 10 times the file when that is more", () => {
  // 100 aliases of 20 kB expand to 2 MB: over the 1 MB of a 20 kB file, under 10 times a file padded to 300 kB.
  rejects(scalarBomb(20_000, 100), /expand it to more than 1 MB/);
  const padding = `# ${"p".repeat(300 * 1024)}\n`;
  const { crds } = parseCrds([{ file: "big.yaml", text: scalarBomb(20_000, 100, padding) }]);
  assert.equal(crds.length, 1);
  // A file that expands less than 1 MB loads whatever its size: 40 aliases of 20 kB.
  assert.equal(parseCrds([{ file: "small.yaml", text: scalarBomb(20_000, 40) }]).crds.length, 1);
});

test("a billion-laughs document is refused with one line naming the file, from parseCrds and from the CLI", () => {
  const text = readFileSync(path.join(repoRoot, laughsFile), "utf8");
  rejects(text, /the YAML's aliases \(such as \*\w\) expand it to more than 1 MB/, laughsFile);

  const out = path.join(mkdtempSync(path.join(os.tmpdir(), "crdgen-laughs-")), "out");
  temps.push(path.dirname(out));
  const run = spawnSync(process.execPath, [path.join(repoRoot, "bin/crdgen.js"), "generate", laughsFile, "-o", out], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, new RegExp(`^crdgen: ${laughsFile} \\(document 1\\): the YAML's aliases`));
  assert.equal(run.stderr.trim().split("\n").length, 1, `one line:\n${run.stderr}`);
  assert.doesNotMatch(run.stderr, /ReferenceError|resource exhaustion|\n\s+at /);
  assert.equal(existsSync(out), false, "nothing was written");
});

test("an alias of the node that contains it, and an alias of no anchor, are one-line errors", () => {
  rejects(crdWith("          x-loop: &loop [a, *loop]"), /alias \*loop refers to a node that contains it/);
  rejects(crdWith("          x-missing: *nowhere"), /invalid YAML: .*nowhere/);
});

test("a CRD with a few aliases of mappings and scalars loads as if written out", () => {
  const aliased = crdWith(
    [
      "          properties:",
      "            a: &port { type: integer, minimum: 1, maximum: 65535, description: &d a port }",
      "            b: *port",
      "            c: { type: string, description: *d }",
    ].join("\n"),
  );
  const written = crdWith(
    [
      "          properties:",
      "            a: { type: integer, minimum: 1, maximum: 65535, description: a port }",
      "            b: { type: integer, minimum: 1, maximum: 65535, description: a port }",
      "            c: { type: string, description: a port }",
    ].join("\n"),
  );
  const [fromAliases, fromText] = [aliased, written].map((text) => parseCrds([{ file: "a.yaml", text }]).crds[0]!.crd);
  assert.deepEqual(fromAliases, fromText);
});

test("an anchor name used twice resolves each alias to the last anchor before it, among many unused anchors", () => {
  const unused = Array.from({ length: 5000 }, (_, i) => `&u${i} u`).join(", ");
  const text = crdWith(`          x-unused: [${unused}]
          x-order: [&x first, *x, &x second, *x, *u4999]`);
  const schema = (parseCrds([{ file: "a.yaml", text }]).crds[0]!.crd["spec"] as { versions: Array<{ schema: object }> })
    .versions[0]!.schema as { openAPIV3Schema: { "x-order": string[] } };
  assert.deepEqual(schema.openAPIV3Schema["x-order"], ["first", "first", "second", "second", "u"]);
});
