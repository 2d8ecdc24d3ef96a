// The structural view of a CRD version's schema that the runtime needs for what the API server does beyond
// JSON-schema validation: pruning, defaulting, list types and CEL rules. crdgen generates one per version.

/** One `x-kubernetes-validations` entry. */
export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired or FieldValueDuplicate. */
  reason?: string;
  /** Where to report a failure, relative to the node holding the rule (e.g. `.spec.name`). */
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/**
 * A schema keyword crdgen cannot check client-side by design (a pattern Go's RE2 engine rejects): validate() lists it
 * in `skipped` for every value it meets at the node, as it lists CEL rules it cannot evaluate.
 */
export interface UncheckedKeyword {
  /** JSON pointer of the keyword relative to the node (`/pattern`, or `/allOf/0/pattern` inside a combinator). */
  path: string;
  keyword: string;
  /** The keyword's value as the schema gives it. */
  value: string;
  reason: string;
}

export interface StructuralNode {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  format?: string;
  properties?: Readonly<Record<string, StructuralNode>>;
  items?: StructuralNode;
  additionalProperties?: StructuralNode;
  /** Present only when the schema has a non-null `default` (a null default means none, as in the API server). */
  default?: unknown;
  nullable?: boolean;
  preserveUnknownFields?: boolean;
  embeddedResource?: boolean;
  intOrString?: boolean;
  listType?: "atomic" | "set" | "map";
  listMapKeys?: readonly string[];
  rules?: readonly CelRule[];
  unchecked?: readonly UncheckedKeyword[];
}

export type JsonObject = { [key: string]: unknown };
export const isJsonObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** A deep copy of a JSON value (defaults are copied, never shared, as the API server does). */
export function copyJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** The schema node for a property of an object node: the named property, else additionalProperties. */
export function childSchema(node: StructuralNode | undefined, key: string): StructuralNode | undefined {
  if (!node) return undefined;
  if (node.properties && Object.prototype.hasOwnProperty.call(node.properties, key)) return node.properties[key];
  return node.additionalProperties;
}
