// Normalises a raw openAPIV3Schema into SchemaNodes, one explicit rule per Kubernetes extension and placement.
import { InputError, pointer, scalarText, type InputLocation } from "../input-error.js";
import {
  numericConstraints,
  type CelRule,
  type Constraints,
  type Property,
  type RequiredCombinator,
  type SchemaNode,
  type ValueCombinator,
} from "./schema-node.js";

export interface SchemaWarning extends InputLocation {
  message: string;
}

export interface NormalizeContext {
  file: string;
  documentIndex: number;
  warnings: SchemaWarning[];
  /** Nesting depth of the node being read (kept by normalizeSchema). */
  depth?: number;
}

type Raw = Record<string, unknown>;

const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);
const combinators = ["oneOf", "anyOf", "allOf", "not"] as const;
type Combinator = (typeof combinators)[number];
/** A combinator member that only says which properties are set (postgres-operator style): a constraint, never a type. */
const isRequiredOnly = (m: unknown): boolean =>
  isRecord(m) && Array.isArray(m["required"]) && Object.keys(m).every((k) => k === "required" || k === "description");
/** Keys that give a member a shape of its own, so an untyped node's oneOf/anyOf of such members is a union of types. */
const shapeKeys = [
  "type",
  "properties",
  "items",
  "additionalProperties",
  "x-kubernetes-int-or-string",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
];
const hasShape = (m: unknown): boolean => isRecord(m) && shapeKeys.some((k) => k in m);
const membersOf = (raw: Raw, name: Combinator): unknown[] => {
  const value = raw[name];
  if (name === "not") return isRecord(value) ? [value] : [];
  return Array.isArray(value) ? value : [];
};

/**
 * How deep a schema may nest (properties, items, additionalProperties, oneOf/anyOf): far beyond real CRDs (the corpus
 * tops out at 26), and low enough that every recursive step of the generator stays well inside Node's stack.
 */
export const maxSchemaDepth = 256;

export function normalizeSchema(raw: unknown, at: string, ctx: NormalizeContext): SchemaNode {
  ctx.depth = (ctx.depth ?? 0) + 1;
  try {
    if (ctx.depth > maxSchemaDepth) {
      throw new InputError(
        { file: ctx.file, documentIndex: ctx.documentIndex, schemaPath: at },
        `the schema nests more than ${maxSchemaDepth} levels deep here; crdgen reads at most ${maxSchemaDepth}`,
      );
    }
    return normalizeNode(raw, at, ctx);
  } finally {
    ctx.depth--;
  }
}

function normalizeNode(raw: unknown, at: string, ctx: NormalizeContext): SchemaNode {
  if (!isRecord(raw)) return degrade(at, ctx, `a schema must be a mapping, found ${JSON.stringify(raw)}`);
  if ("$ref" in raw) {
    // Structural CRD schemas forbid $ref; resolving it would hide a schema the API server rejects anyway.
    throw new InputError(
      { file: ctx.file, documentIndex: ctx.documentIndex, schemaPath: pointer(at, "$ref") },
      "$ref is not allowed in a CRD schema (the API server rejects it); inline the referenced schema",
    );
  }
  const base = {
    ...(typeof raw["description"] === "string" ? { description: raw["description"] } : {}),
    nullable: raw["nullable"] === true,
    constraints: readConstraints(raw, at, ctx),
  };

  if (raw["x-kubernetes-int-or-string"] === true) return { ...base, kind: "intOrString" };
  if (Array.isArray(raw["enum"])) return { ...base, kind: "enum", values: raw["enum"] };

  const unionOf = unionSource(raw);
  if (unionOf) return { ...base, kind: "union", members: typedUnion(raw, unionOf, at, ctx) };
  const type = raw["type"];
  const preserveUnknown = raw["x-kubernetes-preserve-unknown-fields"] === true;
  const embeddedResource = raw["x-kubernetes-embedded-resource"] === true;
  const properties = isRecord(raw["properties"]) ? raw["properties"] : undefined;

  switch (type) {
    case "string":
    case "integer":
    case "number":
    case "boolean":
      return { ...base, kind: type };
    case "array": {
      const items = raw["items"];
      if (!isRecord(items))
        return {
          ...base,
          kind: "array",
          items: degrade(pointer(at, "items"), ctx, "an array schema needs an `items` schema"),
        };
      return { ...base, kind: "array", items: normalizeSchema(items, pointer(at, "items"), ctx) };
    }
    case "object":
      return objectNode(raw, base, at, ctx, { properties, preserveUnknown, embeddedResource });
    case undefined:
      if (properties || embeddedResource)
        return objectNode(raw, base, at, ctx, { properties, preserveUnknown: true, embeddedResource });
      // Untyped preserve-unknown-fields (any JSON value) or a node with no type at all.
      if (preserveUnknown) return { ...base, kind: "unknown" };
      if (isRecord(raw["items"]))
        return { ...base, kind: "array", items: normalizeSchema(raw["items"], pointer(at, "items"), ctx) };
      return degrade(
        at,
        ctx,
        "the schema has no `type` (and no x-kubernetes-preserve-unknown-fields or x-kubernetes-int-or-string)",
        base,
      );
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
  if (isRecord(additional))
    return { ...base, kind: "map", values: normalizeSchema(additional, pointer(at, "additionalProperties"), ctx) };
  if (additional === true)
    return { ...base, kind: "map", values: { nullable: false, constraints: {}, kind: "unknown" } };
  if (shape.preserveUnknown) return { ...base, kind: "unknownRecord" };
  return { ...base, kind: "emptyObject" };
}

/**
 * The combinator that types an untyped node: its oneOf (else anyOf) when a member has a shape of its own (`type`,
 * `properties`, ...). Under a node with a type, the structural-schema rules make every combinator a value validation.
 */
function unionSource(raw: Raw): "oneOf" | "anyOf" | undefined {
  if (raw["type"] !== undefined || raw["x-kubernetes-int-or-string"] === true) return undefined;
  return (["oneOf", "anyOf"] as const).find((name) => membersOf(raw, name).some(hasShape));
}

function typedUnion(raw: Raw, name: "oneOf" | "anyOf", at: string, ctx: NormalizeContext): SchemaNode[] {
  return membersOf(raw, name).map((m, i) => normalizeSchema(m, pointer(at, name, i), ctx));
}

function readConstraints(raw: Raw, at: string, ctx: NormalizeContext): Constraints {
  const c: Constraints = {};
  if ("default" in raw) c.default = { value: raw["default"] };
  for (const key of numericConstraints) {
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
      const rule: CelRule = { rule: scalarText(r["rule"]) };
      for (const key of ["message", "messageExpression", "reason", "fieldPath"] as const)
        if (typeof r[key] === "string") rule[key] = r[key];
      return rule;
    });
  }
  const required: RequiredCombinator[] = [];
  const values: ValueCombinator[] = [];
  const union = unionSource(raw);
  for (const name of combinators) {
    const members = membersOf(raw, name);
    if (members.length === 0 || name === union) continue;
    // The anyOf kubebuilder writes next to x-kubernetes-int-or-string is the type itself, not a validation.
    if (name === "anyOf" && raw["x-kubernetes-int-or-string"] === true) continue;
    if (members.every(isRequiredOnly)) {
      required.push({
        combinator: name,
        alternatives: members.map((m) => ((m as Raw)["required"] as unknown[]).map(String)),
      });
      continue;
    }
    values.push({ combinator: name, members });
    if (members.some((m) => isRecord(m) && "type" in m)) {
      // Structural schemas forbid `type` inside combinators; a typed node keeps its own type and the members are only
      // documented.
      ctx.warnings.push({
        file: ctx.file,
        documentIndex: ctx.documentIndex,
        schemaPath: pointer(at, name),
        message: `${name} members with their own type are not merged into the type; only the node's own type is used`,
      });
    }
  }
  if (required.length) c.requiredCombinators = required;
  if (values.length) c.valueCombinators = values;
  return c;
}

function degrade(at: string, ctx: NormalizeContext, message: string, base?: Omit<SchemaNode, "kind">): SchemaNode {
  // Never abort the run on a shape we do not understand: the node becomes `unknown` and the user is told where.
  ctx.warnings.push({
    file: ctx.file,
    documentIndex: ctx.documentIndex,
    schemaPath: at,
    message: `${message}; typed as unknown`,
  });
  return { ...(base ?? { nullable: false, constraints: {} }), kind: "unknown" };
}
