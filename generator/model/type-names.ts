// Gives every nested object and enum an exported type name derived from its path: readable, collision-free, stable.
import type { SchemaNode } from "./schema-node.js";

/**
 * Words TypeScript does not take as the name of an interface or type (tsc: "Identifier expected", "Interface name
 * cannot be 'string'"): keywords, strict-mode reserved words and the primitive types' names.
 */
const reservedWords: ReadonlySet<string> = new Set([
  "any",
  "boolean",
  "never",
  "number",
  "object",
  "string",
  "symbol",
  "undefined",
  "unknown",
  "bigint",
  "void",
  "null",
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "import",
  "in",
  "instanceof",
  "new",
  "return",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "while",
  "with",
  "implements",
  "interface",
  "let",
  "package",
  "private",
  "protected",
  "public",
  "static",
  "yield",
  "await",
  "keyof",
  "infer",
  "readonly",
  "unique",
]);

/**
 * The TypeScript name of a kind's type: the kind itself, or with a "_" suffix when it is a reserved word (the API
 * server accepts a kind `import`; its type is `import_`, `import_List`, ...). Kinds have no "_", so no kind takes it.
 */
export function kindTypeName(kind: string): string {
  return reservedWords.has(kind) ? `${kind}_` : kind;
}

/** Names a generated file imports or TypeScript defines globally; a type named like one of them gets a "_" suffix. */
const takenGlobally = new Set([
  ...reservedWords,
  // Contextual words, kept out of nested names too.
  "type",
  "is",
  "asserts",
  "satisfies",
  // Globals and utility types a generated file relies on.
  "Array",
  "ReadonlyArray",
  "Object",
  "String",
  "Number",
  "Boolean",
  "Symbol",
  "BigInt",
  "Date",
  "Error",
  "Function",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "Promise",
  "RegExp",
  "JSON",
  "Math",
  "Record",
  "Partial",
  "Required",
  "Readonly",
  "Pick",
  "Omit",
  "Exclude",
  "Extract",
  "NonNullable",
  "ReturnType",
  "InstanceType",
  "Parameters",
  "Awaited",
  "Uppercase",
  "Lowercase",
  "Capitalize",
  "Uncapitalize",
  "Iterable",
  "Iterator",
  "AsyncIterable",
  "PropertyKey",
  "Buffer",
  // Names generated files import.
  "V1ObjectMeta",
  "V1ListMeta",
  "IntOrString",
]);

export interface TypeNames {
  /** The exported name of each named node (objects, enums, and the root's spec and status). */
  nameOf: Map<SchemaNode, string>;
  /** Named nodes in declaration order (parents before children, document order among siblings). */
  declarationOrder: SchemaNode[];
  /** Every nested name the types module exports: the nested types and each enum's `<Type>Values` array. */
  exported: string[];
}

interface Candidate {
  node: SchemaNode;
  /** The name of the parent path; name = prefix + segment. */
  prefix: string;
  segment: string;
  /** True when every path segment was already an identifier, so the name reads exactly like the wire keys. */
  lossless: boolean;
}

/** Root properties typed by the generator itself rather than from the schema. */
export const rootEnvelopeKeys = new Set(["apiVersion", "kind", "metadata"]);

/**
 * Names come from paths only (kind, then one PascalCase segment per key), so adding a field never renames a type
 * of another path. An array's items are named in the singular (volumes: Volume[], policies: Policy[]; see
 * singularSegment), and so is what lies below them (VolumeSource), unless a sibling key already has that name
 * (argo's source beside sources): then in the plural, as the key is, so the two never meet. Keys that are not identifiers keep their word breaks as "_" (max_size -> Max_Size, foo-bar ->
 * Foo_Bar), so they never take the name of their camelCase twin. The rare paths that still meet on one name are
 * told apart readably: identifier paths first, in document order, keep the plain name; the next one gets "_" before
 * its last segment (a.bC -> ABC, aB.c -> AB_C); only then a number.
 */
export function assignTypeNames(kind: string, root: SchemaNode, reserved: ReadonlySet<string> = new Set()): TypeNames {
  const candidates = collectCandidates(kind, root);

  // The root is the kind itself: every template refers to it by that name, even when it is a global's (Function).
  // Names of the generated list type, client, lister, informer and hooks are reserved first, so a root field called
  // "list" or "hooks" cannot take <Kind>List or <Kind>Hooks.
  const taken = new Set([
    kind,
    ...["List", "Client", "Verbs", "Lister", "Informer", "Context", "Hooks", "Controller"].map(
      (suffix) => kind + suffix,
    ),
  ]);
  const nameOf = new Map<SchemaNode, string>([[root, kind]]);
  const exported: string[] = [];
  const claim = (c: Candidate) => {
    const plain = c.prefix + c.segment;
    // An enum also exports <Name>Values, so both names must be free. Reserved names belong to other kinds of the same
    // group/version, whose types the version index exports next to these.
    const isFree = (n: string) => !taken.has(n) && !takenGlobally.has(n) && !reserved.has(n);
    const free = (n: string) => isFree(n) && (c.node.kind !== "enum" || isFree(`${n}Values`));
    let name = [plain, `${c.prefix}_${c.segment}`].find(free);
    for (let n = 2; name === undefined; n++) if (free(`${plain}_${n}`)) name = `${plain}_${n}`;
    taken.add(name);
    exported.push(name);
    if (c.node.kind === "enum") {
      taken.add(`${name}Values`);
      exported.push(`${name}Values`);
    }
    nameOf.set(c.node, name);
  };
  const nested = candidates.filter((c) => c.node !== root);
  // Lossless names are claimed before lossy ones, so adding a key like "_id" or "$ref" never renames the type of "id"
  // or "ref".
  nested.filter((c) => c.lossless).forEach(claim);
  nested.filter((c) => !c.lossless).forEach(claim);
  return { nameOf, declarationOrder: candidates.map((c) => c.node), exported };
}

/** Every node that gets a name, with the path it is named from, in declaration order (depth-first). */
function collectCandidates(kind: string, root: SchemaNode): Candidate[] {
  const candidates: Candidate[] = [];
  const visit = (
    node: SchemaNode,
    prefix: string,
    segment: string,
    lossless: boolean,
    forceNamed = false,
    itemSegment = segment,
  ): void => {
    const name = prefix + segment;
    // Items of items (a list of lists) keep the segment of the outer list's items.
    if (node.kind === "array") visit(node.items, prefix, itemSegment, lossless);
    else if (node.kind === "map") visit(node.values, name, "Value", lossless);
    else if (node.kind === "union") node.members.forEach((m, i) => visit(m, name, `Option${i + 1}`, lossless));
    else {
      if (node.kind === "object" || node.kind === "enum" || forceNamed)
        candidates.push({ node, prefix, segment, lossless });
      if (node.kind === "object") visitProperties(node, name, lossless);
    }
  };
  const visitProperties = (node: SchemaNode & { kind: "object" }, name: string, lossless: boolean): void => {
    const siblings = new Set(node.properties.map((p) => pascalSegment(p.name).text));
    for (const p of node.properties) {
      if (node === root && rootEnvelopeKeys.has(p.name)) continue;
      // An embedded resource's metadata is typed V1ObjectMeta, whatever its schema says.
      if (node.embeddedResource && p.name === "metadata") continue;
      const key = pascalSegment(p.name);
      const isRootPart = node === root && (p.name === "spec" || p.name === "status");
      const singular = singularSegment(key.text);
      visit(p.node, name, key.text, lossless && key.lossless, isRootPart, siblings.has(singular) ? key.text : singular);
    }
  };
  visit(root, "", kind, true, true);
  return candidates;
}

/**
 * One path segment of a type name. "fooBar" -> FooBar (lossless). Other keys break into words at every
 * non-alphanumeric run, joined by "_": "foo-bar" -> Foo_Bar, "s3_wal_path" -> S3_Wal_Path, "$ref" -> Ref (lossy).
 */
export function pascalSegment(key: string): { text: string; lossless: boolean } {
  const words = key.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const text = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("_") || "Field";
  return { text, lossless: /^[A-Za-z][A-Za-z0-9]*$/.test(key) };
}

/** Segments ending in s that are not plurals: left as they are. */
const notPlural = /(?:ss|us|is|Tls|Dns|Https|Kubernetes|Series|News)$/;

/** English singular rules, the first that matches applies; a plain trailing "s" (Volumes -> Volume) is the last. */
const singularRules: Array<[RegExp, string]> = [
  [/([^aeiou])ies$/, "$1y"], // Policies -> Policy
  [/([^aeiouAEIOU]us|ss|x|z|ch|sh|ias)es$/, "$1"], // Statuses -> Status, Addresses -> Address, Patches -> Patch
  [/([^s])s$/, "$1"], // Volumes -> Volume, IPs -> IP, Resources -> Resource
];

/**
 * The singular of a PascalCase segment that names a list: the name of one of its items (Conditions -> Condition,
 * Policies -> Policy, Addresses -> Address, Foo_Bars -> Foo_Bar). A fixed rule set rather than a dictionary, so a
 * type's name never changes with a library's word list; a word the rules do not know stays as it is (Data, Status,
 * Egress, TLS).
 */
export function singularSegment(segment: string): string {
  if (notPlural.test(segment)) return segment;
  const rule = singularRules.find(([plural]) => plural.test(segment));
  return rule ? segment.replace(rule[0], rule[1]) : segment;
}
