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
/** The formatter's width (prettier's printWidth in this repository): a longer declaration is broken as it breaks it. */
const lineWidth = 120;

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
  /** How the module refers to the runtime's ResourceDescriptor (aliased likewise). */
  resourceDescriptor: string;
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

/** What declaring one version's types needs at every node: its names, and the names the module imports. */
interface Context {
  crd: CrdModel;
  version: VersionModel;
  root: SchemaNode;
  nameOf: ReadonlyMap<SchemaNode, string>;
  /** Named nodes a property holds directly: their @default is written on the property (items' stays on their type). */
  heldByProperty: ReadonlySet<SchemaNode>;
  /** How the module names what it imports or uses globally (aliased when one of its declarations takes the name). */
  names: { objectMeta: string; intOrString: string; array: string; record: string };
  /** Set while declaring, so the module imports only what its text uses. */
  uses: { intOrString: boolean; objectMeta: boolean };
}

export function emitTypeDeclarations(
  crd: CrdModel,
  version: VersionModel,
  options: TypeDeclarationOptions = {},
): TypeDeclarations {
  const root = version.schema;
  const { nameOf, declarationOrder, exported: nestedExports } = assignTypeNames(crd.typeName, root, options.reserved);
  const exported = [crd.typeName, `${crd.typeName}List`, `${camelCase(crd.typeName)}Resource`, ...nestedExports];
  // Imported names are aliased when a declaration of this module has the same name (a kind called IntOrString).
  const declared = new Set(exported);
  const listMeta = freeName("V1ListMeta", declared);
  const resourceDescriptor = freeName("ResourceDescriptor", declared);
  const ctx: Context = {
    crd,
    version,
    root,
    nameOf,
    heldByProperty: new Set(
      declarationOrder.flatMap((n) => (n.kind === "object" ? n.properties.map((p) => p.node) : [])),
    ),
    names: {
      objectMeta: freeName("V1ObjectMeta", declared),
      intOrString: freeName("IntOrString", declared),
      // The kind itself may be called Array or Record (nested types never are: type-names.ts keeps globals' names free).
      array: globalName("Array", declared),
      record: globalName("Record", declared),
    },
    uses: { intOrString: false, objectMeta: false },
  };

  const parts = declareNested(ctx, declarationOrder);
  const rootText = declareNode(ctx, root);
  const spec = root.kind === "object" ? root.properties.find((p) => p.name === "spec") : undefined;
  const status = root.kind === "object" ? root.properties.find((p) => p.name === "status") : undefined;
  const importSpec = (name: string, local: string) => (name === local ? name : `${name} as ${local}`);
  return {
    text: [rootText, ...parts].join("\n"),
    exported,
    k8sImports: [
      importSpec("V1ListMeta", listMeta),
      ...(ctx.uses.objectMeta ? [importSpec("V1ObjectMeta", ctx.names.objectMeta)] : []),
    ].join(", "),
    // ResourceDescriptor types the kind's descriptor (a kind of that name gets it aliased).
    runtimeImports: [
      ...(ctx.uses.intOrString ? [importSpec("IntOrString", ctx.names.intOrString)] : []),
      importSpec("ResourceDescriptor", resourceDescriptor),
    ].join(", "),
    listMeta,
    resourceDescriptor,
    specType: spec ? nameOf.get(spec.node) : undefined,
    statusType: status ? nameOf.get(status.node) : undefined,
    usesIntOrString: ctx.uses.intOrString,
    usesObjectMeta: ctx.uses.objectMeta,
  };
}

/**
 * The declarations of every named node but the root, in declaration order. A named object whose body was already
 * declared under another path (structural memoisation) becomes an alias of it, and so does every named node below
 * it: each path keeps its name, the shape is written out once.
 */
function declareNested(ctx: Context, declarationOrder: SchemaNode[]): string[] {
  const aliases = aliasesOfRepeatedSubtrees(ctx.root, declarationOrder, ctx.nameOf);
  const parts: string[] = [];
  for (const node of declarationOrder) {
    if (node === ctx.root) continue;
    const repeated = aliases.get(node);
    if (!repeated) parts.push(declareNode(ctx, node));
    else if (repeated.topmost)
      parts.push(repeated.pairs.map(([copy, original], i) => declareAlias(ctx, copy, original, i === 0)).join(""));
  }
  return parts;
}

/** The TypeScript type of a node: its name when it has one, else its shape; `| null` when nullable. */
function typeExpression(ctx: Context, node: SchemaNode, ownName = true): string {
  const base = shapeExpression(ctx, node, ownName);
  // unknown already holds null, and so does an enum that lists it.
  const holdsNull = base === "unknown" || (node.kind === "enum" && node.values.includes(null));
  return node.nullable && !holdsNull ? `${base} | null` : base;
}

/** Kinds whose TypeScript type is a keyword. */
const keywordTypes: Partial<Record<SchemaNode["kind"], string>> = {
  string: "string",
  integer: "number",
  number: "number",
  boolean: "boolean",
  unknown: "unknown",
};

function shapeExpression(ctx: Context, node: SchemaNode, ownName: boolean): string {
  const named = ownName ? ctx.nameOf.get(node) : undefined;
  if (named) return named;
  const keyword = keywordTypes[node.kind];
  if (keyword) return keyword;
  switch (node.kind) {
    case "intOrString":
      ctx.uses.intOrString = true;
      return ctx.names.intOrString;
    case "enum":
      return literalUnion(node.values);
    case "array": {
      const item = typeExpression(ctx, node.items);
      return simpleType.test(item) ? `${item}[]` : `${ctx.names.array}<${item}>`;
    }
    case "map":
      return `${ctx.names.record}<string, ${typeExpression(ctx, node.values)}>`;
    case "unknownRecord":
      return `${ctx.names.record}<string, unknown>`;
    case "emptyObject":
      return `${ctx.names.record}<string, never>`;
    case "union":
      return node.members.map((m) => typeExpression(ctx, m)).join(" | ");
    default:
      throw new Error(`internal: ${node.kind} node of ${ctx.crd.kind} ${ctx.version.name} has no type`);
  }
}

/**
 * The constraints of a node, then those of its array items or map values that have no declaration of their own.
 * A named node's are written once: its rules on its declaration, its @default on the property that holds it.
 */
function tagsOf(ctx: Context, node: SchemaNode, rulesOnly = false): string[] {
  return [...constraintTags(node.constraints, rulesOnly), ...elementTags(ctx, node)];
}

function elementTags(ctx: Context, node: SchemaNode): string[] {
  if (node.kind === "array" && !ctx.nameOf.has(node.items)) return nestedTags("item", tagsOf(ctx, node.items));
  if (node.kind === "map" && !ctx.nameOf.has(node.values)) return nestedTags("value", tagsOf(ctx, node.values));
  return [];
}

/** The JSDoc of a named node's declaration: its description and rules (and on the root, its deprecation). */
function declarationDoc(ctx: Context, node: SchemaNode): string {
  const deprecation = node === ctx.root ? deprecationTags(ctx.crd, ctx.version) : [];
  return jsdoc("", node.description, [...deprecation, ...tagsOf(ctx, node, ctx.heldByProperty.has(node))]);
}

function propertyLine(ctx: Context, p: Property): string {
  const key = identifier.test(p.name) ? p.name : tsString(p.name);
  const tags = ctx.nameOf.has(p.node) ? defaultTags(p.node.constraints) : tagsOf(ctx, p.node);
  return `${jsdoc("  ", p.node.description, tags)}  ${key}${p.required ? "" : "?"}: ${typeExpression(ctx, p.node)};\n`;
}

function declareNode(ctx: Context, node: SchemaNode): string {
  const name = ctx.nameOf.get(node)!;
  const doc = declarationDoc(ctx, node);
  if (node.kind === "enum") {
    const values = valuesConst(name, node.values.map(tsLiteral));
    if (node.values.every(isPrimitive)) return `${doc}${typeAlias(name, literalMembers(node.values))}${values}`;
    return `${values}${doc}${typeAlias(name, [`(typeof ${name}Values)[number]`])}`;
  }
  if (node === ctx.root && node.kind !== "object") {
    // A root without properties still has the Kubernetes envelope; with preserve-unknown-fields it keeps every other
    // key too, while a bare `type: object` root keeps nothing else (the API server prunes it).
    const rest = node.kind === "emptyObject" ? "" : "  [key: string]: unknown;\n";
    return `${doc}export interface ${name} {\n${envelope(ctx)}${rest}}\n`;
  }
  // A named non-object node (the root's spec or status): an alias of its shape.
  if (node.kind !== "object") return `${doc}${typeAlias(name, [typeExpression(ctx, node, false)])}`;
  return `${doc}export interface ${name} {\n${interfaceBody(ctx, node)}}\n`;
}

/** apiVersion, kind and metadata of the root: the kind's own, whatever the schema says. */
function envelope(ctx: Context): string {
  ctx.uses.objectMeta = true;
  const apiVersion = tsString(`${ctx.crd.group}/${ctx.version.name}`);
  return `  apiVersion: ${apiVersion};\n  kind: ${tsString(ctx.crd.kind)};\n  metadata: ${ctx.names.objectMeta};\n`;
}

function interfaceBody(ctx: Context, node: SchemaNode & { kind: "object" }): string {
  const isRoot = node === ctx.root;
  let body = isRoot ? envelope(ctx) : node.embeddedResource ? embeddedEnvelope(ctx, node) : "";
  for (const p of node.properties) {
    if (isRoot && rootEnvelopeKeys.has(p.name)) continue;
    if (node.embeddedResource && p.name === "metadata") {
      body += `${jsdoc("  ", p.node.description)}  metadata${p.required ? "" : "?"}: ${ctx.names.objectMeta};\n`;
      continue;
    }
    // The API server rejects an embedded resource without apiVersion or kind.
    const required = p.required || (node.embeddedResource && (p.name === "apiVersion" || p.name === "kind"));
    body += propertyLine(ctx, { ...p, required });
  }
  // Structural schemas prune unknown keys, so objects stay closed unless the schema preserves them.
  if (node.openIndexSignature) body += "  [key: string]: unknown;\n";
  return body;
}

/** The envelope keys an embedded resource's schema leaves out: apiVersion and kind (required), metadata. */
function embeddedEnvelope(ctx: Context, node: SchemaNode & { kind: "object" }): string {
  ctx.uses.objectMeta = true;
  const declared = new Set(node.properties.map((p) => p.name));
  let body = "";
  if (!declared.has("apiVersion")) body += "  apiVersion: string;\n";
  if (!declared.has("kind")) body += "  kind: string;\n";
  if (!declared.has("metadata")) body += `  metadata?: ${ctx.names.objectMeta};\n`;
  return body;
}

/** A named node inside a repeated subtree: an alias of its counterpart in the first occurrence. */
function declareAlias(ctx: Context, node: SchemaNode, original: SchemaNode, topmost: boolean): string {
  const name = ctx.nameOf.get(node)!;
  const target = ctx.nameOf.get(original)!;
  if (node.kind === "enum") return `${typeAlias(name, [target])}${constAlias(`${name}Values`, `${target}Values`)}`;
  const doc = topmost ? jsdoc("", node.description, tagsOf(ctx, node, ctx.heldByProperty.has(node))) : "";
  return `${doc}${typeAlias(name, [target])}`;
}

/**
 * `export type Name = A | B;` on one line when it fits, else broken as prettier breaks it: after the `=`, and a
 * union one member a line.
 */
function typeAlias(name: string, members: string[]): string {
  const line = `export type ${name} = ${members.join(" | ")};\n`;
  if (line.length <= lineWidth + 1) return line;
  if (members.length === 1) return `export type ${name} =\n  ${members[0]};\n`;
  return `export type ${name} =\n${members.map((m) => `  | ${m}`).join("\n")};\n`;
}

/** `export const NameValues = [...] as const;`, one value a line when it does not fit on one. */
function valuesConst(name: string, literals: string[]): string {
  const line = `export const ${name}Values = [${literals.join(", ")}] as const;\n`;
  if (line.length <= lineWidth + 1) return line;
  return `export const ${name}Values = [\n${literals.map((l) => `  ${l},\n`).join("")}] as const;\n`;
}

function constAlias(name: string, target: string): string {
  const line = `export const ${name} = ${target};\n`;
  return line.length <= lineWidth + 1 ? line : `export const ${name} =\n  ${target};\n`;
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

/** The distinct literals of an enum's values ("never" for none), each a member of a union. */
function literalMembers(values: unknown[]): string[] {
  if (values.length === 0) return ["never"];
  return [...new Set(values.map(tsLiteral))];
}

function literalUnion(values: unknown[]): string {
  return literalMembers(values).join(" | ");
}

export function deprecationTags(crd: CrdModel, version: VersionModel): string[] {
  if (!version.deprecated) return [];
  return [`@deprecated ${version.deprecationWarning ?? `${crd.group}/${version.name} ${crd.kind} is deprecated`}`];
}
