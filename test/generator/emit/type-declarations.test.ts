// emitTypeDeclarations: one version's schema as TypeScript declarations, each rule written once, the imports the text
// uses, and declarations broken at the formatter's width as prettier breaks them.
import { test } from "node:test";
import assert from "node:assert/strict";
import ts from "typescript";
import type { CrdModel, VersionModel } from "../../../generator/model/resource-model.js";
import { normalizeSchema } from "../../../generator/model/normalize-schema.js";
import { emitTypeDeclarations } from "../../../generator/emit/type-declarations.js";

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});

function declare(openAPIV3Schema: unknown, kind = "Widget", version: Partial<VersionModel> = {}) {
  const schema = normalizeSchema(openAPIV3Schema, "/openAPIV3Schema", {
    file: "crd.yaml",
    documentIndex: 0,
    warnings: [],
  });
  const v: VersionModel = {
    name: "v1",
    served: true,
    storage: true,
    deprecated: false,
    subresources: { status: false },
    printerColumns: [],
    schema,
    schemaPointer: "/spec/versions/0/schema/openAPIV3Schema",
    ...version,
  };
  const crd: CrdModel = {
    source: { file: "crd.yaml", documentIndex: 0, fileSha256: "0".repeat(64) },
    name: "widgets.example.com",
    group: "example.com",
    kind,
    typeName: kind,
    listKind: `${kind}List`,
    plural: "widgets",
    singular: "widget",
    shortNames: [],
    categories: [],
    scope: "Namespaced",
    versions: [v],
    storageVersion: "v1",
  };
  return emitTypeDeclarations(crd, v);
}

/** The JSDoc tags (name and text) of each declaration and property of a text, by "Type" or "Type.property". */
function tagsByName(text: string): Map<string, string[]> {
  const source = ts.createSourceFile("types.ts", text, ts.ScriptTarget.Latest, true);
  const tags = new Map<string, string[]>();
  const tagTexts = (node: ts.Node) =>
    ts.getJSDocTags(node).map((t) => `@${t.tagName.text} ${ts.getTextOfJSDocComment(t.comment) ?? ""}`.trim());
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement) && !ts.isTypeAliasDeclaration(statement)) continue;
    tags.set(statement.name.text, tagTexts(statement));
    if (!ts.isInterfaceDeclaration(statement)) continue;
    for (const m of statement.members)
      if (ts.isPropertySignature(m)) tags.set(`${statement.name.text}.${m.name.getText(source)}`, tagTexts(m));
  }
  return tags;
}

const rule = { rule: "self.min <= self.max", message: "min must not exceed max" };

test("the root carries the Kubernetes envelope and each nested object is an interface named from its path", () => {
  const types = declare(object({ spec: object({ size: { type: "integer" }, tier: { type: "string" } }) }));
  assert.match(
    types.text,
    /^export interface Widget \{\n {2}apiVersion: "example\.com\/v1";\n {2}kind: "Widget";\n {2}metadata: V1ObjectMeta;\n {2}spec\?: WidgetSpec;\n\}\n/,
  );
  assert.match(types.text, /export interface WidgetSpec \{\n {2}size\?: number;\n {2}tier\?: string;\n\}\n/);
  assert.equal(types.specType, "WidgetSpec");
  assert.equal(types.statusType, undefined);
  assert.deepEqual(types.exported, ["Widget", "WidgetList", "widgetResource", "WidgetSpec"]);
  assert.equal(types.k8sImports, "V1ListMeta, V1ObjectMeta");
  assert.equal(types.runtimeImports, "ResourceDescriptor", "the descriptor's type only: no IntOrString in the text");
});

test("a named type's rules are written once, on its declaration; its @default on the property that holds it", () => {
  const spec = object(
    { min: { type: "integer", default: 1, minimum: 0 }, max: { type: "integer" } },
    { default: {}, "x-kubernetes-validations": [rule] },
  );
  const tags = tagsByName(declare(object({ spec })).text);
  assert.deepEqual(tags.get("Widget.spec"), ["@default {}"]);
  assert.deepEqual(tags.get("WidgetSpec"), ["@validation self.min <= self.max — min must not exceed max"]);
  // A property of a scalar type has no declaration of its own: all of its tags are on the property.
  assert.deepEqual(tags.get("WidgetSpec.min"), ["@default 1", "@minimum 0"]);
});

test("an enum is a union of its literals with a Values array; a nullable field adds | null", () => {
  const types = declare(
    object({
      spec: object({
        mode: { type: "string", enum: ["Fast", "Safe"], default: "Safe" },
        note: { type: "string", nullable: true },
      }),
    }),
  );
  assert.match(types.text, /export type WidgetSpecMode = "Fast" \| "Safe";\n/);
  assert.match(types.text, /export const WidgetSpecModeValues = \["Fast", "Safe"\] as const;\n/);
  assert.match(types.text, / {2}note\?: string \| null;\n/);
  const tags = tagsByName(types.text);
  assert.deepEqual(tags.get("WidgetSpec.mode"), ['@default "Safe"']);
  assert.deepEqual(tags.get("WidgetSpecMode"), []);
});

test("list items are named in the singular; items without a declaration put their tags on the list's property", () => {
  const types = declare(
    object({
      spec: object({
        volumes: { type: "array", items: object({ name: { type: "string" } }) },
        hosts: { type: "array", items: { type: "string", pattern: "^[a-z]+$" }, maxItems: 3 },
      }),
    }),
  );
  assert.match(types.text, / {2}volumes\?: WidgetSpecVolume\[\];\n/);
  assert.match(types.text, /export interface WidgetSpecVolume \{/);
  assert.deepEqual(tagsByName(types.text).get("WidgetSpec.hosts"), ["@maxItems 3", "@itemPattern ^[a-z]+$"]);
});

test("an int-or-string field imports IntOrString, aliased when the kind takes the name", () => {
  const schema = object({ spec: object({ port: { "x-kubernetes-int-or-string": true } }) });
  const types = declare(schema);
  assert.equal(types.runtimeImports, "IntOrString, ResourceDescriptor");
  assert.match(types.text, / {2}port\?: IntOrString;\n/);
  const clash = declare(schema, "IntOrString");
  assert.equal(clash.runtimeImports, "IntOrString as IntOrString_, ResourceDescriptor");
  assert.match(clash.text, / {2}port\?: IntOrString_;\n/);
});

test("a declaration longer than 120 columns is broken as prettier breaks it; a short one stays on one line", () => {
  const values = Array.from({ length: 12 }, (_, i) => `Value${i}`);
  const types = declare(object({ spec: object({ phase: { type: "string", enum: values } }) }));
  assert.match(types.text, /export type WidgetSpecPhase =\n {2}\| "Value0"\n {2}\| "Value1"\n/);
  assert.match(types.text, /export const WidgetSpecPhaseValues = \[\n {2}"Value0",\n/);
  assert.match(types.text, /\n {2}"Value11",\n\] as const;\n/);
  for (const line of types.text.split("\n")) assert.ok(line.length <= 120, `${line.length} columns: ${line}`);
  const short = declare(object({ spec: object({ phase: { type: "string", enum: ["A", "B"] } }) }));
  assert.match(short.text, /export type WidgetSpecPhase = "A" \| "B";\n/);
});

test("a deprecated version says so on the kind", () => {
  const types = declare(object({ spec: object({ size: { type: "integer" } }) }), "Widget", {
    deprecated: true,
    deprecationWarning: "example.com/v1 Widget is deprecated; use v2",
  });
  assert.deepEqual(tagsByName(types.text).get("Widget"), ["@deprecated example.com/v1 Widget is deprecated; use v2"]);
});

test("an object that preserves unknown fields keeps an index signature; a closed one has none", () => {
  const types = declare(
    object({
      spec: object({
        open: object({ a: { type: "string" } }, { "x-kubernetes-preserve-unknown-fields": true }),
        closed: object({ b: { type: "string" } }),
      }),
    }),
  );
  assert.match(types.text, /export interface WidgetSpecOpen \{\n {2}a\?: string;\n {2}\[key: string\]: unknown;\n\}/);
  assert.match(types.text, /export interface WidgetSpecClosed \{\n {2}b\?: string;\n\}/);
});

test("the output is TypeScript that parses without a diagnostic", () => {
  const types = declare(
    object({
      spec: object({ "dashed-key": { type: "string" }, list: { type: "array", items: { type: "integer" } } }),
    }),
  );
  assert.match(types.text, / {2}"dashed-key"\?: string;\n/);
  assert.deepEqual(ts.transpileModule(types.text, { reportDiagnostics: true }).diagnostics ?? [], []);
});
