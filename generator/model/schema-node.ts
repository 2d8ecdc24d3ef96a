// The Kubernetes-aware schema model: every openAPIV3Schema node normalised into one explicit kind.

/** The constraints that hold a number, in the order crdgen reads and documents them. */
export const numericConstraints = [
  "minimum",
  "maximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
] as const satisfies readonly (keyof Constraints)[];

/** Value validations and Kubernetes extensions kept for documentation and (later) runtime validation. */
export interface Constraints {
  default?: { value: unknown };
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  listType?: string;
  listMapKeys?: string[];
  mapType?: string;
  /** CEL rules from x-kubernetes-validations. */
  validations?: CelRule[];
  /** oneOf/anyOf/allOf/not made only of `required` lists: constraints on which properties are set. */
  requiredCombinators?: RequiredCombinator[];
  /** Other oneOf/anyOf/allOf/not that only validate values (format, pattern, bounds, nested required): documented as given. */
  valueCombinators?: ValueCombinator[];
}

export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
}

export interface RequiredCombinator {
  combinator: "oneOf" | "anyOf" | "allOf" | "not";
  alternatives: string[][];
}

export interface ValueCombinator {
  combinator: "oneOf" | "anyOf" | "allOf" | "not";
  /** The members exactly as in the schema (one for `not`). */
  members: unknown[];
}

export interface Property {
  /** The wire key, exactly as in the schema. */
  name: string;
  required: boolean;
  node: SchemaNode;
}

// Nodes keep no JSON pointer of their own: warnings and errors are located while normalising, and a pointer on each
// of the corpus's 120,000 nodes was 24 MB of strings to build.
interface NodeBase {
  description?: string;
  nullable: boolean;
  constraints: Constraints;
}

export type SchemaNode = NodeBase &
  (
    | { kind: "string" }
    | { kind: "number" }
    | { kind: "integer" }
    | { kind: "boolean" }
    /** x-kubernetes-int-or-string, with or without its anyOf. */
    | { kind: "intOrString" }
    /** enum: any JSON values. */
    | { kind: "enum"; values: unknown[] }
    | { kind: "array"; items: SchemaNode }
    /**
     * An object with declared properties. Closed unless preserve-unknown-fields asks for an open one.
     * embeddedResource adds apiVersion, kind and ObjectMeta metadata.
     */
    | { kind: "object"; properties: Property[]; openIndexSignature: boolean; embeddedResource: boolean }
    /** additionalProperties with a schema (or `true`): a record. */
    | { kind: "map"; values: SchemaNode }
    /** preserve-unknown-fields without properties: Record<string, unknown>. */
    | { kind: "unknownRecord" }
    /** A `type: object` with no properties and nothing preserved: the server prunes every key. */
    | { kind: "emptyObject" }
    /** No type information at all (untyped preserve-unknown-fields, or a node degraded with a warning). */
    | { kind: "unknown" }
    /** oneOf/anyOf whose members carry types. */
    | { kind: "union"; members: SchemaNode[] }
  );

export type NodeKind = SchemaNode["kind"];
