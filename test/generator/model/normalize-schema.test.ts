// normalizeSchema on small hand-written schemas: which kind each openAPIV3Schema shape becomes, what it keeps as
// constraints, and where it warns (typed as unknown, never aborting) or refuses (an InputError naming the path).
import { test } from "node:test";
import assert from "node:assert/strict";
import { InputError } from "../../../generator/input-error.js";
import {
  maxSchemaDepth,
  normalizeSchema,
  type NormalizeContext,
  type SchemaWarning,
} from "../../../generator/model/normalize-schema.js";
import type { SchemaNode } from "../../../generator/model/schema-node.js";

const at = "/spec/versions/0/schema/openAPIV3Schema";

function normalize(raw: unknown): { node: SchemaNode; warnings: SchemaWarning[] } {
  const ctx: NormalizeContext = { file: "crd.yaml", documentIndex: 2, warnings: [] };
  const node = normalizeSchema(raw, at, ctx);
  return { node, warnings: ctx.warnings };
}

const plain = (kind: string) => ({ nullable: false, constraints: {}, kind });

test("scalar types keep their description, nullability and value constraints", () => {
  const { node, warnings } = normalize({
    type: "integer",
    description: "How many replicas.",
    nullable: true,
    minimum: 1,
    maximum: 9,
    exclusiveMaximum: true,
    exclusiveMinimum: false,
    default: 3,
  });
  assert.deepEqual(node, {
    kind: "integer",
    description: "How many replicas.",
    nullable: true,
    constraints: { minimum: 1, maximum: 9, exclusiveMaximum: true, default: { value: 3 } },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(normalize({ type: "string", pattern: "^a+$", format: "date-time", maxLength: 5 }).node, {
    kind: "string",
    nullable: false,
    constraints: { pattern: "^a+$", format: "date-time", maxLength: 5 },
  });
  for (const type of ["number", "boolean"]) assert.deepEqual(normalize({ type }).node, plain(type));
});

test("a default of null or false is kept as a value, not taken for an absent default", () => {
  assert.deepEqual(normalize({ type: "boolean", default: false }).node.constraints, { default: { value: false } });
  assert.deepEqual(normalize({ type: "string", nullable: true, default: null }).node.constraints, {
    default: { value: null },
  });
});

test("x-kubernetes-int-or-string wins over type, and the anyOf kubebuilder writes beside it is no validation", () => {
  const { node, warnings } = normalize({
    "x-kubernetes-int-or-string": true,
    type: "string",
    anyOf: [{ type: "integer" }, { type: "string" }],
  });
  assert.deepEqual(node, plain("intOrString"));
  assert.deepEqual(warnings, []);
});

test("an enum keeps its values as written, whatever their JSON types", () => {
  assert.deepEqual(normalize({ type: "string", enum: ["A", "b", 1, null] }).node, {
    ...plain("enum"),
    values: ["A", "b", 1, null],
  });
});

test("an object keeps its properties in schema order, each required as its `required` list says", () => {
  const { node } = normalize({
    type: "object",
    required: ["b"],
    properties: { b: { type: "string" }, a: { type: "array", items: { type: "integer" } } },
  });
  assert.deepEqual(node, {
    ...plain("object"),
    properties: [
      { name: "b", required: true, node: plain("string") },
      { name: "a", required: false, node: { ...plain("array"), items: plain("integer") } },
    ],
    openIndexSignature: false,
    embeddedResource: false,
  });
});

test("an object is open (index signature) with preserve-unknown-fields or additionalProperties beside properties", () => {
  const props = { properties: { a: { type: "string" } } };
  const open = (raw: object) => (normalize(raw).node as { openIndexSignature?: boolean }).openIndexSignature;
  assert.equal(open({ type: "object", ...props, "x-kubernetes-preserve-unknown-fields": true }), true);
  assert.equal(open({ type: "object", ...props, additionalProperties: true }), true);
  assert.equal(open({ type: "object", ...props, additionalProperties: { type: "string" } }), true);
  assert.equal(open({ type: "object", ...props, additionalProperties: false }), false);
  // Without a type, properties still make an object, and an open one: nothing says which other keys are pruned.
  assert.equal(normalize(props).node.kind, "object");
  assert.equal(open(props), true);
});

test("an embedded resource is an object even without properties", () => {
  assert.deepEqual(normalize({ type: "object", "x-kubernetes-embedded-resource": true }).node, {
    ...plain("object"),
    properties: [],
    openIndexSignature: false,
    embeddedResource: true,
  });
});

test("an object without properties is a map, an unknown record or an empty object", () => {
  assert.deepEqual(normalize({ type: "object", additionalProperties: { type: "integer" } }).node, {
    ...plain("map"),
    values: plain("integer"),
  });
  assert.deepEqual(normalize({ type: "object", additionalProperties: true }).node, {
    ...plain("map"),
    values: plain("unknown"),
  });
  assert.deepEqual(
    normalize({ type: "object", "x-kubernetes-preserve-unknown-fields": true }).node,
    plain("unknownRecord"),
  );
  assert.deepEqual(normalize({ type: "object", properties: {} }).node, plain("emptyObject"));
  assert.deepEqual(normalize({ type: "object" }).node, plain("emptyObject"));
});

test("untyped nodes: preserve-unknown-fields is any value, items make an array", () => {
  assert.deepEqual(normalize({ "x-kubernetes-preserve-unknown-fields": true }).node, plain("unknown"));
  assert.deepEqual(normalize({ items: { type: "string" } }).node, { ...plain("array"), items: plain("string") });
  assert.deepEqual(normalize({ "x-kubernetes-preserve-unknown-fields": true }).warnings, []);
});

test("a shape it cannot type becomes unknown with a warning at its path, and the run goes on", () => {
  const cases: Array<{ raw: unknown; path: string; says: RegExp }> = [
    { raw: { description: "no type" }, path: at, says: /has no `type`/ },
    { raw: { type: "date" }, path: at, says: /unsupported type "date"/ },
    { raw: "string", path: at, says: /a schema must be a mapping, found "string"/ },
    { raw: { type: "array" }, path: `${at}/items`, says: /an array schema needs an `items` schema/ },
  ];
  for (const { raw, path, says } of cases) {
    const { warnings } = normalize(raw);
    assert.equal(warnings.length, 1, JSON.stringify(raw));
    assert.equal(warnings[0]!.schemaPath, path);
    assert.equal(warnings[0]!.file, "crd.yaml");
    assert.equal(warnings[0]!.documentIndex, 2);
    assert.match(warnings[0]!.message, says);
    assert.match(warnings[0]!.message, /; typed as unknown$/);
  }
  // A degraded node keeps what it had: here the description.
  assert.deepEqual(normalize({ description: "no type" }).node, { ...plain("unknown"), description: "no type" });
  assert.deepEqual(normalize({ type: "array" }).node, { ...plain("array"), items: plain("unknown") });
});

test("warnings inside properties point at the property, with '/' and '~' escaped as RFC 6901 asks", () => {
  const { warnings } = normalize({
    type: "object",
    properties: { "a/b~c": { type: "object", properties: { x: {} } } },
  });
  assert.deepEqual(
    warnings.map((w) => w.schemaPath),
    [`${at}/properties/a~1b~0c/properties/x`],
  );
});

test("$ref is refused with an InputError at the $ref", () => {
  assert.throws(
    () => normalize({ type: "object", properties: { spec: { $ref: "#/definitions/Spec" } } }),
    (error: unknown) =>
      error instanceof InputError &&
      error.location.file === "crd.yaml" &&
      error.location.documentIndex === 2 &&
      error.location.schemaPath === `${at}/properties/spec/$ref` &&
      /\$ref is not allowed/.test(error.problem),
  );
});

test("an untyped oneOf (else anyOf) of members with shapes is a union of their types", () => {
  assert.deepEqual(normalize({ oneOf: [{ type: "string" }, { type: "integer" }] }).node, {
    ...plain("union"),
    members: [plain("string"), plain("integer")],
  });
  const anyOf = normalize({ anyOf: [{ type: "boolean" }, { properties: { a: { type: "string" } } }] }).node;
  assert.equal(anyOf.kind, "union");
  assert.deepEqual(
    (anyOf as { members: SchemaNode[] }).members.map((m) => m.kind),
    ["boolean", "object"],
  );
});

test("combinators of required lists only constrain which properties are set; other ones are kept as written", () => {
  const { node, warnings } = normalize({
    type: "object",
    properties: { a: { type: "string" }, b: { type: "string" } },
    oneOf: [{ required: ["a"] }, { required: ["b"], description: "or b" }],
    not: { required: ["a", "b"] },
    allOf: [{ properties: { a: { maxLength: 3 } } }],
  });
  assert.deepEqual(node.constraints, {
    requiredCombinators: [
      { combinator: "oneOf", alternatives: [["a"], ["b"]] },
      { combinator: "not", alternatives: [["a", "b"]] },
    ],
    valueCombinators: [{ combinator: "allOf", members: [{ properties: { a: { maxLength: 3 } } }] }],
  });
  assert.deepEqual(warnings, []);
});

test("a typed node's combinator with typed members documents them, keeps its own type and warns", () => {
  const { node, warnings } = normalize({ type: "string", anyOf: [{ type: "string", format: "ipv4" }] });
  assert.equal(node.kind, "string");
  assert.deepEqual(node.constraints.valueCombinators, [
    { combinator: "anyOf", members: [{ type: "string", format: "ipv4" }] },
  ]);
  assert.deepEqual(
    warnings.map((w) => [w.schemaPath, w.message]),
    [
      [
        `${at}/anyOf`,
        "anyOf members with their own type are not merged into the type; only the node's own type is used",
      ],
    ],
  );
});

test("list and map types, list-map keys and CEL rules are kept; a rule that is no mapping is dropped", () => {
  const { node } = normalize({
    type: "array",
    items: { type: "object", properties: { name: { type: "string" } }, "x-kubernetes-map-type": "atomic" },
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
    uniqueItems: true,
    "x-kubernetes-validations": [
      { rule: "self.size() < 5", message: "too many", reason: "FieldValueInvalid", fieldPath: ".name" },
      "self.size() > 0",
      { rule: "true", messageExpression: "'x'" },
    ],
  });
  assert.deepEqual(node.constraints, {
    uniqueItems: true,
    listType: "map",
    listMapKeys: ["name"],
    validations: [
      { rule: "self.size() < 5", message: "too many", reason: "FieldValueInvalid", fieldPath: ".name" },
      { rule: "true", messageExpression: "'x'" },
    ],
  });
  assert.deepEqual((node as { items: SchemaNode }).items.constraints, { mapType: "atomic" });
});

test(`a schema nested deeper than ${maxSchemaDepth} levels is refused at the level that passes the bound`, () => {
  const nest = (levels: number): unknown =>
    levels === 0 ? { type: "string" } : { type: "array", items: nest(levels - 1) };
  // The root is level 1: maxSchemaDepth levels in all are read.
  assert.equal(normalize(nest(maxSchemaDepth - 1)).node.kind, "array");
  assert.throws(
    () => normalize(nest(maxSchemaDepth)),
    (error: unknown) =>
      error instanceof InputError &&
      error.location.schemaPath === at + "/items".repeat(maxSchemaDepth) &&
      error.problem.includes(`more than ${maxSchemaDepth} levels deep`),
  );
});

test("the context's depth is back where it started after a schema is read, and after a refusal", () => {
  const ctx: NormalizeContext = { file: "crd.yaml", documentIndex: 0, warnings: [] };
  normalizeSchema({ type: "object", properties: { a: { type: "array", items: { type: "string" } } } }, at, ctx);
  assert.equal(ctx.depth, 0);
  assert.throws(() => normalizeSchema({ type: "object", properties: { a: { $ref: "#/x" } } }, at, ctx), InputError);
  assert.equal(ctx.depth, 0);
});
