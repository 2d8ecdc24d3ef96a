// Schemas built to hurt --validation: an enum of 100,000 values (ajv's meta-schema compared every pair: 63 s), and a
// property named __proto__ (assigned into a plain object it became the prototype: the field dropped out of the
// structural skeleton and ajv's properties, so a wrong value passed and its default was never applied).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import {
  defaultLikeApiServer,
  normalizeLikeApiServer,
  validateResource,
  validatorRequire,
  type SchemaValidateFunction,
} from "@crdgen/runtime/validation";
import { toAjvSchema } from "../../../generator/validation/ajv-schema.js";
import { compileSchemaValidator, schemaProblems } from "../../../generator/validation/compile-validator.js";
import { emitStructure, structuralNode } from "../../../generator/validation/structural-skeleton.js";

type Raw = Record<string, unknown>;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** The schema validator and structure the generated modules would hold for this openAPIV3Schema. */
function versionOf(raw: Raw) {
  const { schema, plain } = toAjvSchema(raw);
  assert.deepEqual(schemaProblems(plain), []);
  const module: { exports: unknown } = { exports: {} };
  const run = vm.runInThisContext(`(function (require, module) {\n${compileSchemaValidator(schema)}\n})`) as (
    require: typeof validatorRequire,
    m: typeof module,
  ) => void;
  run(validatorRequire, module);
  return { schemaValidator: module.exports as SchemaValidateFunction, structure: structuralNode(raw) };
}

const specWith = (properties: Raw): Raw => ({
  type: "object",
  properties: { spec: { type: "object", properties } },
});
const object = (spec: unknown) => ({ apiVersion: "h.example.com/v1", kind: "Hostile", metadata: { name: "h" }, spec });

/** An enum of `count` distinct strings (v0, v1, ...), the last `repeat` values repeating earlier ones. */
const bigEnum = (count: number, repeat = 0) =>
  Array.from({ length: count }, (_, i) => `v${i < count - repeat ? i : i - (count - repeat)}`);

test("an enum of 100,000 values compiles, and its validator accepts its last value and nothing else", () => {
  const version = versionOf(specWith({ mode: { type: "string", enum: bigEnum(100_000) } }));
  assert.equal(validateResource(object({ mode: "v99999" }), version).valid, true);
  const wrong = validateResource(object({ mode: "v100000" }), version);
  assert.deepEqual(
    wrong.errors.map((e) => [e.field, e.schemaPath, e.reason]),
    [["spec.mode", "/properties/spec/properties/mode/enum", "FieldValueNotSupported"]],
  );
});

test("crdgen generate --validation on a 790 kB CRD of a 100,000-value enum exits 0 (killed after 30 s)", () => {
  // A hang guard, not a speed goal (that is bench material): ajv's pairwise meta-check took 63 s on this CRD, 163 s
  // on a loaded machine; the linear check takes under 2 s.
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-enum-"));
  try {
    const values = bigEnum(100_000).join(", ");
    const file = path.join(dir, "crd.yaml");
    writeFileSync(
      file,
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: bigs.h.example.com }
spec:
  group: h.example.com
  names: { kind: Big, plural: bigs }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { mode: { type: string, enum: [${values}] } } }
`,
    );
    const out = path.join(dir, "out");
    const run = spawnSync(
      process.execPath,
      [path.join(repoRoot, "bin/crdgen.js"), "generate", file, "-o", out, "--validation"],
      { encoding: "utf8", timeout: 30_000 },
    );
    assert.equal(run.status, 0, `exit 0 (null: killed after 30 s): ${run.stderr}`);
    assert.ok(existsSync(path.join(out, "h.example.com/v1/big.schema-validator.ts")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a repeated enum value is still a problem, found among 100,000 values and named by its index", () => {
  const problems = schemaProblems(specWith({ mode: { type: "string", enum: bigEnum(100_000, 1) } }));
  assert.deepEqual(problems, [
    { pointer: "/properties/spec/properties/mode/enum/99999", keyword: "enum", message: "repeats value 0 of the enum" },
  ]);
  // Values equal as JSON repeat too, whatever the order of their keys; an enum's other problems are still found.
  assert.deepEqual(
    schemaProblems({
      enum: [
        { a: 1, b: [2] },
        { b: [2], a: 1 },
      ],
    }).map((p) => p.pointer),
    ["/enum/1"],
  );
  assert.deepEqual(
    schemaProblems({ type: "object", properties: { e: { enum: [] } } }).map((p) => [p.pointer, p.keyword]),
    [["/properties/e/enum", "enum"]],
  );
});

const protoSchema = () =>
  specWith(
    JSON.parse('{"__proto__": {"type": "string", "enum": ["a", "b"], "default": "a"}, "x": {"type": "string"}}') as Raw,
  );

test("a property named __proto__ is validated, kept and defaulted like any other", () => {
  const version = versionOf(protoSchema());
  assert.deepEqual(Object.keys(version.structure.properties!["spec"]!.properties!), ["__proto__", "x"]);
  const hostile = JSON.parse('{"__proto__": 12345}') as unknown;
  const result = validateResource(object(hostile), version);
  assert.equal(result.valid, false);
  assert.deepEqual(
    result.errors.map((e) => [e.field, e.schemaPath]),
    [
      ["spec.__proto__", "/properties/spec/properties/__proto__/type"],
      ["spec.__proto__", "/properties/spec/properties/__proto__/enum"],
    ],
  );
  assert.equal(validateResource(object(JSON.parse('{"__proto__": "b"}')), version).valid, true);
  // Pruning keeps it (it is declared), defaulting sets it as an own property.
  const kept = normalizeLikeApiServer(object(hostile), version.structure).spec as Raw;
  assert.ok(Object.hasOwn(kept, "__proto__") && kept["__proto__"] === 12345);
  const defaulted = defaultLikeApiServer(object({}), version.structure).spec as Raw;
  assert.ok(Object.hasOwn(defaulted, "__proto__"), "the default is applied");
  assert.equal(defaulted["__proto__"], "a");
  assert.equal(Object.getPrototypeOf(defaulted), Object.prototype, "and the prototype is left alone");
});

test("the emitted structure keeps __proto__ as an own property", () => {
  const { root } = emitStructure(structuralNode(protoSchema()), "node", "StructuralNode");
  const evaluated = vm.runInThisContext(`(${root.replaceAll(" satisfies StructuralNode", "")})`) as {
    properties: { spec: { properties: Raw } };
  };
  const properties = evaluated.properties.spec.properties;
  assert.ok(Object.hasOwn(properties, "__proto__"));
  assert.deepEqual(properties["__proto__"], { type: "string", default: "a" });
});

test("a map key __proto__ reaches CEL rules like any other key", () => {
  const version = versionOf(
    specWith({
      labels: {
        type: "object",
        additionalProperties: { type: "string" },
        "x-kubernetes-validations": [{ rule: "self.all(k, k.size() < 5)", message: "a key is too long" }],
      },
    }),
  );
  const messages = (labels: string) =>
    validateResource(object({ labels: JSON.parse(labels) as unknown }), version).errors;
  assert.deepEqual(
    messages('{"__proto__": "x"}').map((e) => e.message),
    ["a key is too long"],
  );
  assert.deepEqual(messages('{"ok": "x"}'), []);
});
