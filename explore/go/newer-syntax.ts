// Go syntax newer than the tree-sitter grammar: Go 1.26's `new(expr)` (new with an expression, `p := new(42)`), which
// the grammar parses only with a type inside. Such a call is told apart from a real syntax error by parsing again with
// it read as a parenthesised expression (`   (42)`, the same length, so every position stays put): the value it
// makes is a pointer to that expression's value, and the reader follows a parenthesised value the same way.
import type { Node, Parser, Tree } from "web-tree-sitter";

/** A `new(expr)` call the grammar cannot parse: its 1-based line and the call as written. */
export interface NewWithExpression {
  line: number;
  text: string;
}

export interface Reparsed {
  /** The tree to read: the original, or the one with every unsupported `new(expr)` read as `(expr)`. */
  tree: Tree;
  sites: NewWithExpression[];
}

/** A `new` that may be the builtin being called (not a field or method named new, not part of a longer name). */
const NEW_CALL = /(?<![\w.])new(?=\s*\()/g;

/**
 * For a tree with errors: the `new(` calls whose text holds a parse error and that parse once read as `(expr)`. The
 * caller deletes the original tree when another is returned.
 */
export function reparseNewWithExpression(parser: Parser, text: string, tree: Tree): Reparsed {
  const starts = [...text.matchAll(NEW_CALL)].map((m) => m.index);
  if (starts.length === 0) return { tree, sites: [] };
  // Every candidate renamed to an ordinary function (same length) shows where each call ends.
  const asCalls = parse(parser, rewrite(text, starts, "nev"));
  // Each call's range (start, end), read before the tree is freed.
  const calls = new Map<number, [number, number]>();
  for (const call of asCalls.rootNode.descendantsOfType("call_expression")) {
    const fn = call.childForFieldName("function");
    if (fn?.type === "identifier" && starts.includes(fn.startIndex))
      calls.set(fn.startIndex, [call.startIndex, call.endIndex]);
  }
  asCalls.delete();
  const overlaps = (errors: [number, number][], [start, end]: [number, number]) =>
    errors.some(([from, to]) => from < end && to > start);
  const errors = errorRanges(tree.rootNode);
  const broken = [...calls].filter(([, range]) => overlaps(errors, range));
  if (broken.length === 0) return { tree, sites: [] };
  const fixed = parse(
    parser,
    rewrite(
      text,
      broken.map(([start]) => start),
      "   ",
    ),
  );
  // Only calls that now parse are the grammar's gap; one still broken is an ordinary syntax error, reported as such.
  const stillBroken = errorRanges(fixed.rootNode);
  const sites = broken
    .filter(([, range]) => !overlaps(stillBroken, range))
    .map(([start, [, end]]) => ({ line: lineAt(text, start), text: text.slice(start, end) }));
  if (sites.length === 0) {
    fixed.delete();
    return { tree, sites: [] };
  }
  return { tree: fixed, sites };
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function parse(parser: Parser, text: string): Tree {
  const tree = parser.parse(text);
  if (!tree) throw new Error("the Go parser returned no tree");
  return tree;
}

/** `text` with the three characters at each start replaced (a same-length rewrite keeps every position). */
function rewrite(text: string, starts: number[], by: string): string {
  let out = "";
  let from = 0;
  for (const s of [...starts].sort((a, b) => a - b)) {
    out += text.slice(from, s) + by;
    from = s + 3;
  }
  return out + text.slice(from);
}

/** The byte ranges of ERROR and MISSING nodes (a MISSING node is empty: it counts as one character). */
function errorRanges(root: Node): [number, number][] {
  const out: [number, number][] = [];
  const visit = (n: Node) => {
    if (!n.hasError && !n.isMissing) return;
    if (n.isError || n.isMissing) out.push([n.startIndex, Math.max(n.endIndex, n.startIndex + 1)]);
    for (const c of n.children) visit(c);
  };
  visit(root);
  return out;
}
