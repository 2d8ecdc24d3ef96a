// Informers the Go reader recognises by shape: cache.New*Informer, factory accessors (`...Pods().Informer()`), raw
// watches.
import type { Node } from "web-tree-sitter";
import { type CallFact, singularKind } from "../facts.js";
import { oneLine } from "../syntax.js";
import { GoReaderBase, type Scope } from "./reader-base.js";

export abstract class GoInformerReader extends GoReaderBase {
  protected recogniseInformer(fact: CallFact, fnNode: Node, argNodes: Node[], qualifier: string | undefined): void {
    const scope = this.scope!;
    if (qualifier?.endsWith("/tools/cache")) {
      const informerCtor = /^New((Shared|SharedIndex|Indexer)?Informer|SharedIndexInformerWithOptions)$/.test(
        fact.method,
      );
      if (informerCtor) {
        const kind = this.kindOfObjectArg(argNodes[1]) ?? "?";
        fact.informer = { kind, via: `cache.${fact.method}` };
        if (fact.method === "NewInformer" || fact.method === "NewIndexerInformer") fact.handlerArg = 3;
      } else if (fact.method === "NewInformerWithOptions" && fact.args[0]) {
        // cache.NewInformerWithOptions(cache.InformerOptions{ObjectType: &T{}, Handler: h, ...}): the handler is the
        // options' Handler, handed to the linker as one more argument.
        const options = argNodes[0]?.type === "unary_expression" ? argNodes[0].namedChildren[0] : argNodes[0];
        const objectType = options
          ?.descendantsOfType("keyed_element")
          .find((el) => (el.namedChildren[0]?.namedChildren[0] ?? el.namedChildren[0])?.text === "ObjectType");
        const value = objectType?.namedChildren[1]?.namedChildren[0] ?? objectType?.namedChildren[1];
        fact.informer = { kind: this.kindOfObjectArg(value ?? undefined) ?? "?", via: "cache.NewInformerWithOptions" };
        const handler = this.temp();
        this.facts.constraints.push({ c: "load", dst: handler, base: fact.args[0], field: "Handler" });
        fact.handlerArg = fact.args.length;
        fact.args.push(handler);
      }
      return;
    }
    const ctorKind = qualifier && !this.isTreePackage(qualifier) ? kindOfInformerCtor(fact.method) : undefined;
    if (ctorKind) {
      // A generated informers package's constructor: coreinformers.NewPodInformer, NewFilteredPodInformer.
      fact.informer = { kind: ctorKind, via: oneLine(fnNode.text) };
      return;
    }
    if (fnNode.type !== "selector_expression") return;
    const operand = fnNode.childForFieldName("operand")!;
    if (fact.method === "Informer" && argNodes.length === 0) {
      fact.informer = { kind: this.kindOfInformerExpr(operand, 0) ?? "?", via: `${oneLine(operand.text)}.Informer()` };
      // c.pInformer.Informer(): the field's declared type (coreinformers.PodInformer) names the kind once every file's
      // types are read; its name is only the fallback.
      if (operand.type === "selector_expression") {
        const type = this.typeOfExpr(operand.childForFieldName("operand")!);
        const name = operand.childForFieldName("field")!.text;
        fact.informer.field = type ? { name, type } : { name };
      }
    } else if (fact.method === "Watch" && !isInWatchFunc(scope)) {
      const kind = operand.type === "call_expression" ? this.pluralAccessorKind(operand) : undefined;
      if (kind) fact.informer = { kind, via: "Watch" };
    }
  }

  /** An import path of a package in the explored tree. */
  protected isTreePackage(importPath: string): boolean {
    return [...this.imports.values()].some((i) => i.path === importPath && i.pkgKey !== undefined);
  }

  /** The named type (typeKey) of a receiver, a parameter or a local set to `&T{...}`, as far as the file tells. */
  protected typeOfExpr(node: Node): string | undefined {
    if (node.type !== "identifier") return undefined;
    for (let s = this.scope; s; s = s.parent) {
      if (s.names.get(node.text) === `${s.fn.id}#this`) return s.fn.owner;
      const type = s.paramTypes.get(node.text);
      if (type) return this.namedTypeKey(type.type === "pointer_type" ? type.namedChildren[0] : type);
      const init = s.inits.get(node.text);
      if (init) {
        const lit = init.type === "unary_expression" ? init.namedChildren[0] : init;
        return lit?.type === "composite_literal" ? this.namedTypeKey(lit.childForFieldName("type")) : undefined;
      }
      if (s.names.has(node.text)) return undefined;
    }
    return undefined;
  }

  /** `Controller` → `<this package>.Controller`; types of other packages are not followed. */
  private namedTypeKey(type: Node | null | undefined): string | undefined {
    return type?.type === "type_identifier" ? `${this.pkgKey}.${type.text}` : undefined;
  }

  protected kindOfObjectArg(arg: Node | undefined): string | undefined {
    const lit = arg?.type === "unary_expression" ? arg.namedChildren[0] : arg;
    if (lit?.type !== "composite_literal") return undefined;
    const type = lit.childForFieldName("type");
    return type?.type === "qualified_type" ? type.childForFieldName("name")?.text : type?.text;
  }

  /** `factory.Apps().V1().Deployments()` → Deployment. */
  protected pluralAccessorKind(call: Node): string | undefined {
    const f = call.childForFieldName("function");
    if (f?.type !== "selector_expression") return undefined;
    const name = f.childForFieldName("field")!.text;
    return /^[A-Z][A-Za-z]*s$/.test(name) ? singularKind(name) : undefined;
  }

  /** The kind behind an informer accessor: a `Foos()` call, a parameter typed `FooInformer`, or a local set from either. */
  protected kindOfInformerExpr(node: Node, depth: number): string | undefined {
    if (depth > 4) return undefined;
    if (node.type === "call_expression") return this.pluralAccessorKind(node);
    if (node.type === "identifier") {
      for (let s = this.scope; s; s = s.parent) {
        const type = s.paramTypes.get(node.text);
        if (type) {
          const name = type.descendantsOfType("type_identifier").at(-1)?.text ?? type.text;
          // FooInformer names its kind; a generic cache.SharedIndexInformer does not, so the variable's name is used.
          const generic = /^(Shared(Index)?)?Informer$/.test(name);
          return name.endsWith("Informer") && !generic ? name.slice(0, -"Informer".length) : kindFromName(node.text);
        }
        const init = s.inits.get(node.text);
        if (init) return this.kindOfInformerExpr(init, depth + 1);
      }
      return kindFromName(node.text);
    }
    // A field such as c.podInformer: its name is the best clue there is without type information.
    if (node.type === "selector_expression") return kindFromName(node.childForFieldName("field")!.text);
    return undefined;
  }
}

/** Informer constructors of generated informer packages: `NewPodInformer`, `NewFilteredPodInformer` → Pod. */
function kindOfInformerCtor(method: string): string | undefined {
  const kind = /^New(?:Filtered)?([A-Z]\w*?)Informer$/.exec(method)?.[1];
  return kind && !/^(Shared|SharedIndex|Indexer|Dynamic|Filtered|Metadata|Generic)/.test(kind) ? kind : undefined;
}

/** The kind a field's declared type names: `PodInformer` → Pod; none for the generic cache.SharedIndexInformer. */
export function kindOfInformerType(typeName: string | undefined): string | undefined {
  const kind = /^(\w+)Informer$/.exec(typeName ?? "")?.[1];
  return kind && !/^(Shared|SharedIndex|Index|Indexer|Dynamic|Generic)$/.test(kind) ? kind : undefined;
}

/** `podInformer` → Pod, `fooInformer` → Foo; undefined for names that do not end in Informer. */
function kindFromName(name: string): string | undefined {
  const m = /^(\w+?)Informer$/i.exec(name);
  return m ? m[1]!.charAt(0).toUpperCase() + m[1]!.slice(1) : undefined;
}

function isInWatchFunc(scope: Scope): boolean {
  // WatchFunc, WatchFuncWithContext, ...: the watch side of a ListWatch, which the informer runs.
  for (let s: Scope | undefined = scope; s; s = s.parent) if (/^Watch\w*Func/.test(s.fn.role ?? "")) return true;
  return false;
}
