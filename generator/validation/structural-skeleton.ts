// Builds the StructuralNode tree (@crdgen/runtime/validation) of a version's openAPIV3Schema: only what pruning,
// defaulting, list types and CEL need, and emits it as TypeScript with repeated subtrees declared once.
import type { CelRule, StructuralNode, UncheckedKeyword } from "@crdgen/runtime/validation";
import { pointer } from "../input-error.js";
import { tsLiteral, tsString } from "../ts-literal.js";

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);
const schemaTypes = new Set(["object", "array", "string", "integer", "number", "boolean"]);

/**
 * The structural tree of a schema. `unchecked` gives the keywords crdgen cannot check client-side, by the pointer of
 * the structural node they belong to (see uncheckedByNode); `at` is this schema's pointer.
 */
export function structuralNode(
  schema: Raw,
  unchecked: ReadonlyMap<string, UncheckedKeyword[]> = new Map(),
  at = "",
): StructuralNode {
  const node: { -readonly [K in keyof StructuralNode]: StructuralNode[K] } = {};
  if (typeof schema["type"] === "string" && schemaTypes.has(schema["type"]))
    node.type = schema["type"] as StructuralNode["type"];
  if (typeof schema["format"] === "string" && schema["format"] !== "") node.format = schema["format"];
  if (isRecord(schema["properties"])) {
    // Without a prototype, a property named __proto__ is an entry like any other (on `{}` its assignment would set the
    // prototype instead, and the property would drop out of pruning, defaulting and validation).
    const properties = Object.create(null) as Record<string, StructuralNode>;
    for (const [key, value] of Object.entries(schema["properties"]))
      if (isRecord(value)) properties[key] = structuralNode(value, unchecked, pointer(at, "properties", key));
    node.properties = properties;
  }
  if (isRecord(schema["items"])) node.items = structuralNode(schema["items"], unchecked, `${at}/items`);
  if (isRecord(schema["additionalProperties"]))
    node.additionalProperties = structuralNode(schema["additionalProperties"], unchecked, `${at}/additionalProperties`);
  else if (schema["additionalProperties"] === true) node.additionalProperties = {};
  // A null default is no default for the API server (Default.Object == nil).
  if (schema["default"] !== undefined && schema["default"] !== null) node.default = schema["default"];
  if (schema["nullable"] === true) node.nullable = true;
  if (schema["x-kubernetes-preserve-unknown-fields"] === true) node.preserveUnknownFields = true;
  if (schema["x-kubernetes-embedded-resource"] === true) node.embeddedResource = true;
  if (schema["x-kubernetes-int-or-string"] === true) node.intOrString = true;
  const listType = schema["x-kubernetes-list-type"];
  if (listType === "atomic" || listType === "set" || listType === "map") node.listType = listType;
  if (Array.isArray(schema["x-kubernetes-list-map-keys"]))
    node.listMapKeys = schema["x-kubernetes-list-map-keys"].map(String);
  if (Array.isArray(schema["x-kubernetes-validations"])) {
    const rules: CelRule[] = schema["x-kubernetes-validations"]
      .filter(isRecord)
      .filter((r) => typeof r["rule"] === "string")
      .map((r) => ({
        rule: r["rule"] as string,
        ...(typeof r["message"] === "string" ? { message: r["message"] } : {}),
        ...(typeof r["messageExpression"] === "string" ? { messageExpression: r["messageExpression"] } : {}),
        ...(typeof r["reason"] === "string" ? { reason: r["reason"] } : {}),
        ...(typeof r["fieldPath"] === "string" ? { fieldPath: r["fieldPath"] } : {}),
        ...(r["optionalOldSelf"] === true ? { optionalOldSelf: true } : {}),
      }));
    if (rules.length) node.rules = rules;
  }
  const mine = unchecked.get(at);
  if (mine?.length) node.unchecked = mine;
  return node;
}

/**
 * Groups keywords by the structural node they belong to: the schema they are in, or for one inside allOf, anyOf,
 * oneOf or not (which the structural tree does not descend), the schema holding that combinator.
 */
export function uncheckedByNode(
  keywords: Array<{ schemaPath: string; keyword: string; value: string; reason: string }>,
): Map<string, UncheckedKeyword[]> {
  const byNode = new Map<string, UncheckedKeyword[]>();
  for (const k of keywords) {
    const segments = k.schemaPath.split("/").slice(1);
    let cut = 0;
    while (cut < segments.length - 1) {
      const segment = segments[cut];
      if (segment === "properties") cut += 2;
      else if (segment === "items" || segment === "additionalProperties") cut += 1;
      else break;
    }
    const nodePath = segments
      .slice(0, cut)
      .map((s) => `/${s}`)
      .join("");
    const path = segments
      .slice(cut)
      .map((s) => `/${s}`)
      .join("");
    const entry = { path, keyword: k.keyword, value: k.value, reason: k.reason };
    byNode.set(nodePath, [...(byNode.get(nodePath) ?? []), entry]);
  }
  return byNode;
}

/** Counts the rules in a structure (for reports): all, and by node. */
export function countRules(node: StructuralNode): number {
  let n = node.rules?.length ?? 0;
  for (const child of Object.values(node.properties ?? {})) n += countRules(child);
  if (node.items) n += countRules(node.items);
  if (node.additionalProperties) n += countRules(node.additionalProperties);
  return n;
}

/**
 * TypeScript for the tree: `const` declarations for subtrees that occur more than once (Argo and Ray repeat the
 * PodSpec many times) and the expression of the root.
 */
export function emitStructure(
  root: StructuralNode,
  prefix: string,
  nodeType: string,
): { declarations: string; root: string } {
  const text = new Map<StructuralNode, string>();
  const counts = new Map<string, number>();
  const measure = (node: StructuralNode): string => {
    const json = JSON.stringify(node);
    text.set(node, json);
    counts.set(json, (counts.get(json) ?? 0) + 1);
    for (const child of children(node)) measure(child);
    return json;
  };
  measure(root);
  const names = new Map<string, string>();
  const declarations: string[] = [];
  const render = (node: StructuralNode, top = false): string => {
    const json = text.get(node)!;
    const shared = !top && (counts.get(json) ?? 0) > 1 && json.length >= 120;
    const existing = shared ? names.get(json) : undefined;
    if (existing) return existing;
    const fields: string[] = [];
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties") {
        // "__proto__" as a literal key would set the prototype; a computed key makes it an own property. A key
        // Object.prototype has (constructor, toString) would take its contextual type from that member, so its node
        // says what it is with `satisfies`.
        const props = Object.entries(value as Record<string, StructuralNode>).map(([k, v]) => {
          const node = render(v);
          const typed = k in Object.prototype && node.startsWith("{") ? `${node} satisfies ${nodeType}` : node;
          return `${k === "__proto__" ? `["__proto__"]` : tsString(k)}: ${typed}`;
        });
        fields.push(`properties: { ${props.join(", ")} }`);
      } else if (key === "items" || key === "additionalProperties")
        fields.push(`${key}: ${render(value as StructuralNode)}`);
      else fields.push(`${key}: ${jsonLiteral(value)}`);
    }
    const literal = `{ ${fields.join(", ")} }`;
    if (!shared) return literal;
    const name = `${prefix}${names.size}`;
    names.set(json, name);
    declarations.push(`const ${name}: ${nodeType} = ${literal};`);
    return name;
  };
  const rootExpression = render(root, true);
  return { declarations: declarations.join("\n"), root: rootExpression };
}

function children(node: StructuralNode): StructuralNode[] {
  return [
    ...Object.values(node.properties ?? {}),
    ...(node.items ? [node.items] : []),
    ...(node.additionalProperties ? [node.additionalProperties] : []),
  ];
}

/** A JSON value as a TS expression; through JSON.parse when it holds a "__proto__" key a literal would mistreat. */
function jsonLiteral(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('"__proto__"') ? `JSON.parse(${tsString(json)})` : tsLiteral(value);
}
