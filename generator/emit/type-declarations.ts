// Emits the TypeScript declarations of one resource version's schema from the normalised model.
import type { CrdModel, VersionModel } from "../model/resource-model.js";
import type { Property, SchemaNode } from "../model/schema-node.js";
import { pairSubtrees, structuralIds } from "../model/structural-ids.js";
import { assignTypeNames, rootEnvelopeKeys } from "../model/type-names.js";
import { constraintTags, defaultTags, jsdoc, nestedTags } from "./jsdoc.js";
import { camelCase, globalName } from "./names.js";
import { tsLiteral, tsString } from "../ts-literal.js";

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const simpleType = /^[A-Za-z_$][A-Za-z0-9_$<>, ]*$/;

export interface TypeDeclarations {
  /** Exported declarations (nested types and enum value arrays), root last. */
  text: string;
  /** Every name the types module exports (the kind, its list, the resource const, nested types and enum value arrays). */
  exported: string[];
  /** The import lists of the types module, with aliases for names its own declarations take. */
  k8sImports: string;
  runtimeImports: string;
  /** How the module refers to V1ListMeta (aliased when the kind itself is called V1ListMeta). */
  listMeta: string;
  /** The name given to the root's spec and status, if the schema has them. */
  specType?: string;
  statusType?: string;
  /** Whether the text uses IntOrString (so the file imports it). */
  usesIntOrString: boolean;
  usesObjectMeta: boolean;
}

export interface TypeDeclarationOptions {
  /** Names other kinds of the same group/version export: nested types here must not take them (see plan-files). */
  reserved?: ReadonlySet<string>;
}

export function emitTypeDeclarations(
  crd: CrdModel,
  version: VersionModel,
  options: TypeDeclarationOptions = {},
): TypeDeclarations {
  const root = version.schema;
  const { nameOf, declarationOrder, exported: nestedExports } = assignTypeNames(crd.kind, root, options.reserved);
  // Set from the declaring closures below; a record keeps flow analysis from pinning them to their initial `false`.
  const uses = { intOrString: false, objectMeta: false };
  const exported = [crd.kind, `${crd.kind}List`, `${camelCase(crd.kind)}Resource`, ...nestedExports];
  // Imported names are aliased when a declaration of this module has the same name (a kind called IntOrString).
  const declared = new Set(exported);
  const objectMeta = freeName("V1ObjectMeta", declared);
  const listMeta = freeName("V1ListMeta", declared);
  const intOrString = freeName("IntOrString", declared);
  // The kind itself may be called Array or Record (nested types never are: type-names.ts keeps globals' names free).
  const arrayType = globalName("Array", declared);
  const recordType = globalName("Record", declared);

  const typeExpr = (node: SchemaNode): string => {
    const base = bareTypeExpr(node);
    // unknown already holds null, and so does an enum that lists it.
    const holdsNull = base === "unknown" || (node.kind === "enum" && node.values.includes(null));
    return node.nullable && !holdsNull ? `${base} | null` : base;
  };
  const bareTypeExpr = (node: SchemaNode): string => {
    const named = nameOf.get(node);
    if (named) return named;
    switch (node.kind) {
      case "string":
        return "string";
      case "integer":
      case "number":
        return "number";
      case "boolean":
        return "boolean";
      case "intOrString":
        uses.intOrString = true;
        return intOrString;
      case "enum":
        return literalUnion(node.values);
      case "array": {
        const item = typeExpr(node.items);
        return simpleType.test(item) ? `${item}[]` : `${arrayType}<${item}>`;
      }
      case "map":
        return `${recordType}<string, ${typeExpr(node.values)}>`;
      case "unknownRecord":
        return `${recordType}<string, unknown>`;
      case "emptyObject":
        return `${recordType}<string, never>`;
      case "unknown":
        return "unknown";
      case "union":
        return node.members.map(typeExpr).join(" | ");
      case "object":
        throw new Error(`internal: an object of ${crd.kind} ${version.name} has no type name`);
    }
  };

  const envelope = `  apiVersion: ${tsString(`${crd.group}/${version.name}`)};\n  kind: ${tsString(crd.kind)};\n  metadata: ${objectMeta};\n`;

  /**
   * The constraints of a node, then those of its array items or map values that have no declaration of their own.
   * A named node's are written once: its rules on its declaration, its @default on the property that holds it.
   */
  const tagsOf = (node: SchemaNode, rulesOnly = false): string[] => [
    ...constraintTags(node.constraints, rulesOnly),
    ...elementTags(node),
  ];
  const elementTags = (node: SchemaNode): string[] => {
    if (node.kind === "array" && !nameOf.has(node.items)) return nestedTags("item", tagsOf(node.items));
    if (node.kind === "map" && !nameOf.has(node.values)) return nestedTags("value", tagsOf(node.values));
    return [];
  };

  // Named nodes a property holds directly: their @default is written on the property (items' stays on their type).
  const heldByProperty = new Set(
    declarationOrder.flatMap((n) => (n.kind === "object" ? n.properties.map((p) => p.node) : [])),
  );
  const propertyLine = (p: Property, indent: string): string => {
    const key = identifier.test(p.name) ? p.name : tsString(p.name);
    const tags = nameOf.has(p.node) ? defaultTags(p.node.constraints) : tagsOf(p.node);
    return `${jsdoc(indent, p.node.description, tags)}${indent}${key}${p.required ? "" : "?"}: ${typeExpr(p.node)};\n`;
  };

  const declare = (node: SchemaNode): string => {
    const name = nameOf.get(node)!;
    const isRoot = node === root;
    const doc = jsdoc("", node.description, [
      ...(isRoot ? deprecationTags(crd, version) : []),
      ...tagsOf(node, heldByProperty.has(node)),
    ]);
    if (node.kind === "enum") {
      const values = `export const ${name}Values = [${node.values.map(tsLiteral).join(", ")}] as const;\n`;
      if (node.values.every(isPrimitive)) return `${doc}export type ${name} = ${literalUnion(node.values)};\n${values}`;
      return `${values}${doc}export type ${name} = (typeof ${name}Values)[number];\n`;
    }
    if (isRoot && node.kind !== "object") {
      // A root without properties still has the Kubernetes envelope; with preserve-unknown-fields it keeps every other
      // key too, while a bare `type: object` root keeps nothing else (the API server prunes it).
      uses.objectMeta = true;
      return `${doc}export interface ${name} {\n${envelope}${node.kind === "emptyObject" ? "" : "  [key: string]: unknown;\n"}}\n`;
    }
    if (node.kind !== "object") return `${doc}export type ${name} = ${aliasTarget(node)};\n`;
    let body = "";
    if (isRoot) {
      uses.objectMeta = true;
      body += envelope;
    } else if (node.embeddedResource) {
      uses.objectMeta = true;
      // The API server rejects an embedded resource without apiVersion or kind (metadata may be left out).
      const declared = new Set(node.properties.map((p) => p.name));
      if (!declared.has("apiVersion")) body += "  apiVersion: string;\n";
      if (!declared.has("kind")) body += "  kind: string;\n";
      if (!declared.has("metadata")) body += `  metadata?: ${objectMeta};\n`;
    }
    for (const p of node.properties) {
      if (isRoot && rootEnvelopeKeys.has(p.name)) continue;
      if (node.embeddedResource && p.name === "metadata") {
        body += `${jsdoc("  ", p.node.description)}  metadata${p.required ? "" : "?"}: ${objectMeta};\n`;
        continue;
      }
      body += propertyLine(
        node.embeddedResource && (p.name === "apiVersion" || p.name === "kind") ? { ...p, required: true } : p,
        "  ",
      );
    }
    // Structural schemas prune unknown keys, so objects stay closed unless the schema preserves them.
    if (node.openIndexSignature) body += "  [key: string]: unknown;\n";
    return `${doc}export interface ${name} {\n${body}}\n`;
  };

  /** The right-hand side of `type X = ...` for a named non-object node (the root's spec or status). */
  const aliasTarget = (node: SchemaNode): string => {
    const saved = nameOf.get(node);
    nameOf.delete(node);
    const text = typeExpr(node);
    if (saved) nameOf.set(node, saved);
    return text;
  };

  // A named object whose body was already declared under another path (structural memoisation) becomes an alias of
  // it, and so does every named node below it: each path keeps its name, the shape is written out once.
  const aliases = aliasesOfRepeatedSubtrees(root, declarationOrder, nameOf);
  const declareAlias = (node: SchemaNode, original: SchemaNode, topmost: boolean): string => {
    const name = nameOf.get(node)!;
    const target = nameOf.get(original)!;
    const doc = topmost ? jsdoc("", node.description, tagsOf(node, heldByProperty.has(node))) : "";
    if (node.kind === "enum")
      return `export type ${name} = ${target};\nexport const ${name}Values = ${target}Values;\n`;
    return `${doc}export type ${name} = ${target};\n`;
  };
  const parts: string[] = [];
  for (const node of declarationOrder) {
    if (node === root) continue;
    const repeated = aliases.get(node);
    if (!repeated) parts.push(declare(node));
    else if (repeated.topmost)
      parts.push(repeated.pairs.map(([copy, original], i) => declareAlias(copy, original, i === 0)).join(""));
  }
  const rootText = declare(root);
  const spec = root.kind === "object" ? root.properties.find((p) => p.name === "spec") : undefined;
  const status = root.kind === "object" ? root.properties.find((p) => p.name === "status") : undefined;
  const importSpec = (name: string, local: string) => (name === local ? name : `${name} as ${local}`);
  return {
    text: [rootText, ...parts].join("\n"),
    exported,
    k8sImports: [
      importSpec("V1ListMeta", listMeta),
      ...(uses.objectMeta ? [importSpec("V1ObjectMeta", objectMeta)] : []),
    ].join(", "),
    runtimeImports: uses.intOrString ? importSpec("IntOrString", intOrString) : "",
    listMeta,
    specType: spec ? nameOf.get(spec.node) : undefined,
    statusType: status ? nameOf.get(status.node) : undefined,
    usesIntOrString: uses.intOrString,
    usesObjectMeta: uses.objectMeta,
  };
}

interface RepeatedSubtree {
  /** Whether this node heads the repeated subtree (its declaration carries the aliases of the whole subtree). */
  topmost: boolean;
  /** The named nodes of the subtree (topmost first) with their counterparts in the first occurrence. */
  pairs: Array<[SchemaNode, SchemaNode]>;
}

/** Every named node inside a later occurrence of an already declared object body, with what it is an alias of. */
function aliasesOfRepeatedSubtrees(
  root: SchemaNode,
  declarationOrder: SchemaNode[],
  nameOf: ReadonlyMap<SchemaNode, string>,
): Map<SchemaNode, RepeatedSubtree> {
  const ids = structuralIds(root);
  const firstWithBody = new Map<number, SchemaNode>();
  const aliases = new Map<SchemaNode, RepeatedSubtree>();
  // Declaration order is depth-first, so a first occurrence and all of its subtree come before any copy of it.
  for (const node of declarationOrder) {
    if (node === root || node.kind !== "object" || aliases.has(node)) continue;
    const id = ids.bodyOf(node);
    const original = firstWithBody.get(id);
    if (original === undefined) {
      firstWithBody.set(id, node);
      continue;
    }
    const pairs: Array<[SchemaNode, SchemaNode]> = [];
    pairSubtrees(node, original, (copy, first) => {
      if (nameOf.has(copy)) pairs.push([copy, first]);
    });
    for (const [copy] of pairs) aliases.set(copy, { topmost: copy === node, pairs });
  }
  return aliases;
}

/** base, or base with "_" appended until no name in taken has it (generated type names never end in "_"). */
export function freeName(base: string, taken: ReadonlySet<string>): string {
  let name = base;
  while (taken.has(name)) name += "_";
  return name;
}

const isPrimitive = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

function literalUnion(values: unknown[]): string {
  if (values.length === 0) return "never";
  return [...new Set(values.map(tsLiteral))].join(" | ");
}

export function deprecationTags(crd: CrdModel, version: VersionModel): string[] {
  if (!version.deprecated) return [];
  return [`@deprecated ${version.deprecationWarning ?? `${crd.group}/${version.name} ${crd.kind} is deprecated`}`];
}
