// Reads TypeScript sources with ts-morph into the neutral facts. Imports are followed through relative paths and through
// the npm packages found in the explored tree (a workspace such as @crdgen/runtime), re-exports included.
import path from "node:path";
import { Node, Project, SyntaxKind, type SourceFile } from "ts-morph";
import { type CallFact, type Facts, type FnFact, type Slot, emptyFacts, singularKind } from "./facts.js";

export interface TsSource {
  file: string;
  text: string;
}

/** An npm package found in the tree: its name and folder (relative, "" for the root). */
export interface TsPackage {
  name: string;
  dir: string;
  /** The package's entry points as written in its package.json ("." → "./dist/index.js"). */
  entries: Map<string, string>;
}

const moduleKey = (file: string) => `ts:${file}`;

interface ExportTable {
  /** Names declared and exported here (possibly under another name): exported name → declared name. */
  own: Map<string, string>;
  /** `export { a as b } from "x"`: b → [module, a]. */
  named: Map<string, [string, string]>;
  /** `export * from "x"`. */
  stars: string[];
  /** `export * as ns from "x"`. */
  namespaces: Map<string, string>;
}

export function readTs(sources: TsSource[], packages: TsPackage[]): Facts {
  const project = new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true, compilerOptions: { allowJs: false } });
  const files = new Map<string, SourceFile>();
  for (const s of sources) files.set(s.file, project.createSourceFile(`/${s.file}`, s.text, { overwrite: true }));
  const resolver = new ModuleResolver(new Set(files.keys()), packages);
  const exports = new Map<string, ExportTable>();
  for (const [file, sf] of files) exports.set(file, exportTable(sf, file, resolver));
  const facts = emptyFacts();
  for (const [file, sf] of files) {
    const diagnostics = (sf.compilerNode as unknown as { parseDiagnostics?: { start?: number }[] }).parseDiagnostics ?? [];
    if (diagnostics.length) facts.warnings.push(`${file}:${sf.getLineAndColumnAtPos(diagnostics[0]!.start ?? 0).line}: TypeScript syntax error; the rest of the file was read as far as the parser could`);
  }
  for (const [file, sf] of files) new TsFileReader(file, sf, facts, resolver, exports).read();
  return facts;
}

class ModuleResolver {
  constructor(
    private readonly files: Set<string>,
    private readonly packages: TsPackage[],
  ) {}

  /** The explored file a module specifier means, or undefined for modules outside the tree. */
  resolve(fromFile: string, spec: string): string | undefined {
    if (spec.startsWith(".")) return this.asSource(path.posix.join(path.posix.dirname(fromFile), spec));
    for (const pkg of this.packages) {
      if (spec !== pkg.name && !spec.startsWith(`${pkg.name}/`)) continue;
      const sub = spec === pkg.name ? "." : `./${spec.slice(pkg.name.length + 1)}`;
      const candidates = [pkg.entries.get(sub), sub === "." ? "./index" : `${sub}/index`, sub === "." ? "./src/index" : `./src/${sub.slice(2)}/index`, sub];
      for (const c of candidates) {
        if (!c) continue;
        const stripped = c.replace(/^\.\/dist\//, "./").replace(/\.d\.ts$/, "");
        const found = this.asSource(path.posix.join(pkg.dir, stripped)) ?? this.asSource(path.posix.join(pkg.dir, c));
        if (found) return found;
      }
    }
    return undefined;
  }

  private asSource(p: string): string | undefined {
    const base = p.replace(/^\.\//, "").replace(/\.(m|c)?js$/, "");
    for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.mts`, `${base}/index.ts`]) if (this.files.has(candidate)) return candidate;
    return undefined;
  }
}

function exportTable(sf: SourceFile, file: string, resolver: ModuleResolver): ExportTable {
  const table: ExportTable = { own: new Map(), named: new Map(), stars: [], namespaces: new Map() };
  for (const stmt of sf.getStatements()) {
    if (Node.isExportDeclaration(stmt)) {
      const spec = stmt.getModuleSpecifierValue();
      const target = spec ? resolver.resolve(file, spec) : undefined;
      const ns = stmt.getNamespaceExport()?.getName();
      if (spec && !stmt.hasNamedExports() && !ns) {
        if (target) table.stars.push(target);
      } else if (ns) {
        if (target) table.namespaces.set(ns, target);
      } else {
        for (const e of stmt.getNamedExports()) {
          const name = e.getName();
          const alias = e.getAliasNode()?.getText() ?? name;
          if (target) table.named.set(alias, [target, name]);
          else if (!spec) table.own.set(alias, name);
        }
      }
    } else if ((Node.isFunctionDeclaration(stmt) || Node.isClassDeclaration(stmt)) && stmt.isExported()) {
      const name = stmt.getName();
      if (name) table.own.set(stmt.isDefaultExport() ? "default" : name, name);
    } else if (Node.isVariableStatement(stmt) && stmt.isExported()) {
      for (const d of stmt.getDeclarations()) table.own.set(d.getName(), d.getName());
    }
  }
  return table;
}

/** The package-level slot an exported name of a module stands for, following re-exports. */
function resolveExport(exports: Map<string, ExportTable>, file: string, name: string, seen = new Set<string>()): Slot | undefined {
  if (seen.has(`${file}#${name}`)) return undefined;
  seen.add(`${file}#${name}`);
  const table = exports.get(file);
  if (!table) return undefined;
  const own = table.own.get(name);
  if (own) return `${moduleKey(file)}.${own}`;
  const named = table.named.get(name);
  if (named) return resolveExport(exports, named[0], named[1], seen);
  if (table.namespaces.has(name)) return `@ns:${table.namespaces.get(name)}`;
  for (const star of table.stars) {
    const found = resolveExport(exports, star, name, seen);
    if (found) return found;
  }
  return undefined;
}

interface Scope {
  fn: FnFact;
  names: Map<string, Slot>;
  thisSlot?: Slot;
  parent?: Scope;
  loopDepth: number;
  temps: number;
}

const LOOPS = new Set([SyntaxKind.ForStatement, SyntaxKind.ForOfStatement, SyntaxKind.ForInStatement, SyntaxKind.WhileStatement, SyntaxKind.DoStatement]);

class TsFileReader {
  private readonly key: string;
  private scope: Scope | undefined;
  /** Imported names: local name → slot (package-level slot of the explored module) or external module specifier. */
  private readonly imported = new Map<string, { slot?: Slot; external?: string }>();
  private lits = 0;
  /** The base class of the class being read: `super(...)` calls its constructor. */
  private baseClass: string | undefined;

  constructor(
    private readonly file: string,
    private readonly sf: SourceFile,
    private readonly facts: Facts,
    private readonly resolver: ModuleResolver,
    private readonly exports: Map<string, ExportTable>,
  ) {
    this.key = moduleKey(file);
  }

  read(): void {
    for (const imp of this.sf.getImportDeclarations()) {
      if (imp.isTypeOnly()) continue;
      const spec = imp.getModuleSpecifierValue();
      const target = this.resolver.resolve(this.file, spec);
      const ns = imp.getNamespaceImport()?.getText();
      if (ns) this.imported.set(ns, target ? { slot: `@ns:${target}` } : { external: spec });
      const def = imp.getDefaultImport()?.getText();
      if (def) this.imported.set(def, target ? this.importSlot(target, "default") : { external: spec });
      for (const n of imp.getNamedImports()) {
        if (n.isTypeOnly()) continue;
        const local = n.getAliasNode()?.getText() ?? n.getName();
        this.imported.set(local, target ? this.importSlot(target, n.getName()) : { external: spec });
      }
    }
    const top = this.newFn(this.sf, "module", undefined, undefined, ":module");
    this.withScope(top, undefined, () => {
      for (const stmt of this.sf.getStatements()) this.visit(stmt, true);
    });
  }

  private importSlot(target: string, name: string): { slot?: Slot } {
    const slot = resolveExport(this.exports, target, name);
    return slot ? { slot } : {};
  }

  private loc(node: Node) {
    return { file: this.file, line: node.getStartLineNumber() };
  }

  private nodeId(node: Node): string {
    const { line, column } = this.sf.getLineAndColumnAtPos(node.getStart());
    return `${this.file}:${line}:${column}`;
  }

  private newFn(node: Node, name: string, owner: string | undefined, role?: string, idSuffix = ""): FnFact {
    const fn: FnFact = {
      id: `${this.nodeId(node)}${idSuffix}`,
      name,
      loc: this.loc(node),
      lang: "ts",
      params: 0,
      paramNames: [],
      loops: [],
      assigns: [],
      ...(owner ? { owner } : {}),
      ...(this.scope ? { parent: this.scope.fn.id } : {}),
      ...(role ? { role } : {}),
    };
    this.facts.fns.push(fn);
    return fn;
  }

  private withScope(fn: FnFact, thisSlot: Slot | undefined, body: (scope: Scope) => void): void {
    const scope: Scope = { fn, names: new Map(), loopDepth: 0, temps: 0, ...(thisSlot ? { thisSlot } : {}), ...(this.scope ? { parent: this.scope } : {}) };
    const saved = this.scope;
    this.scope = scope;
    try {
      body(scope);
    } finally {
      this.scope = saved;
    }
  }

  private temp(): Slot {
    return `${this.scope!.fn.id}~${this.scope!.temps++}`;
  }

  private alloc(v: string): Slot {
    const t = this.temp();
    this.facts.constraints.push({ c: "alloc", dst: t, v });
    return t;
  }

  private lookup(name: string): Slot | undefined {
    for (let s = this.scope; s; s = s.parent) {
      const slot = s.names.get(name);
      if (slot) return slot;
    }
    return undefined;
  }

  private isLocal(name: string): boolean {
    for (let s = this.scope; s && s.parent; s = s.parent) if (s.names.has(name)) return true;
    return false;
  }

  private thisSlot(): Slot | undefined {
    for (let s = this.scope; s; s = s.parent) if (s.thisSlot) return s.thisSlot;
    return undefined;
  }

  private slotOfName(name: string): Slot | undefined {
    const local = this.lookup(name);
    if (local) return local;
    const imp = this.imported.get(name);
    if (imp) {
      if (!imp.slot) return undefined;
      if (imp.slot.startsWith("@ns:")) return this.alloc(`m|${moduleKey(imp.slot.slice(4))}`);
      return imp.slot;
    }
    if (name === "undefined") return undefined;
    return `${this.key}.${name}`;
  }

  private declare(name: string, topLevel: boolean): Slot {
    const slot = topLevel ? `${this.key}.${name}` : `${this.scope!.fn.id}$${name}`;
    this.scope!.names.set(name, slot);
    return slot;
  }

  // ---- declarations and statements ----

  private visit(node: Node, topLevel = false): void {
    if (Node.isFunctionDeclaration(node)) {
      const name = node.getName() ?? "default";
      const slot = this.functionLike(node, name, undefined);
      const dst = this.declare(name, topLevel);
      this.facts.constraints.push({ c: "copy", dst, src: slot });
      return;
    }
    if (Node.isClassDeclaration(node)) {
      this.classDeclaration(node, topLevel);
      return;
    }
    if (Node.isVariableStatement(node)) {
      for (const d of node.getDeclarations()) this.variable(d, topLevel);
      return;
    }
    if (Node.isReturnStatement(node)) {
      const e = node.getExpression();
      const slot = e ? this.expr(e) : undefined;
      if (slot) this.facts.constraints.push({ c: "copy", dst: `${this.scope!.fn.id}#ret`, src: slot });
      return;
    }
    if (Node.isInterfaceDeclaration(node) || Node.isTypeAliasDeclaration(node) || Node.isImportDeclaration(node) || Node.isExportDeclaration(node)) return;
    if (LOOPS.has(node.getKind())) {
      const scope = this.scope!;
      scope.fn.loops.push([node.getStartLineNumber(), node.getEndLineNumber()]);
      scope.loopDepth++;
      try {
        if (Node.isForOfStatement(node)) {
          const src = this.expr(node.getExpression());
          const init = node.getInitializer();
          if (Node.isVariableDeclarationList(init)) for (const d of init.getDeclarations()) this.bindName(d.getNameNode(), src ? { src, field: undefined } : undefined, false);
          this.visit(node.getStatement());
        } else {
          node.forEachChild((c) => this.visit(c));
        }
      } finally {
        scope.loopDepth--;
      }
      return;
    }
    if (Node.isExpression(node)) {
      this.expr(node);
      return;
    }
    node.forEachChild((c) => this.visit(c));
  }

  private variable(d: import("ts-morph").VariableDeclaration, topLevel: boolean): void {
    const init = d.getInitializer();
    const nameNode = d.getNameNode();
    const role = Node.isIdentifier(nameNode) ? nameNode.getText() : undefined;
    const src = init ? this.expr(init, role) : undefined;
    const lastCall = init ? this.lastCallOf(init) : undefined;
    this.bindName(nameNode, src ? { src, field: undefined } : undefined, topLevel);
    this.scope!.fn.assigns.push({
      lhs: boundNames(nameNode),
      rhsIdents: init ? identsIn(init) : [],
      ...(lastCall ? { rhsCall: lastCall } : {}),
      line: d.getStartLineNumber(),
    });
  }

  /** The id of the call an initialiser is (through await, parentheses and casts). */
  private lastCallOf(init: Node): string | undefined {
    let e: Node = init;
    while (Node.isAwaitExpression(e) || Node.isParenthesizedExpression(e) || Node.isAsExpression(e) || Node.isNonNullExpression(e)) e = e.getExpression();
    return Node.isCallExpression(e) ? this.nodeId(e) : undefined;
  }

  /** Binds a name or a destructuring pattern to what `from` holds. */
  private bindName(nameNode: Node, from: { src: Slot; field: string | undefined } | undefined, topLevel: boolean): void {
    if (Node.isIdentifier(nameNode)) {
      const dst = this.declare(nameNode.getText(), topLevel);
      if (from) this.facts.constraints.push(from.field === undefined ? { c: "copy", dst, src: from.src } : { c: "load", dst, base: from.src, field: from.field });
      return;
    }
    if (Node.isObjectBindingPattern(nameNode)) {
      let base = from?.src;
      if (from && from.field !== undefined) {
        base = this.temp();
        this.facts.constraints.push({ c: "load", dst: base, base: from.src, field: from.field });
      }
      for (const el of nameNode.getElements()) {
        if (el.getDotDotDotToken()) {
          this.bindName(el.getNameNode(), base ? { src: base, field: undefined } : undefined, topLevel);
          continue;
        }
        const prop = el.getPropertyNameNode()?.getText() ?? el.getNameNode().getText();
        this.bindName(el.getNameNode(), base ? { src: base, field: prop } : undefined, topLevel);
      }
      return;
    }
    if (Node.isArrayBindingPattern(nameNode)) {
      for (const el of nameNode.getElements()) if (Node.isBindingElement(el)) this.bindName(el.getNameNode(), undefined, topLevel);
    }
  }

  private classDeclaration(node: import("ts-morph").ClassDeclaration, topLevel: boolean): void {
    const name = node.getName() ?? "default";
    const typeKey = `${this.key}.${name}`;
    const dst = this.declare(name, topLevel);
    this.facts.constraints.push({ c: "alloc", dst, v: `c|${typeKey}` });
    if (dst !== typeKey) this.facts.constraints.push({ c: "alloc", dst: typeKey, v: `c|${typeKey}` });
    const methods: string[] = [];
    const base = node.getExtends()?.getExpression();
    const baseSlot = base && Node.isIdentifier(base) ? this.slotOfName(base.getText()) : undefined;
    const baseKey = baseSlot && !/[#$~]/.test(baseSlot) ? baseSlot : undefined;
    const savedBase = this.baseClass;
    this.baseClass = baseKey;
    for (const m of node.getMethods()) {
      methods.push(m.getName());
      if (!m.getBody()) continue; // abstract or an overload signature: nothing to run
      const slot = this.functionLike(m, `${name}.${m.getName()}`, typeKey);
      this.facts.constraints.push({ c: "copy", dst: `${typeKey}.${m.getName()}`, src: slot });
    }
    const ctor = node.getConstructors()[0];
    // Field initialisers run as part of construction: lower them inside the constructor's scope.
    const initFields = (thisSlot: Slot) => {
      for (const p of node.getProperties()) {
        const init = p.getInitializer();
        if (!init || p.isStatic()) continue;
        const src = this.expr(init, p.getName());
        if (src) this.facts.constraints.push({ c: "store", base: thisSlot, field: p.getName(), src });
      }
    };
    if (ctor) {
      const slot = this.functionLike(ctor, `${name}.constructor`, typeKey, initFields);
      this.facts.constraints.push({ c: "copy", dst: `${typeKey}.constructor`, src: slot });
    } else {
      const fn = this.newFn(node, `${name}.constructor`, typeKey, undefined, ":constructor");
      this.withScope(fn, `${fn.id}#this`, () => {
        this.facts.constraints.push({ c: "alloc", dst: `${fn.id}#this`, v: `o|${typeKey}` });
        initFields(`${fn.id}#this`);
      });
      this.facts.constraints.push({ c: "alloc", dst: `${typeKey}.constructor`, v: `f|${fn.id}` });
    }
    this.baseClass = savedBase;
    // A base class's methods and fields are this class's too (promotions in the linker).
    const fields = [...node.getProperties().map((p) => p.getName()), ...(node.getConstructors()[0]?.getParameters().filter((p) => p.isParameterProperty()).map((p) => p.getName()) ?? [])];
    this.facts.types.push({ key: typeKey, name, loc: this.loc(node), methods, hasChannel: false, fields, ...(baseKey ? { embeds: [baseKey] } : {}) });
  }

  private functionLike(node: Node, name: string, owner: string | undefined, prelude?: (thisSlot: Slot) => void, role?: string): Slot {
    const fn = this.newFn(node, name, owner, role);
    const isArrow = Node.isArrowFunction(node);
    const thisSlot = owner ? `${fn.id}#this` : isArrow ? undefined : `${fn.id}#this`;
    if (owner) this.facts.constraints.push({ c: "alloc", dst: `${fn.id}#this`, v: `o|${owner}` });
    this.withScope(fn, thisSlot, (scope) => {
      const params = (node as unknown as { getParameters?: () => import("ts-morph").ParameterDeclaration[] }).getParameters?.() ?? [];
      params.forEach((p, i) => {
        const slot = `${fn.id}#p${i}`;
        this.bindName(p.getNameNode(), { src: slot, field: undefined }, false);
        if (Node.isIdentifier(p.getNameNode())) scope.names.set(p.getName(), slot);
        fn.paramNames.push(...boundNames(p.getNameNode()));
        const init = p.getInitializer();
        if (init) {
          const src = this.expr(init);
          if (src) this.facts.constraints.push({ c: "copy", dst: slot, src });
        }
        if (p.isParameterProperty() && thisSlot) this.facts.constraints.push({ c: "store", base: thisSlot, field: p.getName(), src: slot });
      });
      fn.params = params.length;
      if (prelude && thisSlot) prelude(thisSlot);
      const body = (node as unknown as { getBody?: () => Node | undefined }).getBody?.();
      if (!body) return;
      if (Node.isBlock(body)) for (const stmt of body.getStatements()) this.visit(stmt);
      else {
        const slot = this.expr(body);
        if (slot) this.facts.constraints.push({ c: "copy", dst: `${fn.id}#ret`, src: slot });
      }
    });
    return this.alloc(`f|${fn.id}`);
  }

  // ---- expressions ----

  private expr(node: Node, role?: string): Slot | undefined {
    if (Node.isIdentifier(node)) return this.slotOfName(node.getText());
    if (node.getKind() === SyntaxKind.ThisKeyword) return this.thisSlot();
    if (Node.isParenthesizedExpression(node) || Node.isAwaitExpression(node) || Node.isAsExpression(node) || Node.isNonNullExpression(node) || Node.isTypeAssertion(node) || Node.isSatisfiesExpression(node)) {
      return this.expr(node.getExpression(), role);
    }
    if (Node.isPropertyAccessExpression(node)) {
      const direct = this.namespaceMember(node);
      if (direct !== undefined) return direct || undefined;
      const base = this.expr(node.getExpression());
      if (!base) return undefined;
      const t = this.temp();
      this.facts.constraints.push({ c: "load", dst: t, base, field: node.getName() });
      return t;
    }
    if (Node.isCallExpression(node)) return this.call(node);
    if (Node.isNewExpression(node)) return this.newExpression(node);
    if (Node.isArrowFunction(node) || Node.isFunctionExpression(node)) return this.functionLike(node, role ? `${role} (arrow)` : "arrow function", undefined, undefined, role);
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
      if (op === SyntaxKind.QuestionQuestionToken || op === SyntaxKind.BarBarToken || op === SyntaxKind.AmpersandAmpersandToken) return this.join([left, right]);
      return undefined;
    }
    node.forEachChild((c) => {
      if (Node.isExpression(c)) this.expr(c);
      else this.visit(c);
    });
    return undefined;
  }

  private join(slots: (Slot | undefined)[]): Slot | undefined {
    const present = slots.filter((s): s is Slot => s !== undefined);
    if (present.length <= 1) return present[0];
    const t = this.temp();
    for (const src of present) this.facts.constraints.push({ c: "copy", dst: t, src });
    return t;
  }

  private assign(left: Node, right: Node): Slot | undefined {
    const src = this.expr(right, Node.isPropertyAccessExpression(left) ? left.getName() : undefined);
    if (Node.isPropertyAccessExpression(left)) {
      const base = this.expr(left.getExpression());
      if (base && src) this.facts.constraints.push({ c: "store", base, field: left.getName(), src });
    } else if (Node.isIdentifier(left)) {
      const dst = this.lookup(left.getText()) ?? `${this.key}.${left.getText()}`;
      if (src) this.facts.constraints.push({ c: "copy", dst, src });
      this.scope!.fn.assigns.push({ lhs: [left.getText()], rhsIdents: identsIn(right), line: left.getStartLineNumber() });
    }
    return src;
  }

  private objectLiteral(node: import("ts-morph").ObjectLiteralExpression): Slot {
    const t = this.alloc(`l|${this.nodeId(node)}#${this.lits++}`);
    this.objectProperties(node, t);
    return t;
  }

  private objectProperties(node: import("ts-morph").ObjectLiteralExpression, t: Slot): void {
    for (const p of node.getProperties()) {
      if (Node.isPropertyAssignment(p)) {
        const init = p.getInitializer();
        const src = init ? this.expr(init, p.getName()) : undefined;
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

  /**
   * `rt.newRateLimitingQueue` with `import * as rt from "<explored module>"`: the exported name's own slot, found through
   * the module's re-exports. Undefined when the base is not such a namespace; "" when the name is not exported there.
   */
  private namespaceMember(node: import("ts-morph").PropertyAccessExpression): Slot | "" | undefined {
    const base = node.getExpression();
    if (!Node.isIdentifier(base) || this.lookup(base.getText())) return undefined;
    const slot = this.imported.get(base.getText())?.slot;
    if (!slot?.startsWith("@ns:")) return undefined;
    return resolveExport(this.exports, slot.slice(4), node.getName()) ?? "";
  }

  /** `queue` or `config.queue` where `queue`/`config` is a parameter of this or an enclosing function. */
  private paramRoot(expr: Node): CallFact["recvParam"] {
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

  private newExpression(node: import("ts-morph").NewExpression): Slot {
    const clsNode = node.getExpression();
    const cls = this.expr(clsNode);
    const args = node.getArguments().map((a) => this.expr(a) ?? this.temp());
    const ret = this.temp();
    const name = clsNode.getText();
    const fact: CallFact = {
      id: this.nodeId(node),
      fn: this.scope!.fn.id,
      loc: this.loc(node),
      method: `new ${name}`,
      text: `new ${name}`,
      callee: cls ?? this.temp(),
      args,
      ret,
      argIdents: node.getArguments().flatMap((a) => identsIn(a)),
      argTexts: node.getArguments().map((a) => oneLine(a.getText())),
      keyed: keyedIn(node.getArguments()),
      strings: node.getArguments().flatMap((a) => (Node.isStringLiteral(a) ? [a.getLiteralText()] : [])),
      inLoop: this.scope!.loopDepth > 0,
      dynamic: false,
      tail: isTail(node),
    };
    const external = Node.isIdentifier(clsNode) ? this.imported.get(name)?.external : undefined;
    if (external) fact.qualifier = external;
    const typeArg = node.getTypeArguments()[0]?.getText();
    if (/Informer$/.test(name) && typeArg) fact.informer = { kind: /^(KubernetesObject|[A-Z])$/.test(typeArg) ? "(kind set at run time)" : typeArg, via: `new ${name}` };
    this.facts.calls.push(fact);
    if (cls) this.facts.constraints.push({ c: "new", cls, args, ret });
    return ret;
  }

  private call(node: import("ts-morph").CallExpression): Slot {
    const scope = this.scope!;
    let calleeNode: Node = node.getExpression();
    while (Node.isParenthesizedExpression(calleeNode) || Node.isNonNullExpression(calleeNode)) calleeNode = calleeNode.getExpression();
    let method = calleeNode.getText();
    let recv: Slot | undefined;
    let callee: Slot | undefined;
    let dynamic = false;
    let qualifier: string | undefined;
    let recvParam: CallFact["recvParam"];
    const nsMember = Node.isPropertyAccessExpression(calleeNode) ? this.namespaceMember(calleeNode) : undefined;
    if (nsMember !== undefined && Node.isPropertyAccessExpression(calleeNode)) {
      method = calleeNode.getName();
      callee = nsMember || undefined;
    } else if (Node.isPropertyAccessExpression(calleeNode)) {
      method = calleeNode.getName();
      recv = this.expr(calleeNode.getExpression());
      dynamic = true;
      recvParam = this.paramRoot(calleeNode.getExpression());
      const baseName = calleeNode.getExpression();
      if (Node.isIdentifier(baseName) && !this.isLocal(baseName.getText()) && this.imported.get(baseName.getText())?.external) qualifier = this.imported.get(baseName.getText())!.external;
      if (recv) {
        callee = this.temp();
        this.facts.constraints.push({ c: "load", dst: callee, base: recv, field: method });
      }
    } else if (calleeNode.getKind() === SyntaxKind.SuperKeyword) {
      method = "super";
      if (this.baseClass) callee = `${this.baseClass}.constructor`;
    } else if (Node.isIdentifier(calleeNode)) {
      callee = this.slotOfName(method);
      dynamic = this.isLocal(method);
      qualifier = this.imported.get(method)?.external;
    } else {
      callee = this.expr(calleeNode);
      dynamic = true;
    }
    const argNodes = node.getArguments();
    const args = argNodes.map((a) => this.expr(a) ?? this.temp());
    const ret = this.temp();
    const fact: CallFact = {
      id: this.nodeId(node),
      fn: scope.fn.id,
      loc: this.loc(node),
      method,
      text: oneLine(calleeNode.getText()),
      callee: callee ?? this.temp(),
      args,
      ret,
      argIdents: argNodes.flatMap((a) => identsIn(a)),
      argTexts: argNodes.map((a) => oneLine(a.getText())),
      keyed: keyedIn(argNodes),
      strings: argNodes.flatMap((a) => (Node.isStringLiteral(a) ? [a.getLiteralText()] : [])),
      inLoop: scope.loopDepth > 0,
      dynamic,
      tail: isTail(node),
      ...(recv ? { recv } : {}),
      ...(qualifier ? { qualifier } : {}),
      ...(recvParam ? { recvParam } : {}),
    };
    // @kubernetes/client-node's makeInformer(kubeConfig, "/api/v1/namespaces/x/pods", listFn): the path names the kind.
    if (method === "makeInformer") {
      const resourcePath = fact.argTexts.map((t) => t.replace(/^[`'"]|[`'"]$/g, "")).find((t) => t.startsWith("/"));
      const plural = resourcePath?.split("/").filter(Boolean).at(-1);
      fact.informer = { kind: plural ? capitalize(singularKind(plural)) : "?", via: "makeInformer" };
    }
    this.facts.calls.push(fact);
    // An informer factory's informerFor(key, () => new Informer(...)) returns what its second argument makes (and only
    // that: following the factory's cache would mix up every informer made through it).
    if (method === "informerFor" && args[1]) this.facts.constraints.push({ c: "call", callee: args[1], args: [], ret });
    else if (callee) this.facts.constraints.push({ c: "call", callee, args, ret });
    return ret;
  }
}

/** The names a declaration binds: `x`, or every name of a destructuring pattern (`{ item: key }` binds key). */
function boundNames(nameNode: Node): string[] {
  if (Node.isIdentifier(nameNode)) return [nameNode.getText()];
  if (Node.isObjectBindingPattern(nameNode) || Node.isArrayBindingPattern(nameNode)) {
    return nameNode.getElements().flatMap((el) => (Node.isBindingElement(el) ? boundNames(el.getNameNode()) : []));
  }
  return [];
}

function keyedIn(args: Node[]): Record<string, string> {
  const keyed: Record<string, string> = {};
  for (const a of args) {
    for (const p of Node.isPropertyAssignment(a) ? [a] : a.getDescendantsOfKind(SyntaxKind.PropertyAssignment)) {
      const init = p.getInitializer();
      if (!init || p.getName() in keyed) continue;
      keyed[p.getName()] = Node.isStringLiteral(init) ? JSON.stringify(init.getLiteralText()) : oneLine(init.getText());
    }
  }
  return keyed;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The call's value is returned, awaited as a statement, or is the statement itself. */
function isTail(call: Node): boolean {
  let p = call.getParent();
  while (p && (Node.isAwaitExpression(p) || Node.isParenthesizedExpression(p) || Node.isAsExpression(p) || Node.isNonNullExpression(p))) p = p.getParent();
  return !!p && (Node.isReturnStatement(p) || Node.isExpressionStatement(p) || Node.isArrowFunction(p));
}

function identsIn(node: Node): string[] {
  if (Node.isIdentifier(node)) return [node.getText()];
  return node.getDescendantsOfKind(SyntaxKind.Identifier).map((i) => i.getText());
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").replace(/([([{]) /g, "$1").replace(/,? ([)\]}])/g, "$1");
  return flat.length > 100 ? `${flat.slice(0, 97)}...` : flat;
}
