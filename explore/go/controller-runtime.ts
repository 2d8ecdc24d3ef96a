// controller-runtime controllers the Go reader recognises: the builder chain (For/Owns/Watches/Complete) and
// controller.New + Watch.
import type { Node } from "web-tree-sitter";
import type { BuilderFact, CallFact, Slot } from "../facts.js";
import { oneLine } from "../syntax.js";
import { GoInformerReader } from "./informers.js";
import { nodeKey } from "./syntax.js";

export abstract class GoControllerRuntimeReader extends GoInformerReader {
  /**
   * controller-runtime's builder: `NewControllerManagedBy(mgr).For(&T{}).Owns(&U{}).Watches(..).Complete(r)`, also
   * `TypedControllerManagedBy[req](mgr)` and a chain split over a variable (`b := ...; b.Complete(r)`).
   */
  protected recogniseBuilder(node: Node, fact: CallFact): void {
    if (fact.method !== "Complete" && fact.method !== "Build") return;
    const chain: { method: string; node: Node; args: Node[] }[] = [];
    let cur: Node | null | undefined = node;
    const visited = new Set<string>([nodeKey(node)]);
    for (
      let hops = 0;
      (cur?.type === "call_expression" || cur?.type === "type_conversion_expression") && hops < 32;
      hops++
    ) {
      if (cur.type === "type_conversion_expression") {
        // builder.TypedControllerManagedBy[req](mgr): the generic call the chain starts with.
        const name = cur.childForFieldName("type")?.descendantsOfType("type_identifier")[0]?.text ?? "";
        chain.push({
          method: name,
          node: cur,
          args: cur.childForFieldName("operand") ? [cur.childForFieldName("operand")!] : [],
        });
        break;
      }
      let f: Node | null = cur.childForFieldName("function");
      while (f && (f.type === "index_expression" || f.type === "generic_type"))
        f = f.childForFieldName("operand") ?? f.childForFieldName("type");
      const args: Node[] = cur.childForFieldName("arguments")?.namedChildren ?? [];
      if (f?.type !== "selector_expression") {
        if (f) chain.push({ method: f.text, node: cur, args });
        break;
      }
      chain.push({ method: f.childForFieldName("field")!.text, node: cur, args });
      cur = f.childForFieldName("operand");
      // b := builder.ControllerManagedBy(mgr).For(..); b.Complete(r): go on from what b was set to.
      if (cur?.type === "identifier" && !this.imports.has(cur.text)) {
        // The latest value not walked yet: b = b.WatchesRawSource(..) leads back to b := builder...(mgr).
        const name: string = cur.text;
        cur = [...this.initsOf(name)].reverse().find((n) => !visited.has(nodeKey(n)));
      }
      if (cur) visited.add(nodeKey(cur));
    }
    const start = chain.find((c) => /ControllerManagedBy$/.test(c.method));
    if (!start) return;
    const builder: BuilderFact = {
      id: fact.id,
      loc: this.loc(start.node),
      fn: this.scope!.fn.id,
      sources: [],
      reconcilers: [],
    };
    const complete = chain[0]!;
    builder.reconcilers = this.reconcilerSlots(complete.args[0]);
    for (const link of [...chain].reverse()) {
      let f = link.node.childForFieldName("function");
      while (f && (f.type === "index_expression" || f.type === "generic_type"))
        f = f.childForFieldName("operand") ?? f.childForFieldName("type");
      const loc = this.loc(f?.childForFieldName("field") ?? link.node);
      if (link.method === "Named" && link.args[0]?.type === "interpreted_string_literal")
        builder.name = link.args[0].text.slice(1, -1);
      if (link.method === "For" || link.method === "Owns") {
        builder.sources.push({ via: link.method, kind: this.kindOfObjectArg(link.args[0]) ?? "?", loc });
      } else if (link.method === "Watches" || link.method === "WatchesRawSource") {
        builder.sources.push({ ...this.crSource(link.args, link.method === "Watches" ? 1 : -1), via: "Watches", loc });
      }
    }
    this.facts.builders.push(builder);
  }

  /** A reconciler value, and the function inside a conversion such as reconcile.Func(func(...) {...}). */
  protected reconcilerSlots(arg: Node | undefined): Slot[] {
    if (!arg) return [];
    const slots = [this.expr(arg)];
    // r := reconcile.TypedFunc[req](func(...) {...}); ...Complete(r): look at what r was set to.
    const value = arg.type === "identifier" ? (this.initOf(arg.text) ?? arg) : arg;
    const inner =
      value.type === "call_expression"
        ? value.childForFieldName("arguments")?.namedChildren[0]
        : value.type === "type_conversion_expression"
          ? value.childForFieldName("operand")
          : undefined;
    if (inner) slots.push(this.expr(inner));
    return slots.filter((x): x is Slot => !!x);
  }

  /**
   * The watched kind and handler of Watches(&T{}, handler) or of a source.Kind(cache, &T{}, handler): the handler is a
   * map function (EnqueueRequestsFromMapFunc(fn)) or one of controller-runtime's own, named.
   */
  protected crSource(args: Node[], handlerIndex: number): { kind: string; handler?: Slot; handlerName?: string } {
    let objectArg = args[0];
    let handlerArg = handlerIndex >= 0 ? args[handlerIndex] : undefined;
    const first = args[0];
    if (first?.type === "call_expression" && /Kind$/.test(first.childForFieldName("function")?.text ?? "")) {
      const inner = first.childForFieldName("arguments")?.namedChildren ?? [];
      objectArg = inner[1];
      handlerArg = inner[2] ?? handlerArg;
    }
    const kind = this.kindOfObjectArg(objectArg) ?? "?";
    if (!handlerArg) return { kind };
    const target = handlerArg.type === "unary_expression" ? handlerArg.namedChildren[0] : handlerArg;
    if (target?.type === "composite_literal") {
      return {
        kind,
        handlerName: oneLine(target.childForFieldName("type")?.text ?? target.text).replace(/\[.*\]$/, ""),
      };
    }
    const callee = target?.type === "call_expression" ? target.childForFieldName("function") : undefined;
    const name = oneLine(callee?.text ?? target?.text ?? "handler").replace(/\[.*\]$/, "");
    const inner =
      target?.type === "call_expression" && /MapFunc$/.test(name)
        ? target.childForFieldName("arguments")?.namedChildren[0]
        : undefined;
    const slot = inner ? this.expr(inner) : undefined;
    return { kind, handlerName: name, handler: slot };
  }

  /** controller-runtime without the builder: `c, err := controller.New(name, mgr, controller.Options{Reconciler: r})`, then `c.Watch(source.Kind(...))`. */
  protected readonly crControllers = new Map<string, BuilderFact>();

  protected recogniseControllerNew(node: Node, fact: CallFact, argNodes: Node[]): void {
    if (
      fact.qualifier?.endsWith("controller-runtime/pkg/controller") &&
      /^New(Typed)?(Unmanaged)?$/.test(fact.method)
    ) {
      const options = argNodes[2]?.type === "composite_literal" ? argNodes[2] : undefined;
      const reconciler = options
        ?.descendantsOfType("keyed_element")
        .find((el) => (el.namedChildren[0]?.namedChildren[0] ?? el.namedChildren[0])?.text === "Reconciler");
      const value = reconciler?.namedChildren[1]?.namedChildren[0] ?? reconciler?.namedChildren[1];
      const builder: BuilderFact = {
        id: fact.id,
        loc: fact.loc,
        fn: this.scope!.fn.id,
        sources: [],
        reconcilers: this.reconcilerSlots(value),
        ...(fact.strings[0] ? { name: fact.strings[0] } : {}),
      };
      this.crControllers.set(nodeKey(node), builder);
      this.facts.builders.push(builder);
      return;
    }
    if (fact.method !== "Watch") return;
    const fnNode = node.childForFieldName("function");
    const operand = fnNode?.type === "selector_expression" ? fnNode.childForFieldName("operand") : undefined;
    const init = operand?.type === "identifier" ? this.initOf(operand.text) : undefined;
    const builder = init ? this.crControllers.get(nodeKey(init)) : undefined;
    if (!builder) return;
    builder.sources.push({ ...this.crSource(argNodes, 1), via: "Watch", loc: fact.loc });
  }
}
