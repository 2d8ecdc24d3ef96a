// docs/security.md, "Validated": a validator never silently accepts everything. A schema keyword ajv cannot compile fails the run
// naming the keyword and its schema path (nothing is written); a keyword crdgen cannot check by design (a pattern
// Go's RE2 rejects) is listed in validate()'s skipped, as CEL rules crdgen cannot evaluate are.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { validateResource, validatorRequire, type SchemaValidateFunction } from "@crdgen/runtime/validation";
import { generate } from "../../../generator/generate.js";
import { InputError } from "../../../generator/input-error.js";
import { toAjvSchema } from "../../../generator/validation/ajv-schema.js";
import { compileSchemaValidator } from "../../../generator/validation/compile-validator.js";
import { structuralNode, uncheckedByNode } from "../../../generator/validation/structural-skeleton.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const temps: string[] = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-compile-"));
  temps.push(dir);
  return dir;
}

/** A CRD file whose spec.properties.field is `field` (one line of flow YAML). */
function crdFile(dir: string, field: string): string {
  const file = path.join(dir, "crd.yaml");
  writeFileSync(
    file,
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.v.example.com }
spec:
  group: v.example.com
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                field: ${field}
`,
  );
  return file;
}

const field = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/field";

test("a keyword ajv cannot compile fails generation naming the keyword and its schema path, writing nothing", async () => {
  const cases: Array<[string, string, RegExp]> = [
    ['{ type: string, maxLength: "ten" }', "/maxLength", /keyword maxLength: must be integer/],
    ["{ type: integer, multipleOf: 0 }", "/multipleOf", /keyword multipleOf: must be > 0/],
    ["{ type: object, required: name }", "/required", /keyword required: must be array/],
    ['{ type: integer, minimum: "1" }', "/minimum", /keyword minimum: must be number/],
    ["{ type: string, enum: red }", "/enum", /keyword enum: must be array/],
    ["{ type: array, items: { type: string, minLength: -1 } }", "/items/minLength", /keyword minLength: must be >= 0/],
    ["{ type: string, allOf: [{ maxLength: 1.5 }] }", "/allOf/0/maxLength", /keyword maxLength: must be integer/],
  ];
  for (const [schema, at, message] of cases) {
    const dir = tempDir();
    const out = path.join(dir, "out");
    const input = crdFile(dir, schema);
    await assert.rejects(generate({ inputs: [input], outDir: out, validation: true }), (error: unknown) => {
      assert.ok(error instanceof InputError, `an InputError for ${schema}, got ${String(error)}`);
      assert.equal(error.location.file, input);
      assert.equal(error.location.schemaPath, `${field}${at}`, schema);
      assert.match(error.problem, message);
      return true;
    });
    assert.equal(existsSync(out), false, `nothing was written for ${schema}`);
    // Without --validation the same schema generates its types (the keyword only matters to the validator).
    await generate({ inputs: [input], outDir: out });
  }
});

test("the CLI says it in one line and exits 1", () => {
  const dir = tempDir();
  const input = crdFile(dir, "{ type: integer, multipleOf: 0 }");
  const out = path.join(dir, "out");
  const run = spawnSync(
    process.execPath,
    [path.join(repoRoot, "bin/crdgen.js"), "generate", input, "--out", out, "--validation"],
    { encoding: "utf8", timeout: 120_000 },
  );
  assert.equal(run.status, 1, run.stderr);
  assert.equal(
    run.stderr,
    // Line 19 is `field: { type: integer, multipleOf: 0 }`; column 41 its multipleOf.
    `crdgen: ${input}:19:41 (document 1) at ${field}/multipleOf: --validation cannot compile keyword multipleOf: must be > 0\n`,
  );
  assert.equal(existsSync(out), false);
});

test("a keyword ajv would only log and ignore (an unknown format) fails the compile instead", () => {
  assert.throws(() => compileSchemaValidator({ type: "string", format: "no-such-format" }), /unknown format/);
  assert.match(compileSchemaValidator({ type: "string", format: "uuid" }), /module\.exports/);
});

test("CRD strings in the validator's code show their invisible characters as escapes, with the same meaning", () => {
  const rlo = "\u202e";
  const name = `evil${rlo}gnp.exe`;
  const schema = { type: "object", required: [name], properties: { [name]: { type: "string", enum: [`a${rlo}b`] } } };
  const code = compileSchemaValidator(schema);
  assert.equal(code.includes(rlo), false, "no raw right-to-left override in the module");
  assert.match(code, /\\u202e/);
  const module: { exports: unknown } = { exports: {} };
  const run = vm.runInThisContext(`(function (require, module) {\n${code}\n})`) as (
    require: typeof validatorRequire,
    m: typeof module,
  ) => void;
  run(validatorRequire, module);
  const validate = module.exports as (data: unknown) => boolean;
  assert.equal(validate({ [name]: `a${rlo}b` }), true);
  assert.equal(validate({ [name]: "ab" }), false, "the enum still holds the invisible character");
  assert.equal(validate({ "evilgnp.exe": `a${rlo}b` }), false, "the required name still holds it");
});

/** The validator and structure the generated modules would hold for this openAPIV3Schema. */
function versionOf(raw: Record<string, unknown>) {
  const { schema, dropped } = toAjvSchema(raw);
  const module: { exports: unknown } = { exports: {} };
  const run = vm.runInThisContext(`(function (require, module) {\n${compileSchemaValidator(schema)}\n})`) as (
    require: typeof validatorRequire,
    m: typeof module,
  ) => void;
  run(validatorRequire, module);
  return {
    dropped,
    version: {
      schemaValidator: module.exports as SchemaValidateFunction,
      structure: structuralNode(raw, uncheckedByNode(dropped)),
    },
  };
}

test("a pattern Go's RE2 rejects is a warning, and validate() lists it in skipped wherever a value meets it", () => {
  const { dropped, version } = versionOf({
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          name: { type: "string", pattern: "^(?!x)", maxLength: 3 },
          codes: { type: "array", items: { type: "string", allOf: [{ pattern: "(?<=a)b" }] } },
        },
      },
    },
  });
  assert.deepEqual(
    dropped.map((d) => d.schemaPath),
    ["/properties/spec/properties/name/pattern", "/properties/spec/properties/codes/items/allOf/0/pattern"],
  );
  const object = { apiVersion: "v.example.com/v1", kind: "Widget", metadata: { name: "w" } };
  const result = validateResource({ ...object, spec: { name: "xyzw", codes: ["ab", "cb"] } }, version);
  assert.deepEqual(
    result.skipped.map(({ field, schemaPath, rule }) => ({ field, schemaPath, rule })),
    [
      { field: "spec.name", schemaPath: "/properties/spec/properties/name/pattern", rule: "pattern: ^(?!x)" },
      {
        field: "spec.codes[0]",
        schemaPath: "/properties/spec/properties/codes/items/allOf/0/pattern",
        rule: "pattern: (?<=a)b",
      },
      {
        field: "spec.codes[1]",
        schemaPath: "/properties/spec/properties/codes/items/allOf/0/pattern",
        rule: "pattern: (?<=a)b",
      },
    ],
  );
  for (const s of result.skipped) assert.match(s.reason, /not an RE2 expression/);
  // The keywords crdgen can check still are: the maxLength next to the skipped pattern fails.
  assert.deepEqual(
    result.errors.map((e) => e.schemaPath),
    ["/properties/spec/properties/name/maxLength"],
  );
  // No value at the node, nothing to skip.
  assert.deepEqual(validateResource({ ...object, spec: {} }, version).skipped, []);
});
