// Normalises a raw openAPIV3Schema into SchemaNodes, one explicit rule per Kubernetes extension and placement.
import { InputError, pointer, type InputLocation } from "../load/input-error.js";
import type { CelRule, Constraints, Property, RequiredCombinator, SchemaNode } from "./schema-node.js";

export interface SchemaWarning extends InputLocation {
  message: string;
}

export interface NormalizeContext {
  file: string;
  documentIndex: number;
  warnings: SchemaWarning[];
}

type Raw = Record<string, unknown>;

const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);
const combinators = ["oneOf", "anyOf", "allOf", "not"] as const;
/** Keys a combinator member may hold and still be a pure "which fields are set" constraint. */
const constraintOnlyKeys = new Set(["required", "description", "not", "anyOf", "oneOf", "allOf"]);

export function normalizeSchema(raw: unknown, at: string, ctx: NormalizeContext): SchemaNode {
  if (!isRecord(raw)) return degrade(at, ctx, `a schema must be a mapping, found ${JSON.stringify(raw)}`);
  if ("$ref" in raw) {
    // Structural CRD schemas forbid $ref; resolving it would hide a schema the API server rejects anyway.
    throw new InputError({ file: ctx.file, documentIndex: ctx.documentIndex, schemaPath: pointer(at, "$ref") }, "$ref is not allowed in a CRD schema (the API server rejects it); inline the referenced schema");
  }
  const base = {
    pointer: at,
    ...(typeof raw["description"] === "string" ? { description: raw["description"] } : {}),
    nullable: raw["nullable"] === true,
    constraints: readConstraints(raw, at, ctx),
  };

  if (raw["x-kubernetes-int-or-string"] === true) return { ...base, kind: "intOrString" };
  if (Array.isArray(raw["enum"])) return { ...base, kind: "enum", values: raw["enum"] };

  const union = typedUnion(raw, at, ctx);
  const type = raw["type"];
  const preserveUnknown = raw["x-kubernetes-preserve-unknown-fields"] === true;
  const embeddedResource = raw["x-kubernetes-embedded-resource"] === true;
  const properties = isRecord(raw["properties"]) ? raw["properties"] : undefined;

  if (union && type === undefined) return { ...base, kind: "union", members: union };
  switch (type) {
    case "string":
    case "integer":
    case "number":
    case "boolean":
      return { ...base, kind: type };
    case "array": {
      const items = raw["items"];
      if (!isRecord(items)) return { ...base, kind: "array", items: degrade(pointer(at, "items"), ctx, "an array schema needs an `items` schema") };
      return { ...base, kind: "array", items: normalizeSchema(items, pointer(at, "items"), ctx) };
    }
    case "object":
      return objectNode(raw, base, at, ctx, { properties, preserveUnknown, embeddedResource });
    case undefined:
      if (properties || embeddedResource) return objectNode(raw, base, at, ctx, { properties, preserveUnknown: true, embeddedResource });
      // Untyped preserve-unknown-fields (any JSON value) or a node with no type at all.
      if (preserveUnknown) return { ...base, kind: "unknown" };
      if (isRecord(raw["items"])) return { ...base, kind: "array", items: normalizeSchema(raw["items"], pointer(at, "items"), ctx) };
      return degrade(at, ctx, "the schema has no `type` (and no x-kubernetes-preserve-unknown-fields or x-kubernetes-int-or-string)", base);
    default:
      return degrade(at, ctx, `unsupported type ${JSON.stringify(type)}`, base);
  }
}

function objectNode(
  raw: Raw,
  base: Omit<SchemaNode, "kind">,
  at: string,
  ctx: NormalizeContext,
  shape: { properties: Raw | undefined; preserveUnknown: boolean; embeddedResource: boolean },
): SchemaNode {
  const additional = raw["additionalProperties"];
  const hasProperties = shape.properties !== undefined && Object.keys(shape.properties).length > 0;
  if (hasProperties || shape.embeddedResource) {
    const required = new Set(Array.isArray(raw["required"]) ? raw["required"].map(String) : []);
    const props: Property[] = Object.entries(shape.properties ?? {}).map(([name, schema]) => ({
      name,
      required: required.has(name),
      node: normalizeSchema(schema, pointer(at, "properties", name), ctx),
    }));
    const openIndexSignature = shape.preserveUnknown || additional === true || isRecord(additional);
    return { ...base, kind: "object", properties: props, openIndexSignature, embeddedResource: shape.embeddedResource };
  }
  if (isRecord(additional)) return { ...base, kind: "map", values: normalizeSchema(additional, pointer(at, "additionalProperties"), ctx) };
  if (additional === true) return { ...base, kind: "map", values: { pointer: pointer(at, "additionalProperties"), nullable: false, constraints: {}, kind: "unknown" } };
  if (shape.preserveUnknown) return { ...base, kind: "unknownRecord" };
  return { ...base, kind: "emptyObject" };
}

/** oneOf/anyOf whose members carry their own types become a union; members that only list `required` do not. */
function typedUnion(raw: Raw, at: string, ctx: NormalizeContext): SchemaNode[] | undefined {
  for (const name of ["oneOf", "anyOf"] as const) {
    const members = raw[name];
    if (!Array.isArray(members) || members.every(isConstraintOnly)) continue;
    return members.map((m, i) => normalizeSchema(m, pointer(at, name, i), ctx));
  }
  return undefined;
}

function isConstraintOnly(member: unknown): boolean {
  return isRecord(member) && Object.keys(member).every((k) => constraintOnlyKeys.has(k)) &&
    combinators.every((c) => member[c] === undefined || (Array.isArray(member[c]) ? (member[c] as unknown[]).every(isConstraintOnly) : isConstraintOnly(member[c])));
}

function readConstraints(raw: Raw, at: string, ctx: NormalizeContext): Constraints {
  const c: Constraints = {};
  if ("default" in raw) c.default = { value: raw["default"] };
  for (const key of ["minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const) {
    if (typeof raw[key] === "number") c[key] = raw[key];
  }
  for (const key of ["exclusiveMinimum", "exclusiveMaximum", "uniqueItems"] as const) {
    if (raw[key] === true) c[key] = true;
  }
  if (typeof raw["pattern"] === "string") c.pattern = raw["pattern"];
  if (typeof raw["format"] === "string") c.format = raw["format"];
  if (typeof raw["x-kubernetes-list-type"] === "string") c.listType = raw["x-kubernetes-list-type"];
  if (Array.isArray(raw["x-kubernetes-list-map-keys"])) c.listMapKeys = raw["x-kubernetes-list-map-keys"].map(String);
  if (typeof raw["x-kubernetes-map-type"] === "string") c.mapType = raw["x-kubernetes-map-type"];
  const rules = raw["x-kubernetes-validations"];
  if (Array.isArray(rules)) {
    c.validations = rules.filter(isRecord).map((r): CelRule => {
      const rule: CelRule = { rule: String(r["rule"] ?? "") };
      for (const key of ["message", "messageExpression", "reason", "fieldPath"] as const) if (typeof r[key] === "string") rule[key] = r[key];
      return rule;
    });
  }
  const required: RequiredCombinator[] = [];
  for (const name of combinators) {
    const value = raw[name];
    const members = name === "not" ? (isRecord(value) ? [value] : []) : Array.isArray(value) ? value : [];
    if (members.length === 0 || !members.every(isConstraintOnly)) continue;
    const alternatives = members.map((m) => (Array.isArray((m as Raw)["required"]) ? ((m as Raw)["required"] as unknown[]).map(String) : []));
    if (alternatives.some((a) => a.length > 0)) required.push({ combinator: name, alternatives });
  }
  if (required.length) c.requiredCombinators = required;
  if (raw["allOf"] !== undefined && !(Array.isArray(raw["allOf"]) && raw["allOf"].every(isConstraintOnly))) {
    ctx.warnings.push({ file: ctx.file, documentIndex: ctx.documentIndex, schemaPath: pointer(at, "allOf"), message: "allOf with typed members is not merged into the type; only the node's own type is used" });
  }
  return c;
}

function degrade(at: string, ctx: NormalizeContext, message: string, base?: Omit<SchemaNode, "kind">): SchemaNode {
  // Never abort the run on a shape we do not understand: the node becomes `unknown` and the user is told where.
  ctx.warnings.push({ file: ctx.file, documentIndex: ctx.documentIndex, schemaPath: at, message: `${message}; typed as unknown` });
  return { ...(base ?? { pointer: at, nullable: false, constraints: {} }), kind: "unknown" };
}
