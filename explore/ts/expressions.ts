// TypeScript expressions lowered to slots: names, property access, functions, object literals, assignments,
// conditionals.
import { Node, SyntaxKind } from "ts-morph";
import type { Slot } from "../facts.js";
import { TsCallReader } from "./calls.js";
import { identsIn } from "./syntax.js";

export abstract class TsExpressionReader extends TsCallReader {
  protected override expr(node: Node, role?: string): Slot | undefined {
    if (Node.isIdentifier(node)) return this.slotOfName(node.getText());
    if (node.getKind() === SyntaxKind.ThisKeyword) return this.thisSlot();
    if (
      Node.isParenthesizedExpression(node) ||
      Node.isAwaitExpression(node) ||
      Node.isAsExpression(node) ||
      Node.isNonNullExpression(node) ||
      Node.isTypeAssertion(node) ||
      Node.isSatisfiesExpression(node)
    ) {
      return this.expr(node.getExpression(), role);
    }
    if (Node.isPropertyAccessExpression(node)) {
      const direct = this.namespaceMember(node);
      if (direct) return direct.slot;
      const base = this.expr(node.getExpression());
      if (!base) return undefined;
      const t = this.temp();
      this.facts.constraints.push({ c: "load", dst: t, base, field: node.getName() });
      return t;
    }
    if (Node.isCallExpression(node)) return this.call(node);
    if (Node.isNewExpression(node)) return this.newExpression(node);
    if (Node.isArrowFunction(node) || Node.isFunctionExpression(node))
      return this.functionLike(node, role ? `${role} (arrow)` : "arrow function", undefined, undefined, role);
    if (Node.isObjectLiteralExpression(node)) return this.objectLiteral(node);
    if (Node.isConditionalExpression(node)) {
      this.expr(node.getCondition());
      return this.join([this.expr(node.getWhenTrue(), role), this.expr(node.getWhenFalse(), role)]);
    }
    if (Node.isBinaryExpression(node)) {
      const op = node.getOperatorToken().getKind();
      if (op === SyntaxKind.EqualsToken) return this.assign(node.getLeft(), node.getRight());
      const left = this.expr(node.getLeft());
      const right = this.expr(node.getRight());
      if (
        op === SyntaxKind.QuestionQuestionToken ||
        op === SyntaxKind.BarBarToken ||
        op === SyntaxKind.AmpersandAmpersandToken
      )
        return this.join([left, right]);
      return undefined;
    }
    node.forEachChild((c) => {
      if (Node.isExpression(c)) this.expr(c);
      else this.visit(c);
    });
    return undefined;
  }

  protected join(slots: (Slot | undefined)[]): Slot | undefined {
    const present = slots.filter((s): s is Slot => s !== undefined);
    if (present.length <= 1) return present[0];
    const t = this.temp();
    for (const src of present) this.facts.constraints.push({ c: "copy", dst: t, src });
    return t;
  }

  protected assign(left: Node, right: Node): Slot | undefined {
    const src = this.expr(right, Node.isPropertyAccessExpression(left) ? left.getName() : undefined);
    if (Node.isPropertyAccessExpression(left)) {
      const base = this.expr(left.getExpression());
      if (base && src) this.facts.constraints.push({ c: "store", base, field: left.getName(), src });
    } else if (Node.isIdentifier(left)) {
      const dst = this.lookup(left.getText()) ?? `${this.key}.${left.getText()}`;
      if (src) this.facts.constraints.push({ c: "copy", dst, src });
      this.scope!.fn.assigns.push({
        lhs: [left.getText()],
        rhsIdents: identsIn(right),
        line: this.lines.line(left.getStart()),
      });
    }
    return src;
  }

  protected objectLiteral(node: import("ts-morph").ObjectLiteralExpression): Slot {
    const t = this.alloc(`l|${this.nodeId(node)}#${this.lits++}`);
    this.objectProperties(node, t);
    return t;
  }

  protected objectProperties(node: import("ts-morph").ObjectLiteralExpression, t: Slot): void {
    for (const p of node.getProperties()) {
      if (Node.isPropertyAssignment(p)) {
        const init = p.getInitializer();
        // A resource descriptor's `kind: "MySQLCluster"`: the string is a value, so a descriptor passed to crdgen's
        // controllerFor names the kind its controller reconciles.
        const kindString =
          p.getName() === "kind" && init && (Node.isStringLiteral(init) || Node.isNoSubstitutionTemplateLiteral(init))
            ? this.alloc(`s|${init.getLiteralText()}`)
            : undefined;
        const src = kindString ?? (init ? this.expr(init, p.getName()) : undefined);
        if (src) this.facts.constraints.push({ c: "store", base: t, field: p.getName(), src });
      } else if (Node.isShorthandPropertyAssignment(p)) {
        const src = this.slotOfName(p.getName());
        if (src) this.facts.constraints.push({ c: "store", base: t, field: p.getName(), src });
      } else if (Node.isMethodDeclaration(p)) {
        const src = this.functionLike(p, p.getName(), undefined, undefined, p.getName());
        this.facts.constraints.push({ c: "store", base: t, field: p.getName(), src });
      } else if (Node.isSpreadAssignment(p)) {
        // `...(cond ? { a } : {})` adds a's property to this literal; other spreads copy nothing we can name.
        let e: Node = p.getExpression();
        while (Node.isParenthesizedExpression(e)) e = e.getExpression();
        const branches = Node.isConditionalExpression(e) ? [e.getWhenTrue(), e.getWhenFalse()] : [e];
        if (Node.isConditionalExpression(e)) this.expr(e.getCondition());
        for (let b of branches) {
          while (Node.isParenthesizedExpression(b)) b = b.getExpression();
          if (Node.isObjectLiteralExpression(b)) this.objectProperties(b, t);
          else this.expr(b);
        }
      }
    }
  }
}
