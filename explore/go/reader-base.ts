// One Go file's reading state: its package and imports, the function scopes, and the slots names stand for.
import path from "node:path";
import type { Node } from "web-tree-sitter";
import { type CallFact, type Facts, type FnFact, type Slot, type TypeFact, newFnFact } from "../facts.js";
import { type GoModule, isLibraryFile, pkgKeyOf } from "./modules.js";

export interface Scope {
  fn: FnFact;
  names: Map<string, Slot>;
  /** Declared parameter types and local initialisers, for naming the kind an informer watches. */
  paramTypes: Map<string, Node>;
  inits: Map<string, Node>;
  /** Every value a local was set to, in source order (a builder reassigned in a loop: b = b.Watches(...)). */
  allInits: Map<string, Node[]>;
  parent?: Scope;
  loopDepth: number;
  temps: number;
}

/** The state and the name lookups every part of the Go reader builds on; the expression and statement walks come later. */
export abstract class GoReaderBase {
  protected readonly pkgKey: string;
  protected readonly imports = new Map<string, { path: string; pkgKey?: string }>();
  protected scope: Scope | undefined;
  protected lits = 0;
  protected readonly library: boolean;
  /** Identifier collectors: every identifier lowered while one is open is added to it (no second walk of the tree). */
  protected readonly collectors: Set<string>[] = [];

  protected collect<T>(body: () => T): [T, string[]] {
    const names = new Set<string>();
    this.collectors.push(names);
    try {
      return [body(), [...names]];
    } finally {
      this.collectors.pop();
    }
  }

  constructor(
    protected readonly file: string,
    protected readonly modules: GoModule[],
    protected readonly facts: Facts,
    protected readonly types: Map<string, TypeFact>,
    protected readonly methods: Map<string, string[]>,
  ) {
    this.pkgKey = pkgKeyOf(path.posix.dirname(file) === "." ? "" : path.posix.dirname(file));
    this.library = isLibraryFile(file, modules);
  }

  protected abstract expr(node: Node): Slot | undefined;
  protected abstract visit(node: Node): void;

  /** The id of the last call lowered (an assignment's right side being one call). */
  protected lastCallId: string | undefined;

  protected loc(node: Node) {
    return { file: this.file, line: node.startPosition.row + 1 };
  }

  protected newFn(node: Node, name: string, owner: string | undefined, role?: string): FnFact {
    const id = `${this.file}:${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
    const fn = newFnFact({
      id,
      name,
      loc: this.loc(node),
      lang: "go",
      owner,
      parent: this.scope?.fn.id,
      role,
      library: this.library,
    });
    this.facts.fns.push(fn);
    return fn;
  }

  protected withScope<T>(fn: FnFact, body: (scope: Scope) => T): T {
    const scope: Scope = {
      fn,
      names: new Map(),
      paramTypes: new Map(),
      inits: new Map(),
      allInits: new Map(),
      loopDepth: 0,
      temps: 0,
      parent: this.scope,
    };
    const saved = this.scope;
    this.scope = scope;
    try {
      return body(scope);
    } finally {
      this.scope = saved;
    }
  }

  protected readParams(params: Node | null, scope: Scope): void {
    if (!params) return;
    let index = 0;
    for (const decl of params.namedChildren) {
      if (decl.type !== "parameter_declaration" && decl.type !== "variadic_parameter_declaration") continue;
      const names = decl.childrenForFieldName("name");
      const type = decl.childForFieldName("type");
      if (names.length === 0) {
        index++;
        continue;
      }
      for (const n of names) {
        scope.names.set(n.text, `${scope.fn.id}#p${index}`);
        scope.fn.paramNames.push(n.text);
        if (type) scope.paramTypes.set(n.text, type);
        index++;
      }
    }
    scope.fn.params = index;
  }

  /** Named results are locals that a bare return returns. */
  protected readResults(result: Node | null, scope: Scope): void {
    if (!result || result.type !== "parameter_list") return;
    for (const decl of result.namedChildren) {
      for (const n of decl.childrenForFieldName("name")) scope.names.set(n.text, `${scope.fn.id}$${n.text}`);
    }
  }

  protected temp(): Slot {
    const scope = this.scope!;
    return `${scope.fn.id}~${scope.temps++}`;
  }

  protected lookup(name: string): Slot | undefined {
    for (let s = this.scope; s; s = s.parent) {
      const slot = s.names.get(name);
      if (slot) return slot;
    }
    return undefined;
  }

  /** The slot of a name: a local, a parameter, a captured variable, or a package-level name. */
  protected slotOfName(name: string): Slot | undefined {
    const local = this.lookup(name);
    if (local) return local;
    if (this.imports.has(name)) {
      const imp = this.imports.get(name)!;
      if (!imp.pkgKey) return undefined;
      const t = this.temp();
      this.facts.constraints.push({ c: "alloc", dst: t, v: `m|${imp.pkgKey}` });
      return t;
    }
    if (name === "nil" || name === "true" || name === "false" || name === "_") return undefined;
    return `${this.pkgKey}.${name}`;
  }

  protected isLocalName(name: string): boolean {
    return this.lookup(name) !== undefined;
  }

  protected setInit(name: string, value: Node): void {
    const scope = this.scope!;
    scope.inits.set(name, value);
    const all = scope.allInits.get(name) ?? [];
    all.push(value);
    scope.allInits.set(name, all);
  }

  protected initsOf(name: string): Node[] {
    for (let s = this.scope; s; s = s.parent) {
      const all = s.allInits.get(name);
      if (all) return all;
      if (s.names.has(name)) return [];
    }
    return [];
  }

  protected initOf(name: string): Node | undefined {
    for (let s = this.scope; s; s = s.parent) {
      const init = s.inits.get(name);
      if (init) return init;
      if (s.names.has(name)) return undefined;
    }
    return undefined;
  }

  /** `q` or `c.queue` where `q`/`c` is a parameter of this or an enclosing function (not a receiver). */
  protected paramRoot(operand: Node): CallFact["recvParam"] {
    const path: string[] = [];
    let e = operand;
    while (e.type === "selector_expression") {
      path.unshift(e.childForFieldName("field")!.text);
      e = e.childForFieldName("operand")!;
    }
    if (e.type !== "identifier") return undefined;
    const m = /^(.*)#p(\d+)$/.exec(this.lookup(e.text) ?? "");
    return m ? { fn: m[1]!, index: Number(m[2]), path } : undefined;
  }
}
