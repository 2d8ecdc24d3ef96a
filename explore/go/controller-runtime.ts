// controller-runtime controllers the Go reader recognises: where a builder or controller is made
// (`NewControllerManagedBy(mgr)`, `controller.New(...)`) and the calls that may act on one (For, Owns, Watches, Watch,
// Named, Complete). Which builder a call acts on is left to the linker's points-to, so builders kept in variables,
// reassigned (`b = setup(b, c)`), passed to helpers or extended in loops are followed like any other value.
import type { Node } from "web-tree-sitter";
import type { BuilderFact, BuilderOp, CallFact, Slot } from "../facts.js";
import { oneLine } from "../syntax.js";
import { GoInformerReader } from "./informers.js";
import { nodeKey } from "./syntax.js";

/** Builder and controller methods, by what they do; the rest of the builder's methods return it unchanged. */
const BUILDER_OPS: Record<string, BuilderOp["op"]> = {
  For: "For",
  Owns: "Owns",
  Watches: "Watches",
  WatchesRawSource: "Watches",
  WatchesMetadata: "Watches",
  Watch: "Watch",
  Named: "Named",
  Complete: "Complete",
  Build: "Complete",
  WithOptions: "chain",
  WithEventFilter: "chain",
  WithLogConstructor: "chain",
};

export abstract class GoControllerRuntimeReader extends GoInformerReader {
  /** The call facts of this file by their call node, to read the arguments of `source.Kind(...)` or a wrapper. */
  protected readonly callsByNode = new Map<string, CallFact>();

  /** `ctrl.NewControllerManagedBy(mgr)`, `builder.TypedControllerManagedBy[req](mgr)`, `controller.New(...)`. */
  protected recogniseBuilderStart(fact: CallFact, argNodes: Node[]): void {
    if (!fact.qualifier) return;
    const managedBy = /ControllerManagedBy$/.test(fact.method);
    const controllerNew =
      fact.qualifier.endsWith("controller-runtime/pkg/controller") && /^New(Typed)?(Unmanaged)?$/.test(fact.method);
    if (!managedBy && !controllerNew) return;
    const builder: BuilderFact = {
      id: fact.id,
      loc: fact.loc,
      fn: this.scope!.fn.id,
      sources: [],
      reconcilers: [],
      ret: fact.ret,
    };
    if (controllerNew) {
      if (fact.strings[0]) builder.name = fact.strings[0];
      const options = argNodes[2]?.type === "composite_literal" ? argNodes[2] : undefined;
      const reconciler = options
        ?.descendantsOfType("keyed_element")
        .find((el) => (el.namedChildren[0]?.namedChildren[0] ?? el.namedChildren[0])?.text === "Reconciler");
      const value = reconciler?.namedChildren[1]?.namedChildren[0] ?? reconciler?.namedChildren[1];
      // Options{Reconciler: r}: what the options literal holds in Reconciler, and what a wrapper there was given.
      const held = this.temp();
      if (fact.args[2]) this.facts.constraints.push({ c: "load", dst: held, base: fact.args[2], field: "Reconciler" });
      builder.reconcilers = [held, ...this.reconcilerSlots(value, undefined)];
      builder.reconcilerHints = this.wrappedSlots(value);
    }
    this.facts.builders.push(builder);
  }

  /** A builder or controller method called on a value (not a package): what it adds, should the value be a builder. */
  protected recogniseBuilderOp(fact: CallFact, fnNode: Node, argNodes: Node[]): void {
    // An own key only: `x.toString()` is no builder method (and its fact must stay plain data, for worker threads).
    const op = Object.hasOwn(BUILDER_OPS, fact.method) ? BUILDER_OPS[fact.method] : undefined;
    if (!op || !fact.recv || fnNode.type !== "selector_expression") return;
    const builderOp: BuilderOp = { op, loc: this.loc(fnNode.childForFieldName("field")!) };
    if (op === "For" || op === "Owns") builderOp.object = fact.args[0];
    else if (op === "Named" && fact.strings[0]) builderOp.name = fact.strings[0];
    else if (op === "Complete") {
      builderOp.reconcilers = this.reconcilerSlots(argNodes[0], fact.args[0]);
      builderOp.reconcilerHints = this.wrappedSlots(argNodes[0]);
    } else if (op === "Watches" || op === "Watch") {
      // Watches(&T{}, handler) / WatchesRawSource(source.Kind(cache, &T{}, handler)) / Watch(source.Kind(...)).
      const kindCall = argNodes[0] ? this.sourceKindCall(argNodes[0]) : undefined;
      // controller-runtime before 0.15: c.Watch(&source.Kind{Type: &T{}}, handler), its kind read from Type.
      const objectSlot = kindCall
        ? kindCall.args[1]
        : fact.method !== "Watch" || argNodes.length >= 2
          ? fact.args[0]
          : undefined;
      const handlerIndex = kindCall ? 2 : fact.method === "Watches" || argNodes.length >= 2 ? 1 : -1;
      const handlerNode = kindCall ? this.sourceKindArgs(argNodes[0]!)[2] : argNodes[handlerIndex];
      const handlerSlot = kindCall ? kindCall.args[2] : fact.args[handlerIndex];
      if (objectSlot) builderOp.object = objectSlot;
      if (handlerSlot) builderOp.handler = handlerSlot;
      const name = handlerNode ? this.handlerText(handlerNode, 0) : undefined;
      if (name) builderOp.handlerName = name;
    }
    fact.builderOp = builderOp;
  }

  /** The `source.Kind(cache, &T{}, handler)` call an argument is (or a local was set to). */
  private sourceKindCall(arg: Node): CallFact | undefined {
    const value = arg.type === "identifier" ? (this.initOf(arg.text) ?? arg) : arg;
    const fn = value.type === "call_expression" ? value.childForFieldName("function") : undefined;
    const name = fn?.type === "index_expression" ? fn.childForFieldName("operand")?.text : fn?.text;
    if (!name || !/Kind$/.test(name)) return undefined;
    return this.callsByNode.get(nodeKey(value));
  }

  private sourceKindArgs(arg: Node): Node[] {
    const value = arg.type === "identifier" ? (this.initOf(arg.text) ?? arg) : arg;
    return (value.childForFieldName("arguments")?.namedChildren ?? []).filter((a) => a.type !== "comment");
  }

  /** How a handler argument is written: `handler.EnqueueRequestForOwner`, `handler.Funcs`, through a local too. */
  private handlerText(node: Node, depth: number): string | undefined {
    const target = node.type === "unary_expression" ? node.namedChildren[0] : node;
    if (!target) return undefined;
    if (target.type === "identifier" && depth < 3) {
      const init = this.initOf(target.text);
      return init ? this.handlerText(init, depth + 1) : target.text;
    }
    const written =
      target.type === "composite_literal"
        ? target.childForFieldName("type")?.text
        : target.type === "call_expression"
          ? target.childForFieldName("function")?.text
          : target.text;
    return written === undefined ? undefined : oneLine(written).replace(/\[.*\]$/, "");
  }

  /**
   * A reconciler argument's slot, and the slots of what a wrapper call around it was given (`reconcile.Func(f)`,
   * `reconcile.AsReconciler(client, r)`, a leader-aware wrapper), also through a local set to such a call.
   */
  protected reconcilerSlots(arg: Node | undefined, argSlot: Slot | undefined): Slot[] {
    if (!arg) return [];
    const slots: Slot[] = [];
    const add = (s: Slot | undefined) => {
      if (s && !slots.includes(s)) slots.push(s);
    };
    add(argSlot ?? (arg.type === "identifier" ? this.lookup(arg.text) : undefined));
    let value: Node | undefined = arg;
    for (let depth = 0; value && depth < 3; depth++) {
      if (value.type === "identifier") value = this.initOf(value.text);
      if (value?.type === "unary_expression") value = value.namedChildren[0];
      if (value?.type !== "call_expression" && value?.type !== "type_conversion_expression") break;
      const call = this.callsByNode.get(nodeKey(value));
      // A function of the explored tree hands its arguments on through points-to; a library's is looked into here.
      if (!call || !this.isLibraryCall(call)) break;
      for (const s of call.args) add(s);
      const args: Node[] = value.childForFieldName("arguments")?.namedChildren ?? [];
      value = value.type === "type_conversion_expression" ? undefined : args.filter((a) => a.type !== "comment").at(-1);
    }
    return slots;
  }

  /**
   * What a wrapper of the explored tree was given (`leaderAware(mgr, r)`): the wrapper's object is one for all its
   * callers, so its inner Reconcile is told apart by what this caller passed.
   */
  private wrappedSlots(arg: Node | undefined): Slot[] {
    let value = arg?.type === "identifier" ? this.initOf(arg.text) : arg;
    if (value?.type === "unary_expression") value = value.namedChildren[0];
    const call = value ? this.callsByNode.get(nodeKey(value)) : undefined;
    return call && !this.isLibraryCall(call) ? call.args : [];
  }

  /** A call of a package outside the explored tree (`reconcile.AsReconciler`, `reconcile.Func`). */
  private isLibraryCall(call: CallFact): boolean {
    return !!call.qualifier && ![...this.imports.values()].some((i) => i.path === call.qualifier && i.pkgKey);
  }
}
