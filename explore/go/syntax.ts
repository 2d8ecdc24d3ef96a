// Helpers over tree-sitter's Go syntax tree: which nodes are expressions, a node's key, keyed arguments, tail calls.
import type { Node } from "web-tree-sitter";
import { isTail, keyedIn, oneLine } from "../syntax.js";

/** A node's identity across walks (tree-sitter hands out new Node objects for the same node). */
export const nodeKey = (n: Node) => `${n.startIndex}:${n.endIndex}`;

const EXPRESSIONS = new Set([
  "identifier",
  "selector_expression",
  "call_expression",
  "func_literal",
  "composite_literal",
  "unary_expression",
  "binary_expression",
  "parenthesized_expression",
  "type_assertion_expression",
  "type_conversion_expression",
  "index_expression",
  "slice_expression",
  "interpreted_string_literal",
  "raw_string_literal",
  "int_literal",
  "float_literal",
  "true",
  "false",
  "nil",
  "iota",
  "rune_literal",
  "imaginary_literal",
  "generic_type",
]);

export function isExpression(type: string): boolean {
  return EXPRESSIONS.has(type);
}

/** The keyed elements among a call's arguments (`Name: "x"` in a composite literal), their values on one line. */
export function goKeyedIn(args: Node[]): Record<string, string> {
  return keyedIn(args, (a) =>
    (a.type === "keyed_element" ? [a] : a.descendantsOfType("keyed_element")).map((el) => {
      const [k, v] = el.namedChildren;
      const key = (k?.namedChildren[0] ?? k)?.text;
      const value = (v?.namedChildren[0] ?? v)?.text;
      return [key || undefined, () => (value === undefined ? undefined : oneLine(value))] as const;
    }),
  );
}

const TAIL = {
  parent: (n: Node) => n.parent ?? undefined,
  passesThrough: (n: Node) => n.type === "expression_list",
  endsAt: (n: Node) => ["expression_statement", "return_statement", "go_statement", "defer_statement"].includes(n.type),
};

/** The call is a statement of its own, returned, or run by go or defer. */
export function goIsTail(call: Node): boolean {
  return isTail(call, TAIL);
}

const BRANCHES = new Set(["expression_case", "default_case", "type_case", "communication_case"]);

/**
 * The call runs on one branch only: in an `if`'s body or else, or in a `case` (`if err := sync(key); err != nil` runs on
 * every path). The walk stops at the enclosing function. `known` keeps the answer for each node the walk passes, by
 * tree-sitter's node id (unique within one tree): the calls of a block share their ancestors, and each step up costs
 * tree-sitter a walk down from the root.
 */
export function goIsConditional(call: Node, known = new Map<number, boolean>()): boolean {
  const passed: number[] = [];
  let answer: boolean | undefined;
  for (let n: Node = call; answer === undefined;) {
    answer = known.get(n.id);
    if (answer !== undefined) break;
    passed.push(n.id);
    const p = n.parent;
    if (!p || p.type === "func_literal" || p.type === "function_declaration" || p.type === "method_declaration")
      answer = false;
    else if (BRANCHES.has(p.type)) answer = true;
    else if (p.type === "if_statement") {
      const head = [p.childForFieldName("initializer"), p.childForFieldName("condition")];
      if (!head.some((h) => h?.equals(n))) answer = true;
    }
    n = p!;
  }
  for (const id of passed) known.set(id, answer);
  return answer;
}
