// Go calls lowered to call facts and constraints (generic calls included), each handed to the recognisers.
import type { Node } from "web-tree-sitter";
import type { CallFact, Slot } from "../facts.js";
import { oneLine } from "../syntax.js";
import { GoControllerRuntimeReader } from "./controller-runtime.js";
import { goIsConditional, goIsTail, goKeyedIn, isExpression, nodeKey } from "./syntax.js";

export abstract class GoCallReader extends GoControllerRuntimeReader {
  /** Whether a call below each node passed so far is conditional (goIsConditional), by node id. */
  private readonly conditionalAt = new Map<number, boolean>();

  protected call(node: Node): Slot {
    let fnNode = node.childForFieldName("function")!;
    while (
      fnNode.type === "index_expression" ||
      fnNode.type === "generic_type" ||
      fnNode.type === "parenthesized_expression"
    ) {
      fnNode = fnNode.childForFieldName("operand") ?? fnNode.childForFieldName("type") ?? fnNode.namedChildren[0]!;
    }
    const argsNode = node.childForFieldName("arguments");
    const argNodes = argsNode
      ? argsNode.namedChildren.filter((a) => isExpression(a.type) || a.type === "func_literal")
      : [];
    return this.callWith(node, fnNode, argNodes);
  }

  /** `pkg.F[T](x)` parses as a conversion to a generic type; with a function of that name it is a call (workqueue.NewTyped...[T](rl)). */
  protected genericCall(node: Node): Slot | undefined {
    const type = node.childForFieldName("type");
    const operand = node.childForFieldName("operand");
    if (type?.type !== "generic_type" || !operand) return undefined;
    const inner = type.childForFieldName("type");
    if (!inner || (inner.type !== "qualified_type" && inner.type !== "type_identifier")) return undefined;
    return this.callWith(node, inner, [operand]);
  }

  protected callWith(node: Node, fnNode: Node, argNodes: Node[]): Slot {
    const scope = this.scope!;
    let method = fnNode.text;
    let recv: Slot | undefined;
    let qualifier: string | undefined;
    let callee: Slot | undefined;
    let dynamic = false;
    let recvParam: CallFact["recvParam"];
    if (fnNode.type === "selector_expression") {
      const operand = fnNode.childForFieldName("operand")!;
      method = fnNode.childForFieldName("field")!.text;
      if (operand.type === "identifier" && !this.isLocalName(operand.text) && this.imports.has(operand.text)) {
        const imp = this.imports.get(operand.text)!;
        qualifier = imp.path;
        callee = imp.pkgKey ? `${imp.pkgKey}.${method}` : undefined;
      } else {
        recv = this.expr(operand);
        dynamic = true;
        recvParam = this.paramRoot(operand);
        if (recv) {
          callee = this.temp();
          this.facts.constraints.push({ c: "load", dst: callee, base: recv, field: method });
        }
      }
    } else if (fnNode.type === "qualified_type") {
      const imp = this.imports.get(fnNode.childForFieldName("package")?.text ?? "");
      method = fnNode.childForFieldName("name")?.text ?? method;
      if (imp) {
        qualifier = imp.path;
        callee = imp.pkgKey ? `${imp.pkgKey}.${method}` : undefined;
      }
    } else if (fnNode.type === "identifier" || fnNode.type === "type_identifier") {
      callee = this.slotOfName(fnNode.text);
      dynamic = this.isLocalName(fnNode.text);
    } else {
      callee = this.expr(fnNode);
      dynamic = true;
    }
    const [args, argIdents] = this.collect(() => argNodes.map((a) => this.expr(a) ?? this.temp()));
    const ret = this.temp();
    // Start and end: the calls of one chain (`a.B().C()`) all start where the first does.
    const { startPosition: start, endPosition: end } = node;
    const id = `${this.file}:${start.row + 1}:${start.column + 1}-${end.row + 1}:${end.column + 1}`;
    // Argument texts and keyed values only matter for queue constructors (name, rate limiter): skip the text otherwise.
    const mayMakeQueue = !!qualifier?.endsWith("/workqueue") || /queue/i.test(method);
    const fact: CallFact = {
      id,
      fn: scope.fn.id,
      loc: this.loc(node),
      method,
      text: oneLine(fnNode.text),
      callee: callee ?? this.temp(),
      args,
      ret,
      argIdents,
      // A local passed by name (a rate limiter built the line before) reads better as what it was set to.
      argTexts: mayMakeQueue
        ? argNodes.map((a) => oneLine(a.type === "identifier" ? (this.initOf(a.text)?.text ?? a.text) : a.text))
        : [],
      keyed: mayMakeQueue ? goKeyedIn(argNodes) : {},
      strings: argNodes.flatMap((a) => (a.type === "interpreted_string_literal" ? [a.text.slice(1, -1)] : [])),
      inLoop: scope.loopDepth > 0,
      dynamic,
      tail: goIsTail(node),
      recv,
      qualifier,
      recvParam,
    };
    if (goIsConditional(node, this.conditionalAt)) fact.conditional = true;
    const nilArgs = argNodes.flatMap((a, i) => (a.type === "nil" ? [i] : []));
    if (nilArgs.length) fact.nilArgs = nilArgs;
    this.recogniseInformer(fact, fnNode, argNodes, qualifier);
    this.facts.calls.push(fact);
    if (callee) this.facts.constraints.push({ c: "call", callee, args, ret });
    this.callsByNode.set(nodeKey(node), fact);
    this.recogniseBuilderStart(fact, argNodes);
    this.recogniseBuilderOp(fact, fnNode, argNodes);
    this.lastCallId = id;
    return ret;
  }
}
