// schemaDifferences: the fields a conversion stub lists for the user to write are exactly those whose TypeScript types
// differ between two versions; descriptions, value constraints and the fields the runtime sets never count.
import { test } from "node:test";
import assert from "node:assert/strict";
import { normalizeSchema } from "../../../generator/model/normalize-schema.js";
import { schemaDifferences } from "../../../generator/model/schema-differences.js";

const node = (raw: unknown) =>
  normalizeSchema(raw, "/openAPIV3Schema", { file: "crd.yaml", documentIndex: 0, warnings: [] });
const root = (spec: Record<string, unknown>, required: string[] = []) =>
  node({ type: "object", properties: { spec: { type: "object", properties: spec, required } } });
const differences = (a: unknown, b: unknown) => schemaDifferences(node(a), node(b), "v1alpha1", "v1");

test("descriptions, bounds, defaults, formats and CEL rules change no type: nothing to write", () => {
  const before = root({ replicas: { type: "integer" }, at: { type: "string" } });
  const after = root({
    replicas: { type: "integer", description: "How many.", minimum: 1, maximum: 9, default: 1 },
    at: { type: "string", format: "date-time", "x-kubernetes-validations": [{ rule: "self == oldSelf" }] },
  });
  assert.deepEqual(schemaDifferences(before, after, "v1alpha1", "v1"), []);
});

test("the runtime's apiVersion, kind and metadata are never listed, however each version declares them", () => {
  const a = { type: "object", properties: { apiVersion: { type: "string" }, kind: { type: "string" } } };
  const b = { type: "object", properties: { metadata: { type: "object" }, kind: { type: "integer" } } };
  assert.deepEqual(differences(a, b), []);
});

test("a field in one version only, a changed type, a changed requirement and a changed nullability are listed", () => {
  const a = root(
    { count: { type: "integer" }, size: { type: "integer" }, name: { type: "string" }, note: { type: "string" } },
    ["name"],
  );
  const b = root({
    replicas: { type: "integer" },
    size: { type: "string" },
    name: { type: "string" },
    note: { type: "string", nullable: true },
  });
  assert.deepEqual(schemaDifferences(a, b, "v1alpha1", "v1"), [
    "spec.count: only in v1alpha1",
    "spec.size: integer in v1alpha1, string in v1",
    "spec.name: required in v1alpha1 only",
    "spec.note: string in v1alpha1, nullable string in v1",
    "spec.replicas: only in v1",
  ]);
});

test("enum values, int-or-string, preserved unknown fields and embedded resources are types of their own", () => {
  const a = root({
    color: { type: "string", enum: ["red", "blue"] },
    port: { type: "integer" },
    extra: { type: "object", properties: { a: { type: "string" } } },
    template: { type: "object", properties: { a: { type: "string" } } },
  });
  const b = root({
    color: { type: "string", enum: ["red", "green"] },
    port: { "x-kubernetes-int-or-string": true },
    extra: { type: "object", properties: { a: { type: "string" } }, "x-kubernetes-preserve-unknown-fields": true },
    template: { type: "object", properties: { a: { type: "string" } }, "x-kubernetes-embedded-resource": true },
  });
  assert.deepEqual(schemaDifferences(a, b, "v1alpha1", "v1"), [
    'spec.color: one of "red", "blue" in v1alpha1, one of "red", "green" in v1',
    "spec.port: integer in v1alpha1, intOrString in v1",
    "spec.extra: object in v1alpha1, object with any other keys in v1",
    "spec.template: object in v1alpha1, embedded resource in v1",
  ]);
});

test("fields inside list items and map values are compared one by one; odd keys are quoted", () => {
  const item = (port: string) => ({
    type: "array",
    items: { type: "object", properties: { name: { type: "string" }, port: { type: port } } },
  });
  const a = root({ servers: item("integer"), labels: { type: "object", additionalProperties: { type: "string" } } });
  const b = root({
    servers: item("string"),
    labels: { type: "object", additionalProperties: { type: "integer" } },
    "app.kubernetes.io/name": { type: "string" },
  });
  assert.deepEqual(schemaDifferences(a, b, "v1alpha1", "v1"), [
    "spec.servers[*].port: integer in v1alpha1, string in v1",
    "spec.labels[*]: string in v1alpha1, integer in v1",
    'spec["app.kubernetes.io/name"]: only in v1',
  ]);
});

test("a union differs when any member's type does, and not when only a description does", () => {
  const union = (second: string, description?: string) =>
    root({
      value: { anyOf: [{ type: "object", properties: { a: { type: "string", description } } }, { type: second }] },
    });
  assert.deepEqual(schemaDifferences(union("integer"), union("integer", "A."), "v1alpha1", "v1"), []);
  const listed = schemaDifferences(union("integer"), union("boolean"), "v1alpha1", "v1");
  assert.equal(listed.length, 1);
  assert.match(listed[0]!, /^spec\.value: union of \(.*integer\) in v1alpha1, union of \(.*boolean\) in v1$/);
});
