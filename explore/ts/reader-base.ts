// One TypeScript file's reading state: its module, imports, the function scopes, and the slots names stand for.
import { Node, type SourceFile } from "ts-morph";
import { type CallFact, type Facts, type FnFact, type Slot, type Value, newFnFact } from "../facts.js";
import { type ExportTable, type ModuleResolver, moduleKey, resolveExport } from "./modules.js";
import { LineIndex } from "./lines.js";
import type { TypedShapes } from "./typed-shapes.js";

export interface Scope {
  fn: FnFact;
  names: Map<string, Slot>;
  thisSlot?: Slot;
  parent?: Scope;
  loopDepth: number;
  temps: number;
}

/**
 * What a name imported into a file stands for: an export of the explored tree (a package-level slot, or a whole module
 * for `import * as`, by its file), a module outside the tree (its specifier), or nothing when the tree does not export
 * the name.
 */
interface Imported {
  slot?: Slot;
  namespace?: string;
  external?: string;
}

/** The state and the name lookups every part of the TypeScript reader builds on; the walks come later. */
export abstract class TsReaderBase {
  protected readonly key: string;
  protected scope: Scope | undefined;
  /** Imported names, by their local name. */
  protected readonly imported = new Map<string, Imported>();
  protected lits = 0;
  /** The base class of the class being read: `super(...)` calls its constructor. */
  protected baseClass: string | undefined;
  /** Lines and columns of this file's positions. */
  protected readonly lines: LineIndex;

  constructor(
    protected readonly file: string,
    protected readonly sf: SourceFile,
    protected readonly facts: Facts,
    protected readonly resolver: ModuleResolver,
    protected readonly exports: Map<string, ExportTable>,
    protected readonly shapes: TypedShapes,
  ) {
    this.key = moduleKey(file);
    this.lines = new LineIndex(sf.getFullText());
  }

  protected abstract expr(node: Node, role?: string): Slot | undefined;
  protected abstract visit(node: Node, topLevel?: boolean): void;
  protected abstract functionLike(
    node: Node,
    name: string,
    owner: string | undefined,
    prelude?: (thisSlot: Slot) => void,
    role?: string,
  ): Slot;

  protected loc(node: Node) {
    return { file: this.file, line: this.lines.line(node.getStart()) };
  }

  protected nodeId(node: Node): string {
    const { line, column } = this.lines.lineAndColumn(node.getStart());
    return `${this.file}:${line}:${column}`;
  }

  /** A call's id: its start and end, since the calls of one chain (`a.b().c()`) all start where the first does. */
  protected callId(node: Node): string {
    const end = this.lines.lineAndColumn(node.getEnd());
    return `${this.nodeId(node)}-${end.line}:${end.column}`;
  }

  protected newFn(node: Node, name: string, owner: string | undefined, role?: string, idSuffix = ""): FnFact {
    const fn = newFnFact({
      id: `${this.nodeId(node)}${idSuffix}`,
      name,
      loc: this.loc(node),
      lang: "ts",
      owner,
      parent: this.scope?.fn.id,
      role,
    });
    this.facts.fns.push(fn);
    return fn;
  }

  protected withScope(fn: FnFact, thisSlot: Slot | undefined, body: (scope: Scope) => void): void {
    const scope: Scope = { fn, names: new Map(), loopDepth: 0, temps: 0, thisSlot, parent: this.scope };
    const saved = this.scope;
    this.scope = scope;
    try {
      body(scope);
    } finally {
      this.scope = saved;
    }
  }

  protected temp(): Slot {
    return `${this.scope!.fn.id}~${this.scope!.temps++}`;
  }

  protected alloc(v: Value): Slot {
    const t = this.temp();
    this.facts.constraints.push({ c: "alloc", dst: t, v });
    return t;
  }

  protected lookup(name: string): Slot | undefined {
    for (let s = this.scope; s; s = s.parent) {
      const slot = s.names.get(name);
      if (slot) return slot;
    }
    return undefined;
  }

  protected isLocal(name: string): boolean {
    for (let s = this.scope; s && s.parent; s = s.parent) if (s.names.has(name)) return true;
    return false;
  }

  protected thisSlot(): Slot | undefined {
    for (let s = this.scope; s; s = s.parent) if (s.thisSlot) return s.thisSlot;
    return undefined;
  }

  protected slotOfName(name: string): Slot | undefined {
    const local = this.lookup(name);
    if (local) return local;
    const imp = this.imported.get(name);
    if (imp) return imp.namespace !== undefined ? this.alloc(`m|${moduleKey(imp.namespace)}`) : imp.slot;
    if (name === "undefined") return undefined;
    return `${this.key}.${name}`;
  }

  protected declare(name: string, topLevel: boolean): Slot {
    const slot: Slot = topLevel ? `${this.key}.${name}` : `${this.scope!.fn.id}$${name}`;
    this.scope!.names.set(name, slot);
    return slot;
  }

  /** `queue` or `config.queue` where `queue`/`config` is a parameter of this or an enclosing function. */
  protected paramRoot(expr: Node): CallFact["recvParam"] {
    const path: string[] = [];
    let e = expr;
    while (Node.isPropertyAccessExpression(e)) {
      path.unshift(e.getName());
      e = e.getExpression();
    }
    if (!Node.isIdentifier(e)) return undefined;
    const m = /^(.*)#p(\d+)$/.exec(this.lookup(e.getText()) ?? "");
    return m ? { fn: m[1]!, index: Number(m[2]), path } : undefined;
  }

  /**
   * `rt.newRateLimitingQueue` with `import * as rt from "<explored module>"`: the exported name's own slot, found
   * through the module's re-exports, or the module of a namespace it re-exports. Undefined when the base is not such
   * a namespace; no slot when the name is not exported there.
   */
  protected namespaceMember(node: import("ts-morph").PropertyAccessExpression): { slot?: Slot } | undefined {
    const base = node.getExpression();
    if (!Node.isIdentifier(base) || this.lookup(base.getText())) return undefined;
    const namespace = this.imported.get(base.getText())?.namespace;
    if (namespace === undefined) return undefined;
    const target = resolveExport(this.exports, namespace, node.getName());
    if (!target) return {};
    return "slot" in target ? target : { slot: this.alloc(`m|${moduleKey(target.namespace)}`) };
  }
}
