// Gives every nested object and enum an exported type name derived from its path: readable, collision-free, stable.
import type { SchemaNode } from "./schema-node.js";

/** Names a generated file imports or TypeScript defines globally; a type named like one of them gets a "_" suffix. */
const takenGlobally = new Set([
  // TypeScript reserved and contextual words that cannot name a type.
  "any", "boolean", "never", "number", "object", "string", "symbol", "undefined", "unknown", "bigint", "void", "null",
  "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum", "export",
  "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "return", "super", "switch",
  "this", "throw", "true", "try", "typeof", "var", "while", "with", "implements", "interface", "let", "package", "private",
  "protected", "public", "static", "yield", "await", "type", "keyof", "infer", "readonly", "is", "asserts", "satisfies",
  // Globals and utility types a generated file relies on.
  "Array", "ReadonlyArray", "Object", "String", "Number", "Boolean", "Symbol", "BigInt", "Date", "Error", "Function",
  "Map", "Set", "WeakMap", "WeakSet", "Promise", "RegExp", "JSON", "Math", "Record", "Partial", "Required", "Readonly",
  "Pick", "Omit", "Exclude", "Extract", "NonNullable", "ReturnType", "InstanceType", "Parameters", "Awaited", "Uppercase",
  "Lowercase", "Capitalize", "Uncapitalize", "Iterable", "Iterator", "AsyncIterable", "PropertyKey", "Buffer",
  // Names generated files import.
  "V1ObjectMeta", "V1ListMeta", "IntOrString",
]);

export interface TypeNames {
  /** The exported name of each named node (objects, enums, and the root's spec and status). */
  nameOf: Map<SchemaNode, string>;
  /** Named nodes in declaration order (parents before children, document order among siblings). */
  declarationOrder: SchemaNode[];
}

interface Candidate {
  node: SchemaNode;
  name: string;
  /** True when every path segment was already an identifier, so the name reads exactly like the wire keys. */
  lossless: boolean;
}

/** Root properties typed by the generator itself rather than from the schema. */
export const rootEnvelopeKeys = new Set(["apiVersion", "kind", "metadata"]);

export function assignTypeNames(kind: string, root: SchemaNode): TypeNames {
  const candidates: Candidate[] = [];
  const visit = (node: SchemaNode, name: string, lossless: boolean, forceNamed = false): void => {
    if (node.kind === "array") return visit(node.items, name, lossless);
    if (node.kind === "map") return visit(node.values, `${name}Value`, lossless);
    if (node.kind === "union") return node.members.forEach((m, i) => visit(m, `${name}Option${i + 1}`, lossless));
    if (node.kind === "object" || node.kind === "enum" || forceNamed) candidates.push({ node, name, lossless });
    if (node.kind === "object") {
      for (const p of node.properties) {
        if (node === root && rootEnvelopeKeys.has(p.name)) continue;
        const segment = pascalSegment(p.name);
        const isRootPart = node === root && (p.name === "spec" || p.name === "status");
        visit(p.node, name + segment.text, lossless && segment.lossless, isRootPart);
      }
    }
  };
  visit(root, kind, true, true);

  // Names of the generated list type, client, lister, informer and hooks are reserved first, so a root field called
  // "list" or "hooks" cannot take <Kind>List or <Kind>Hooks.
  const taken = new Set(["List", "Client", "Verbs", "Lister", "Informer", "Context", "Hooks", "Controller"].map((suffix) => kind + suffix));
  const nameOf = new Map<SchemaNode, string>();
  const claim = (c: Candidate) => {
    let name = takenGlobally.has(c.name) ? `${c.name}_` : c.name;
    for (let n = 2; taken.has(name); n++) name = `${c.name}_${n}`;
    taken.add(name);
    nameOf.set(c.node, name);
  };
  // Lossless names are claimed before lossy ones, so adding a key like "foo-bar" never renames the type of "fooBar".
  candidates.filter((c) => c.lossless).forEach(claim);
  candidates.filter((c) => !c.lossless).forEach(claim);
  return { nameOf, declarationOrder: candidates.map((c) => c.node) };
}

/** "fooBar" -> FooBar (lossless); "foo-bar" or "x.y_z" -> FooBar / XYZ (lossy: word breaks at non-alphanumerics). */
export function pascalSegment(key: string): { text: string; lossless: boolean } {
  const words = key.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const text = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("") || "Field";
  return { text, lossless: /^[A-Za-z][A-Za-z0-9]*$/.test(key) };
}
