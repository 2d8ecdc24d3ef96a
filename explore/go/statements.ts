// Go statements lowered to constraints: declarations, assignments, returns and loops (with the facts the linker reads).
import type { Node } from "web-tree-sitter";
import type { Slot } from "../facts.js";
import { GoExpressionReader } from "./expressions.js";
import { isExpression } from "./syntax.js";

export abstract class GoStatementReader extends GoExpressionReader {
  protected override visit(node: Node): void {
    switch (node.type) {
      case "short_var_declaration":
      case "assignment_statement":
        this.assignment(node);
        return;
      case "var_declaration":
        for (const spec of node.descendantsOfType("var_spec")) this.varSpec(spec, (name) => this.declare(name));
        return;
      case "return_statement":
        this.returnStatement(node);
        return;
      case "for_statement": {
        const scope = this.scope!;
        scope.fn.loops.push([node.startPosition.row + 1, node.endPosition.row + 1]);
        scope.loopDepth++;
        try {
          const range = node.namedChildren.find((c) => c.type === "range_clause");
          if (range) {
            const right = range.childForFieldName("right");
            const [rightSlot, rightIdents] = this.collect(() => (right ? this.expr(right) : undefined));
            const left = range.childForFieldName("left");
            for (const id of left?.type === "expression_list" ? left.namedChildren : left ? [left] : []) {
              if (id.type === "identifier") {
                const slot = this.declare(id.text);
                if (rightSlot) this.facts.constraints.push({ c: "copy", dst: slot, src: rightSlot });
                scope.fn.assigns.push({ lhs: [id.text], rhsIdents: rightIdents, line: id.startPosition.row + 1 });
              }
            }
          }
          for (const child of node.namedChildren) if (child.type !== "range_clause") this.visit(child);
        } finally {
          scope.loopDepth--;
        }
        return;
      }
      default:
        if (isExpression(node.type)) {
          this.expr(node);
          return;
        }
        for (const child of node.namedChildren) this.visit(child);
    }
  }

  protected declare(name: string): Slot {
    const slot: Slot = `${this.scope!.fn.id}$${name}`;
    this.scope!.names.set(name, slot);
    return slot;
  }

  protected varSpec(spec: Node, slotFor: (name: string) => Slot): void {
    const names = spec.childrenForFieldName("name");
    const value = spec.childForFieldName("value");
    const values = value?.type === "expression_list" ? value.namedChildren : value ? [value] : [];
    const type = spec.childForFieldName("type");
    names.forEach((n, i) => {
      const dst = slotFor(n.text);
      if (type) this.scope!.paramTypes.set(n.text, type);
      const rhs = values[i] ?? (values.length === 1 ? values[0] : undefined);
      if (rhs && i < values.length) {
        this.setInit(n.text, rhs);
        const src = this.expr(rhs);
        if (src) this.facts.constraints.push({ c: "copy", dst, src });
      }
    });
  }

  /** `return ctrl, queue, nil`: each result to its own slot (#ret, #ret1, ...), as a caller's `a, q, err := f()`. */
  private returnStatement(node: Node): void {
    const list = node.namedChildren[0];
    const results = list?.type === "expression_list" ? list.namedChildren : list ? [list] : [];
    const fn = this.scope!.fn.id;
    results.forEach((r, i) => {
      const slot = this.expr(r);
      if (slot) this.facts.constraints.push({ c: "copy", dst: i === 0 ? `${fn}#ret` : `${fn}#ret${i}`, src: slot });
    });
  }

  /** Slots for a call's results after the first, set on the call's constraint (the one whose result is `ret`). */
  private moreResults(ret: Slot | undefined, count: number): Slot[] {
    const call = this.facts.constraints.findLast((k) => k.c === "call" && k.ret === ret);
    if (!call || call.c !== "call") return [];
    call.more = Array.from({ length: count }, () => this.temp());
    return call.more;
  }

  protected assignment(node: Node): void {
    const scope = this.scope!;
    const left = node.childForFieldName("left");
    const right = node.childForFieldName("right");
    const lefts = left?.type === "expression_list" ? left.namedChildren : left ? [left] : [];
    const rights = right?.type === "expression_list" ? right.namedChildren : right ? [right] : [];
    const declaring = node.type === "short_var_declaration";
    const [rhsSlots, rhsIdents] = this.collect(() => rights.map((r) => this.expr(r)));
    const rhsCall = rights.length === 1 && rights[0] ? this.lastCallId : undefined;
    const rhsIsCall = rights.length === 1 && rights[0]?.type === "call_expression";
    // `a, q, err := f()`: each name gets its own result of f (a queue is often the second).
    const more = rhsIsCall && lefts.length > 1 ? this.moreResults(rhsSlots[0], lefts.length - 1) : [];
    const sources = rights.length === lefts.length ? rhsSlots : [rhsSlots[0], ...more];
    lefts.forEach((l, i) => {
      const src = sources[i];
      const rhsNode = rights.length === lefts.length ? rights[i] : rights[0];
      if (l.type === "identifier") {
        if (l.text === "_") return;
        const dst =
          declaring && !scope.names.has(l.text) ? this.declare(l.text) : (this.lookup(l.text) ?? this.declare(l.text));
        if (rhsNode && (rights.length === lefts.length || i === 0)) this.setInit(l.text, rhsNode);
        if (src) this.facts.constraints.push({ c: "copy", dst, src });
      } else if (l.type === "selector_expression") {
        const base = this.expr(l.childForFieldName("operand")!);
        const field = l.childForFieldName("field")!.text;
        if (base && src) this.facts.constraints.push({ c: "store", base, field, src });
      } else {
        this.expr(l);
      }
    });
    scope.fn.assigns.push({
      lhs: lefts.filter((l) => l.type === "identifier").map((l) => l.text),
      rhsIdents,
      ...(rhsIsCall && rhsCall ? { rhsCall } : {}),
      line: node.startPosition.row + 1,
    });
  }
}
