// Reads Go sources with tree-sitter's Go grammar (web-tree-sitter, WebAssembly: no native build) into the neutral
// facts.
// Packages are folders; import paths map to folders through the go.mod files found under the explored root.
// The file reader is one class in layers, a file each: reader-base → informers → controller-runtime → calls →
// expressions → statements → declarations (GoFileReader); a layer calls later ones through the base's abstract
// expr/visit.
import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";
import { type Facts, type TypeFact, emptyFacts, mergeFacts } from "../facts.js";
import { isStackOverflow } from "../screen.js";
import { oneLine } from "../syntax.js";
import { GoFileReader } from "./declarations.js";
import { kindOfInformerType } from "./informers.js";
import type { GoModule, GoSource } from "./modules.js";
import { reparseNewWithExpression } from "./newer-syntax.js";

const require = createRequire(import.meta.url);
let parserPromise: Promise<Parser> | undefined;

/** One parser for the process: loading the grammar costs more than parsing a file. */
function goParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    await Parser.init();
    const language = await Language.load(require.resolve("tree-sitter-go/tree-sitter-go.wasm"));
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return parserPromise;
}

/** Parses every Go file and returns their facts; types are completed with methods from every file of their package. */
export async function readGo(sources: GoSource[], modules: GoModule[]): Promise<Facts> {
  const parser = await goParser();
  const facts = emptyFacts();
  const types = new Map<string, TypeFact>();
  const methods = new Map<string, string[]>();
  for (const source of sources) {
    const parsed = parser.parse(source.text);
    if (!parsed) throw new Error(`${source.file}: the Go parser returned no tree`);
    // Syntax newer than the grammar is named as such, and read as far as its meaning is known.
    const newer = parsed.rootNode.hasError
      ? reparseNewWithExpression(parser, source.text, parsed)
      : { tree: parsed, sites: [] };
    if (newer.tree !== parsed) parsed.delete();
    const tree = newer.tree;
    // A file's facts join the others only once it is read through: a file abandoned half-way leaves nothing behind.
    const fileFacts = emptyFacts();
    const fileTypes = new Map<string, TypeFact>();
    const fileMethods = new Map<string, string[]>();
    try {
      const [first, ...more] = newer.sites;
      if (first)
        fileFacts.warnings.push(
          `${source.file}:${first.line}: parser does not support new(expression) (Go 1.26): \`${oneLine(first.text)}\`${more.length ? `, also at line ${more.map((s) => s.line).join(", ")}` : ""}; read as a pointer to that value`,
        );
      if (tree.rootNode.hasError) {
        const bad = tree.rootNode.descendantsOfType("ERROR")[0];
        fileFacts.warnings.push(
          `${source.file}:${(bad?.startPosition.row ?? 0) + 1}: Go syntax error; the rest of the file was read as far as the parser could`,
        );
      }
      new GoFileReader(source.file, modules, fileFacts, fileTypes, fileMethods).read(tree.rootNode);
    } catch (error) {
      if (!isStackOverflow(error)) throw error;
      facts.warnings.push(`${source.file}: too deeply nested to read (the call stack ran out); skipped`);
      continue;
    } finally {
      tree.delete();
    }
    mergeFacts(facts, fileFacts);
    for (const [key, type] of fileTypes) types.set(key, type);
    for (const [key, names] of fileMethods) methods.set(key, [...(methods.get(key) ?? []), ...names]);
  }
  for (const [key, type] of types) {
    type.methods = methods.get(key) ?? [];
    facts.types.push(type);
  }
  kindsFromFieldTypes(facts, types);
  return facts;
}

/**
 * `c.pInformer.Informer()`: the kind is the one the field's declared type names (PodInformer), from whichever file
 * declares the struct; when the struct is not known, every struct with that field must agree. A field's name is never
 * trusted over its type (pInformer, dsInformer).
 */
function kindsFromFieldTypes(facts: Facts, types: Map<string, TypeFact>): void {
  for (const call of facts.calls) {
    const field = call.informer?.field;
    if (!field) continue;
    const holders = field.type ? [types.get(field.type)] : [...types.values()];
    const declared = new Set(
      holders.map((t) => t?.fieldTypes?.[field.name]).filter((name): name is string => name !== undefined),
    );
    const kinds = new Set([...declared].map(kindOfInformerType));
    const [kind] = kinds;
    if (kinds.size === 1 && kind) call.informer!.kind = kind;
  }
}
