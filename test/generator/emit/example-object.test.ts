// exampleFields: the scaffolded tests' example object fills every required field with a value the schema accepts,
// and marks with a TODO the ones whose constraints it cannot meet for sure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runInNewContext } from "node:vm";
import { normalizeSchema } from "../../../generator/model/normalize-schema.js";
import { exampleFields } from "../../../generator/emit/example-object.js";

const node = (raw: unknown) =>
  normalizeSchema(raw, "/openAPIV3Schema", { file: "crd.yaml", documentIndex: 0, warnings: [] });
const root = (spec: Record<string, unknown>, required: string[] = Object.keys(spec), more: object = {}) =>
  node({ type: "object", properties: { spec: { type: "object", properties: spec, required }, ...more } });
/** The fields as the value they write: the object literal's lines evaluated (and copied out of the vm's realm). */
const valueOf = (fields: string) =>
  JSON.parse(JSON.stringify(runInNewContext(`({\n${fields}})`))) as Record<string, unknown>;
const spec = (schema: ReturnType<typeof node>) => valueOf(exampleFields(schema, "  "))["spec"];

test("required fields are filled and optional ones left out; spec is written even when optional", () => {
  const schema = node({
    type: "object",
    properties: {
      apiVersion: { type: "string" },
      metadata: { type: "object" },
      spec: { type: "object", properties: { name: { type: "string" }, note: { type: "string" } }, required: ["name"] },
      status: { type: "object", properties: { ready: { type: "boolean" } } },
      owner: { type: "string" },
    },
    required: ["owner"],
  });
  assert.deepEqual(valueOf(exampleFields(schema, "  ")), { spec: { name: "example" }, owner: "example" });
});

test("numbers: 0 moved inside minimum and maximum (exclusive ones too) and up to multipleOf", () => {
  const value = spec(
    root({
      zero: { type: "integer" },
      atLeast3: { type: "integer", minimum: 3 },
      above0: { type: "integer", minimum: 0, exclusiveMinimum: true },
      atMostMinus2: { type: "number", maximum: -2 },
      below0: { type: "number", maximum: 0, exclusiveMaximum: true },
      fives: { type: "integer", minimum: 3, multipleOf: 5 },
      defaulted: { type: "integer", minimum: 1, default: 7 },
    }),
  );
  assert.deepEqual(value, { zero: 0, atLeast3: 3, above0: 1, atMostMinus2: -2, below0: -0.5, fives: 5, defaulted: 7 });
});

test("strings, booleans, enums, int-or-strings: within length bounds, the default or the first value", () => {
  const value = spec(
    root({
      plain: { type: "string" },
      long: { type: "string", minLength: 10 },
      short: { type: "string", maxLength: 3 },
      when: { type: "string", format: "date-time" },
      mode: { type: "string", enum: ["Fast", "Slow"] },
      size: { type: "string", enum: ["small", "large"], default: "large" },
      on: { type: "boolean" },
      port: { "x-kubernetes-int-or-string": true },
    }),
  );
  assert.deepEqual(value, {
    plain: "example",
    long: "examplexxx",
    short: "exa",
    when: "1970-01-01T00:00:00Z",
    mode: "Fast",
    size: "large",
    on: false,
    port: 0,
  });
});

test("objects recurse into their required fields; arrays hold minItems items; maps and open objects are empty", () => {
  const item = { type: "object", properties: { id: { type: "integer", minimum: 1 } }, required: ["id"] };
  const value = spec(
    root({
      none: { type: "array", items: item },
      two: { type: "array", items: item, minItems: 2 },
      nested: { type: "object", properties: { inner: item, skipped: item }, required: ["inner"] },
      labels: { type: "object", additionalProperties: { type: "string" } },
      anything: { "x-kubernetes-preserve-unknown-fields": true },
    }),
  );
  assert.deepEqual(value, {
    none: [],
    two: [{ id: 1 }, { id: 1 }],
    nested: { inner: { id: 1 } },
    labels: {},
    anything: {},
  });
});

test("a pattern, an unknown format or a CEL rule puts a TODO above the placeholder, which still evaluates", () => {
  const fields = exampleFields(
    root({
      hex: { type: "string", pattern: "^[0-9a-f]{8}$" },
      ip: { type: "string", format: "mac" },
      count: { type: "integer", format: "int32" },
      ranged: {
        type: "object",
        properties: { min: { type: "integer" } },
        required: ["min"],
        "x-kubernetes-validations": [{ rule: "self.min > 2" }],
      },
      plain: { type: "string" },
    }),
    "  ",
  );
  const todos = fields.split("\n").filter((l) => l.includes("// TODO"));
  assert.deepEqual(
    todos.map((l) => l.trim()),
    [
      "// TODO: fill in a valid value (pattern ^[0-9a-f]{8}$)",
      "// TODO: fill in a valid value (format mac)",
      "// TODO: fill in a valid value (a CEL rule)",
    ],
  );
  assert.deepEqual(valueOf(fields)["spec"], {
    hex: "example",
    ip: "example",
    count: 0,
    ranged: { min: 0 },
    plain: "example",
  });
});

test("keys that are not identifiers are quoted; an embedded resource gets apiVersion and kind to fill in", () => {
  const fields = exampleFields(
    root({
      "my-key": { type: "string" },
      template: { type: "object", "x-kubernetes-embedded-resource": true, properties: { data: { type: "string" } } },
    }),
    "  ",
  );
  assert.match(fields, /^ {4}"my-key": "example",$/m);
  assert.match(fields, /\/\/ TODO: fill in the embedded object's kind/);
  assert.deepEqual(valueOf(fields)["spec"], {
    "my-key": "example",
    template: { apiVersion: "example", kind: "example" },
  });
});

test("a property named as an Object.prototype member is written even when optional, as TypeScript checks it", () => {
  const value = spec(
    root({ constructor: { type: "string" }, valueOf: { type: "integer" }, other: { type: "string" } }, []),
  );
  assert.deepEqual(value, { constructor: "example", valueOf: 0 });
});

test("a pattern gets the first common candidate it matches; known formats get a value of theirs", () => {
  const value = spec(
    root({
      interval: { type: "string", pattern: "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$" },
      url: { type: "string", pattern: "^(http|https|oci)://.*$" },
      controllerName: { type: "string", pattern: "^[a-z0-9.]+\\/[a-z]+$" },
      request: { type: "string", format: "byte" },
      cidr: { type: "string", format: "cidr" },
    }),
  );
  assert.deepEqual(value, {
    interval: "1s",
    url: "https://example.com",
    controllerName: "example.com/example",
    request: "ZXhhbXBsZQ==",
    cidr: "192.0.2.0/24",
  });
});
