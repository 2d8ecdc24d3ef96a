// Helpers over ts-morph's syntax tree: loops, names a declaration binds, identifiers, keyed arguments, tail calls.
import { Node, SyntaxKind, ts } from "ts-morph";
import { isTail, keyedIn, oneLine } from "../syntax.js";

export const LOOPS = new Set([
  SyntaxKind.ForStatement,
  SyntaxKind.ForOfStatement,
  SyntaxKind.ForInStatement,
  SyntaxKind.WhileStatement,
  SyntaxKind.DoStatement,
]);

/** The names a declaration binds: `x`, or every name of a destructuring pattern (`{ item: key }` binds key). */
export function boundNames(nameNode: Node): string[] {
  if (Node.isIdentifier(nameNode)) return [nameNode.getText()];
  if (Node.isObjectBindingPattern(nameNode) || Node.isArrayBindingPattern(nameNode)) {
    return nameNode.getElements().flatMap((el) => (Node.isBindingElement(el) ? boundNames(el.getNameNode()) : []));
  }
  return [];
}

/** The properties among a call's arguments (`{ name: "x" }`): a string as JSON, anything else on one line. */
export function tsKeyedIn(args: Node[]): Record<string, string> {
  return keyedIn(args, (a) =>
    (Node.isPropertyAssignment(a) ? [a] : a.getDescendantsOfKind(SyntaxKind.PropertyAssignment)).map((p) => {
      const value = () => {
        const init = p.getInitializer();
        if (!init) return undefined;
        return Node.isStringLiteral(init) ? JSON.stringify(init.getLiteralText()) : oneLine(init.getText());
      };
      return [p.getName(), value] as const;
    }),
  );
}

export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const TAIL = {
  parent: (n: Node) => n.getParent(),
  passesThrough: (n: Node) =>
    Node.isAwaitExpression(n) ||
    Node.isParenthesizedExpression(n) ||
    Node.isAsExpression(n) ||
    Node.isNonNullExpression(n),
  endsAt: (n: Node) => Node.isReturnStatement(n) || Node.isExpressionStatement(n) || Node.isArrowFunction(n),
};

/** The call's value is returned, awaited as a statement, or is the statement itself. */
export function tsIsTail(call: Node): boolean {
  return isTail(call, TAIL);
}

/**
 * The identifiers in an expression, in the order ts-morph's getDescendantsOfKind gives them. Walked on the compiler's
 * nodes: wrapping every descendant in a ts-morph node and listing its tokens cost more than the rest of the reader.
 */
export function identsIn(node: Node): string[] {
  if (Node.isIdentifier(node)) return [node.getText()];
  const sf = node.getSourceFile().compilerNode;
  const names: string[] = [];
  const visit = (n: ts.Node): void => {
    if (n.kind === SyntaxKind.Identifier) names.push(n.getText(sf));
    // getChildren lists a node's JSDoc first (`@param name`, `{@link Type}` hold identifiers); forEachChild skips it.
    for (const doc of (n as { jsDoc?: ts.Node[] }).jsDoc ?? []) visit(doc);
    n.forEachChild(visit);
  };
  for (const doc of (node.compilerNode as { jsDoc?: ts.Node[] }).jsDoc ?? []) visit(doc);
  node.compilerNode.forEachChild(visit);
  return names;
}

/** The call's result is tested: the condition of an if, a loop or a ternary, through `!`, `&&`, `||` and `await`. */
export function tsIsCondition(call: Node): boolean {
  let node = call;
  for (let parent = node.getParent(); parent; node = parent, parent = parent.getParent()) {
    if (
      Node.isAwaitExpression(parent) ||
      Node.isParenthesizedExpression(parent) ||
      Node.isNonNullExpression(parent) ||
      (Node.isPrefixUnaryExpression(parent) && parent.getOperatorToken() === SyntaxKind.ExclamationToken) ||
      (Node.isBinaryExpression(parent) &&
        [SyntaxKind.AmpersandAmpersandToken, SyntaxKind.BarBarToken].includes(parent.getOperatorToken().getKind()))
    )
      continue;
    if (Node.isIfStatement(parent) || Node.isWhileStatement(parent) || Node.isDoStatement(parent))
      return parent.getExpression() === node;
    if (Node.isConditionalExpression(parent)) return parent.getCondition() === node;
    return false;
  }
  return false;
}
