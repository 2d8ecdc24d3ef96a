// docs/security.md, "Bounded": YAML aliases cannot turn a small file into a huge amount of work. Aliases are counted (scalars'
// too) and the expanded size is capped at 64 MB or 10 times the file, whichever is larger, with one line naming the
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

test("a string aliased within the count but expanding past 64 MB is refused, naming the alias", () => {
  // 900 aliases of 100 kB: 90 MB from a 100 kB file (whose tenth-fold is far below 64 MB).
  rejects(scalarBomb(100_000, 900), /aliases \(such as \*s\) expand it to more than 64 MB/);
});

test("the cap is 10 times the file when that is more than 64 MB: the same aliases load from a bigger file", () => {
  // 95 aliases of 700 kB expand to about 66.5 MB: over 64 MB, under 10 times a file padded to 7 MB by a comment.
  rejects(scalarBomb(700_000, 95), /expand it to more than 64 MB/);
  const padding = `# ${"p".repeat(7 * 1024 * 1024)}\n`;
  const { crds } = parseCrds([{ file: "big.yaml", text: scalarBomb(700_000, 95, padding) }]);
  assert.equal(crds.length, 1);
});

test("a billion-laughs document is refused with one line naming the file, from parseCrds and from the CLI", () => {
  const text = readFileSync(path.join(repoRoot, laughsFile), "utf8");
  rejects(text, /the YAML's aliases \(such as \*\w\) expand it to more than 64 MB/, laughsFile);

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
