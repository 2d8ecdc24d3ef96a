// The smallest object of a kind the scaffolded tests start from: the schema's required fields filled with values its
// constraints accept (the default when it has one, else a placeholder within bounds), written as TypeScript that
// type-checks against the kind's generated type. A value the schema narrows further than this can tell (a pattern no
// common candidate matches, an unknown format, CEL rules) gets a TODO comment above it: it still compiles, and the
// test author knows what to fill in.
import type { Property, SchemaNode } from "../model/schema-node.js";
import { rootEnvelopeKeys } from "../model/type-names.js";
import { lineCommentText, tsLiteral } from "../ts-literal.js";

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const keyOf = (name: string) => (identifier.test(name) ? name : tsLiteral(name));

/**
 * The lines of the root's fields after apiVersion, kind and metadata, each starting with `indent`: every required one,
 * and spec whether required or not (where a test fills in what its reconcile reads).
 */
export function exampleFields(root: SchemaNode, indent: string): string {
  if (root.kind !== "object") return "";
  const fields = root.properties.filter((p) => !rootEnvelopeKeys.has(p.name) && (written(p) || p.name === "spec"));
  return fields.map((p) => propertyLines(p, indent)).join("");
}

/**
 * TypeScript checks an object literal's inherited members against the type's properties of the same name: `{}` does
 * not satisfy `{ constructor?: string }` (its constructor is a Function). Such a property is written even when
 * optional.
 */
const objectMembers = new Set([
  "constructor",
  "toString",
  "toLocaleString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
]);
const written = (p: Property) => p.required || objectMembers.has(p.name);

function propertyLines(p: Property, indent: string): string {
  const todo = unsure(p.node);
  const comment = todo.length ? `${indent}// TODO: fill in a valid value (${lineCommentText(todo.join("; "))})\n` : "";
  return `${comment}${indent}${keyOf(p.name)}: ${valueOf(p.node, indent)},\n`;
}

type Constraints = SchemaNode["constraints"];

/** What a schema can ask of a value that a placeholder may not meet: each check gives a note, or nothing. */
const checks: Array<(c: Constraints, hasDefault: boolean, kind: SchemaNode["kind"]) => string | false> = [
  (c, hasDefault) =>
    c.pattern !== undefined && !hasDefault && !matchingCandidate(c) && `pattern ${truncate(c.pattern)}`,
  // A number's format (int32, int64, double) only sizes it: the placeholder fits any.
  (c, hasDefault, kind) =>
    kind === "string" && c.format !== undefined && !(c.format in formatExamples) && !hasDefault && `format ${c.format}`,
  (c) => Boolean(c.validations?.length) && (c.validations!.length === 1 ? "a CEL rule" : "CEL rules"),
  (c) => Boolean(c.requiredCombinators?.length || c.valueCombinators?.length) && "oneOf/anyOf/allOf/not",
  (c) => Boolean(c.minProperties) && `at least ${c.minProperties} properties`,
  (c) => Boolean(c.uniqueItems) && (c.minItems ?? 0) > 1 && "unique items",
  (c) => c.multipleOf !== undefined && c.maximum !== undefined && `a multiple of ${c.multipleOf}`,
];

/** What the schema asks of a value that the placeholder may not meet. */
function unsure(node: SchemaNode): string[] {
  const hasDefault = node.constraints.default !== undefined && isScalar(node);
  return checks.map((check) => check(node.constraints, hasDefault, node.kind)).filter((note) => note !== false);
}

const truncate = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);
const isScalar = (node: SchemaNode) =>
  ["string", "number", "integer", "boolean", "enum", "intOrString"].includes(node.kind);

const formatExamples: Record<string, string> = {
  "date-time": "1970-01-01T00:00:00Z",
  date: "1970-01-01",
  duration: "1s",
  byte: "ZXhhbXBsZQ==",
  cidr: "192.0.2.0/24",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  hostname: "example.com",
  uri: "https://example.com",
  uuid: "00000000-0000-0000-0000-000000000000",
  email: "user@example.com",
};

/** Strings often asked for by a pattern: a duration, a quantity, a URL, a qualified name. The first that matches. */
const patternCandidates = [
  "example",
  "1s",
  "1",
  "example.com",
  "example.com/example",
  "https://example.com",
  "oci://example.com/example",
  "Example",
];

/** The pattern as a JavaScript RegExp, or undefined where its syntax is not JavaScript's (RE2 extensions). */
function patternRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return undefined;
  }
}

/** The first candidate the pattern matches within the length bounds, or undefined. */
function matchingCandidate(c: Constraints): string | undefined {
  const re = c.pattern === undefined ? undefined : patternRegExp(c.pattern);
  const fits = (s: string) => (c.minLength ?? 0) <= s.length && s.length <= (c.maxLength ?? Infinity);
  return re && patternCandidates.find((s) => fits(s) && re.test(s));
}

/** A TypeScript expression of a value `node` accepts; an object's lines are indented one level below `indent`. */
function valueOf(node: SchemaNode, indent: string): string {
  const fallback = node.constraints.default;
  if (fallback !== undefined && isScalar(node)) return tsLiteral(fallback.value);
  switch (node.kind) {
    case "string":
      return tsLiteral(stringExample(node));
    case "number":
    case "integer":
      return String(numberExample(node));
    case "boolean":
      return "false";
    case "intOrString":
      return "0";
    case "enum":
      return tsLiteral(node.values[0]);
    case "array":
      return arrayExample(node, indent);
    case "object":
      return objectExample(node, indent);
    case "union":
      return node.members.length ? valueOf(node.members[0]!, indent) : "{}";
    default:
      // map, unknownRecord, emptyObject, unknown: an empty object is each of them.
      return "{}";
  }
}

function stringExample(node: SchemaNode): string {
  const c = node.constraints;
  const matching = matchingCandidate(c);
  if (matching !== undefined) return matching;
  const example = (c.format !== undefined ? formatExamples[c.format] : undefined) ?? "example";
  if (c.maxLength !== undefined && example.length > c.maxLength) return example.slice(0, c.maxLength);
  if (c.minLength !== undefined && example.length < c.minLength) return example.padEnd(c.minLength, "x");
  return example;
}

/** 0, moved into [minimum, maximum] (one step inside an exclusive bound) and up to a multiple of multipleOf. */
function numberExample(node: SchemaNode): number {
  const c = node.constraints;
  const step = node.kind === "integer" ? 1 : 0.5;
  let value = 0;
  if (c.minimum !== undefined && (value < c.minimum || (c.exclusiveMinimum && value === c.minimum)))
    value = c.exclusiveMinimum ? c.minimum + step : c.minimum;
  if (c.maximum !== undefined && (value > c.maximum || (c.exclusiveMaximum && value === c.maximum)))
    value = c.exclusiveMaximum ? c.maximum - step : c.maximum;
  if (c.multipleOf && value % c.multipleOf !== 0) value = Math.ceil(value / c.multipleOf) * c.multipleOf;
  return node.kind === "integer" ? Math.round(value) : value;
}

function arrayExample(node: SchemaNode & { kind: "array" }, indent: string): string {
  const count = node.constraints.minItems ?? 0;
  if (count === 0) return "[]";
  const inner = `${indent}  `;
  const item = valueOf(node.items, inner);
  return `[\n${`${inner}${item},\n`.repeat(count)}${indent}]`;
}

function objectExample(node: SchemaNode & { kind: "object" }, indent: string): string {
  const inner = `${indent}  `;
  const declared = new Set(node.properties.map((p) => p.name));
  // An embedded resource's type requires apiVersion and kind even when its schema does not declare them.
  const envelope = node.embeddedResource
    ? ["apiVersion", "kind"]
        .filter((k) => !declared.has(k))
        .map((k) => `${inner}// TODO: fill in the embedded object's ${k}\n${inner}${k}: "example",\n`)
    : [];
  const required = node.properties.filter(
    (p) => written(p) || (node.embeddedResource && (p.name === "apiVersion" || p.name === "kind")),
  );
  const lines = [...envelope, ...required.map((p) => propertyLines(p, inner))];
  return lines.length ? `{\n${lines.join("")}${indent}}` : "{}";
}
