// One Go file parsed with tree-sitter's Go grammar (web-tree-sitter, WebAssembly: no native build) and read into facts
// of its own: what read.ts joins, in file order, whether the files were read here or in worker threads.
import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";
import { type Facts, type TypeFact, emptyFacts } from "../facts.js";
import { isStackOverflow } from "../screen.js";
import { oneLine } from "../syntax.js";
import { GoFileReader } from "./declarations.js";
import { withoutGeneratedBodies } from "./generated.js";
import type { GoModule, GoSource } from "./modules.js";
import { reparseNewWithExpression } from "./newer-syntax.js";

const require = createRequire(import.meta.url);
let parserPromise: Promise<Parser> | undefined;

/** One parser per thread: loading the grammar costs more than parsing a file. */
export function goParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    await Parser.init();
    const language = await Language.load(require.resolve("tree-sitter-go/tree-sitter-go.wasm"));
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return parserPromise;
}

/**
 * A file read through (its facts, and its types and method names by type key, in the order it met them), or given up
 * with the warning that says why. Plain data: it crosses from a worker thread as it is.
 */
export type GoFileResult =
  { facts: Facts; types: [string, TypeFact][]; methods: [string, string[]][] } | { skipped: string };

export function readGoFile(parser: Parser, source: GoSource, modules: GoModule[]): GoFileResult {
  const text = withoutGeneratedBodies(source.text);
  const parsed = parser.parse(text);
  if (!parsed) throw new Error(`${source.file}: the Go parser returned no tree`);
  // Syntax newer than the grammar is named as such, and read as far as its meaning is known.
  const newer = parsed.rootNode.hasError ? reparseNewWithExpression(parser, text, parsed) : { tree: parsed, sites: [] };
  if (newer.tree !== parsed) parsed.delete();
  const tree = newer.tree;
  // A file's facts join the others only once it is read through: a file abandoned half-way leaves nothing behind.
  const facts = emptyFacts();
  const types = new Map<string, TypeFact>();
  const methods = new Map<string, string[]>();
  try {
    const [first, ...more] = newer.sites;
    if (first)
      facts.warnings.push(
        `${source.file}:${first.line}: parser does not support new(expression) (Go 1.26): \`${oneLine(first.text)}\`${more.length ? `, also at line ${more.map((s) => s.line).join(", ")}` : ""}; read as a pointer to that value`,
      );
    if (tree.rootNode.hasError) {
      const bad = tree.rootNode.descendantsOfType("ERROR")[0];
      facts.warnings.push(
        `${source.file}:${(bad?.startPosition.row ?? 0) + 1}: Go syntax error; the rest of the file was read as far as the parser could`,
      );
    }
    new GoFileReader(source.file, modules, facts, types, methods).read(tree.rootNode);
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
    return { skipped: `${source.file}: too deeply nested to read (the call stack ran out); skipped` };
  } finally {
    tree.delete();
  }
  return { facts, types: [...types], methods: [...methods] };
}
