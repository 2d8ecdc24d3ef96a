// What crdgen prints about its input quotes file names, keys and kinds of that input: none of their characters may
// restyle the terminal (ESC sequences, OSC titles ended by BEL, bidirectional overrides) or start a line of its own
// (CR, LF): every one is printed as its \uXXXX escape, and every error and warning stays on its one line.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-escapes-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A terminal title (OSC 0 ... BEL), a colour (CSI), a right-to-left override, and a carriage return and line feed. */
const hostile = "\u001b]0;owned\u0007\u001b[31m\u202e\r\nfake";
const escaped = "\\u001b]0;owned\\u0007\\u001b[31m\\u202e\\u000d\\u000afake";
/** The characters a terminal acts on rather than shows (but the line feeds ending lines), or that reorder what it shows. */
function rawControls(text: string): string[] {
  return [...text.trimEnd().replaceAll("\n", "")].filter((c) => {
    const code = c.codePointAt(0)!;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) || /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(c);
  });
}

/** A CRD whose spec has one property, `name: schema` (in JSON, which is YAML too, so any name can be written). */
function crd(name: string, schema: object, extra = ""): string {
  const spec = { type: "object", properties: { [name]: schema }, required: [`missing${name}`] };
  return `${extra}apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.escapes.example.com }
spec:
  group: escapes.example.com
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: { type: object, properties: { spec: ${JSON.stringify(spec)} } }
`;
}

function crdgen(file: string): { status: number | null; lines: string[]; stderr: string } {
  const run = spawnSync(
    process.execPath,
    [path.join(repoRoot, "bin/crdgen.js"), "generate", file, "-o", path.join(dir, "out")],
    { encoding: "utf8", timeout: 60_000 },
  );
  return { status: run.status, stderr: run.stderr, lines: run.stderr.split("\n").filter(Boolean) };
}

test("an error names a hostile file and property with every control and bidi character escaped, on one line", () => {
  const file = path.join(dir, `crd${hostile}.yaml`);
  writeFileSync(file, crd(`p${hostile}`, { type: "strin" }));
  const run = crdgen(file);
  assert.equal(run.status, 1, run.stderr);
  assert.equal(run.lines.length, 1, `one line:\n${run.stderr}`);
  assert.deepEqual(rawControls(run.stderr), []);
  const [line] = run.lines;
  assert.ok(line!.startsWith(`crdgen: ${path.join(dir, `crd${escaped}.yaml`)}:`), line);
  assert.ok(line!.includes(`/properties/spec/properties/p${escaped}/type: `), line);
  assert.ok(line!.includes(`properties[p${escaped}].type: Unsupported value: "strin"`), line);
});

test("warnings and skipped documents escape the file, the keys and the kind, one line each", () => {
  const file = path.join(dir, `warn${hostile}.yaml`);
  const skipped = `apiVersion: ${JSON.stringify(`v1${hostile}`)}\nkind: ${JSON.stringify(`Config${hostile}`)}\n---\n`;
  writeFileSync(file, crd(`p${hostile}`, { type: "string", [`bogus${hostile}`]: 1 }, skipped));
  const run = crdgen(file);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(rawControls(run.stderr), []);
  const shown = path.join(dir, `warn${escaped}.yaml`);
  assert.deepEqual(
    run.lines.map((l) => l.slice(0, l.indexOf(":"))),
    ["warning", "warning", "skipped"],
    run.stderr,
  );
  // A quoted value is JSON: its line breaks are JSON's escapes.
  assert.ok(run.lines[0]!.startsWith(`warning: ${shown}:`), run.lines[0]);
  assert.ok(
    run.lines[0]!.includes(`(document 2) at /spec/versions/0/schema/openAPIV3Schema/properties/spec/required/0`),
  );
  assert.ok(run.lines[0]!.includes(`"missingp\\u001b]0;owned\\u0007\\u001b[31m\\u202e\\r\\nfake" is not among`));
  assert.ok(run.lines[1]!.includes(`/properties/p${escaped}/bogus${escaped}: `), run.lines[1]);
  assert.equal(
    run.lines[2],
    `skipped: ${shown} (document 1): Config${escaped} v1${escaped} is not a CustomResourceDefinition`,
  );
});
