// The mistakes people make writing a CRD by hand, reported as the API server would treat them: an unknown `type` is an
// error, a misspelled key is dropped (a warning, or the error the missing field causes), a `required` entry without a
// property is a warning. Every message says the file, line and column of the key, and the document counted from 1.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { generate, StrictWarningsError } from "../../../generator/generate.js";
import { formatWarning, InputError } from "../../../generator/input-error.js";

const dir = mkdtempSync(path.join(tmpdir(), "crdgen-crd-mistakes-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A Namespace (document 1), then a CRD (document 2) whose spec property `name` is the `field` lines given. */
function crdYaml({ field = ["type: string"], version = [] as string[], spec = [] as string[] } = {}): string {
  return [
    "apiVersion: v1", // 1
    "kind: Namespace",
    "metadata:",
    "  name: x",
    "---", // 5
    "apiVersion: apiextensions.k8s.io/v1",
    "kind: CustomResourceDefinition",
    "metadata:",
    "  name: widgets.example.com",
    "spec:", // 10
    "  group: example.com",
    "  names:",
    "    kind: Widget",
    "    plural: widgets",
    "  scope: Namespaced", // 15
    "  versions:",
    "    - name: v1",
    "      served: true",
    "      storage: true",
    ...version.map((l) => `      ${l}`),
    "      schema:", // 20 + version.length
    "        openAPIV3Schema:",
    "          type: object",
    "          properties:",
    "            spec:",
    "              type: object", // 25 + version.length
    ...spec.map((l) => `              ${l}`),
    "              properties:",
    "                name:",
    ...field.map((l) => `                  ${l}`), // 28 + version.length + spec.length
    "",
  ].join("\n");
}

let counter = 0;
async function run(yaml: string, options: { strict?: boolean; fileName?: string } = {}) {
  const case_ = path.join(dir, String(++counter));
  mkdirSync(case_);
  const file = path.join(case_, options.fileName ?? "crd.yaml");
  writeFileSync(file, yaml);
  const outDir = path.join(case_, "out");
  try {
    const result = await generate({ inputs: [file], outDir, strict: options.strict ?? false });
    return { file, outDir, warnings: result.warnings.map(formatWarning), error: undefined };
  } catch (error) {
    return { file, outDir, warnings: [], error };
  }
}

const schemaAt = "/spec/versions/0/schema/openAPIV3Schema";
const nameAt = `${schemaAt}/properties/spec/properties/name`;
const nameField = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[name]";
const supported = '"array", "boolean", "integer", "number", "object", "string"';

test("an unknown type is an error with a did-you-mean, at the line and column of `type`, writing nothing", async () => {
  const { file, outDir, error } = await run(crdYaml({ field: ["type: strnig"] }));
  assert.ok(error instanceof InputError, String(error));
  assert.equal(
    error.message,
    `${file}:28:19 (document 2) at ${nameAt}/type: ` +
      `${nameField}.type: Unsupported value: "strnig": supported values: ${supported}; did you mean "string"?`,
  );
  assert.equal(existsSync(outDir), false, "nothing was written");
});

test("a type nothing is close to, or a list of types, is an error without a guess", async () => {
  const far = await run(crdYaml({ field: ["type: text"] }));
  assert.ok(far.error instanceof InputError);
  assert.equal(far.error.problem, `${nameField}.type: Unsupported value: "text": supported values: ${supported}`);
  const list = await run(crdYaml({ field: ["type: [string, integer]"] }));
  assert.ok(list.error instanceof InputError);
  assert.equal(
    list.error.message,
    `${list.file}:28:19 (document 2) at ${nameAt}/type: ` +
      `${nameField}.type: Unsupported value: ["string","integer"]: supported values: ${supported}`,
  );
});

test("a type inside items, additionalProperties and oneOf is checked too", async () => {
  const { file, error } = await run(crdYaml({ field: ["type: array", "items:", "  type: intger"] }));
  assert.ok(error instanceof InputError);
  assert.equal(
    error.message,
    `${file}:30:21 (document 2) at ${nameAt}/items/type: ` +
      `${nameField}.items.type: Unsupported value: "intger": supported values: ${supported}; did you mean "integer"?`,
  );
  const map = await run(crdYaml({ field: ["type: object", "additionalProperties:", "  type: bool"] }));
  assert.ok(map.error instanceof InputError);
  assert.match(map.error.message, /:30:21 \(document 2\) at .*\/name\/additionalProperties\/type: .*"bool"/);
});

test("openAPIv3Schema (misspelled) leaves a served version without a schema: an error saying what was meant", async () => {
  const yaml = crdYaml().replace("openAPIV3Schema:", "openAPIv3Schema:");
  const { file, outDir, error } = await run(yaml);
  assert.ok(error instanceof InputError);
  assert.equal(
    error.message,
    `${file}:20:7 (document 2) at ${schemaAt}: spec.versions[0].schema.openAPIV3Schema: Required value: because ` +
      `otherwise all fields are pruned (crdgen: found "schema.openAPIv3Schema": did you mean "schema.openAPIV3Schema"?)`,
  );
  assert.equal(existsSync(outDir), false);
});

test("an unknown key is dropped with a warning and a did-you-mean, as the API server drops it", async () => {
  const { file, warnings, error } = await run(
    crdYaml({ version: ["subresource:", "  status: {}"], field: ["type: string", "maxLenght: 3"] }),
  );
  assert.equal(error, undefined);
  assert.deepEqual(warnings, [
    `${file}:20:7 (document 2) at /spec/versions/0/subresource: spec.versions[0].subresource: unknown field, ` +
      `dropped by the API server; did you mean "subresources"?`,
    `${file}:31:19 (document 2) at ${nameAt}/maxLenght: ${nameField}.maxLenght: unknown field, dropped by the API ` +
      `server; did you mean "maxLength"?`,
  ]);
});

test("`required` naming a property that is not there is a warning (the API server accepts it)", async () => {
  const { file, warnings, error } = await run(crdYaml({ spec: ["required: [nmae, name]"] }));
  assert.equal(error, undefined);
  assert.deepEqual(warnings, [
    `${file}:26:26 (document 2) at ${schemaAt}/properties/spec/required/0: ` +
      `spec.versions[0].schema.openAPIV3Schema.properties[spec].required[0]: "nmae" is not among the properties: ` +
      `the API server prunes undeclared fields, so no object can have it; did you mean "name"?`,
  ]);
  // Under x-kubernetes-preserve-unknown-fields an undeclared field is kept: nothing to warn about.
  const open = await run(crdYaml({ spec: ["required: [other]", "x-kubernetes-preserve-unknown-fields: true"] }));
  assert.deepEqual(open.warnings, []);
});

test("--strict with a warning throws before writing: a missing output stays missing, an existing one unchanged", async () => {
  const yaml = crdYaml({ spec: ["required: [nmae]"] });
  const { outDir, error } = await run(yaml, { strict: true });
  assert.ok(error instanceof StrictWarningsError, String(error));
  assert.equal(error.message, "--strict: 1 warning(s); nothing written");
  assert.equal(error.warnings.length, 1);
  assert.equal(error.warnings[0]!.line, 26, "the warnings carry their positions");
  assert.equal(existsSync(outDir), false, "nothing was written");

  // Over the output of a clean run, a failing --strict run leaves every file as it was.
  const clean = await run(crdYaml());
  const before = readdirSync(clean.outDir, { recursive: true }).map(String).sort();
  const lock = readFileSync(path.join(clean.outDir, "crdgen.lock"), "utf8");
  writeFileSync(clean.file, yaml.replace("kind: Widget", "kind: Gadget").replace(/widget/g, "gadget"));
  await assert.rejects(generate({ inputs: [clean.file], outDir: clean.outDir, strict: true }), StrictWarningsError);
  assert.deepEqual(readdirSync(clean.outDir, { recursive: true }).map(String).sort(), before);
  assert.equal(readFileSync(path.join(clean.outDir, "crdgen.lock"), "utf8"), lock);
});

test("invisible characters in a file name and in a key are escaped in the message", async () => {
  const yaml = crdYaml({ field: ["type: object", "properties:", '  "a\\e[2J":', "    type: strnig"] });
  const { file, error } = await run(yaml, { fileName: "crd\u001b]0;x\u0007.yaml" });
  assert.ok(error instanceof InputError);
  const shown = file.replace("\u001b", "\\u001b").replace("\u0007", "\\u0007");
  assert.ok(error.message.startsWith(`${shown}:31:23 (document 2) at ${nameAt}/properties/a\\u001b[2J/type: `));
  assert.ok(error.message.includes(`properties[name].properties[a\\u001b[2J].type: Unsupported value: "strnig"`));
  const controls = [...error.message].filter((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  assert.deepEqual(controls, [], "no control character reaches the terminal");
});
