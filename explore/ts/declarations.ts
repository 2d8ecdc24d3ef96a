// A TypeScript file's imports, declarations and statements: variables, destructuring, classes, functions, loops.
import { Node } from "ts-morph";
import type { Slot } from "../facts.js";
import { resolveExport } from "./modules.js";
import { TsExpressionReader } from "./expressions.js";
import { LOOPS, boundNames, identsIn } from "./syntax.js";

/** Reads one TypeScript file into the facts. */
export class TsFileReader extends TsExpressionReader {
  read(): void {
    for (const imp of this.sf.getImportDeclarations()) {
      if (imp.isTypeOnly()) continue;
      const spec = imp.getModuleSpecifierValue();
      const target = this.resolver.resolve(this.file, spec);
      const ns = imp.getNamespaceImport()?.getText();
      if (ns) this.imported.set(ns, target ? { namespace: target } : { external: spec });
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

  private importSlot(target: string, name: string): { slot?: Slot; namespace?: string } {
    return resolveExport(this.exports, target, name) ?? {};
  }

  // ---- declarations and statements ----

  protected override visit(node: Node, topLevel = false): void {
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
    if (
      Node.isInterfaceDeclaration(node) ||
      Node.isTypeAliasDeclaration(node) ||
      Node.isImportDeclaration(node) ||
      Node.isExportDeclaration(node)
    )
      return;
    if (LOOPS.has(node.getKind())) {
      const scope = this.scope!;
      scope.fn.loops.push([this.lines.line(node.getStart()), this.lines.line(node.getEnd())]);
      scope.loopDepth++;
      try {
        if (Node.isForOfStatement(node)) {
          const src = this.expr(node.getExpression());
          const init = node.getInitializer();
          if (Node.isVariableDeclarationList(init))
            for (const d of init.getDeclarations())
              this.bindName(d.getNameNode(), src ? { src, field: undefined } : undefined, false);
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
      rhsCall: lastCall,
      line: this.lines.line(d.getStart()),
    });
  }

  /** The id of the call an initialiser is (through await, parentheses and casts). */
  private lastCallOf(init: Node): string | undefined {
    let e: Node = init;
    while (
      Node.isAwaitExpression(e) ||
      Node.isParenthesizedExpression(e) ||
      Node.isAsExpression(e) ||
      Node.isNonNullExpression(e)
    )
      e = e.getExpression();
    return Node.isCallExpression(e) ? this.callId(e) : undefined;
  }

  /** Binds a name or a destructuring pattern to what `from` holds. */
  private bindName(
    nameNode: Node,
    from: { src: Slot; field: string | undefined } | undefined,
    topLevel: boolean,
  ): void {
    if (Node.isIdentifier(nameNode)) {
      const dst = this.declare(nameNode.getText(), topLevel);
      if (from)
        this.facts.constraints.push(
          from.field === undefined
            ? { c: "copy", dst, src: from.src }
            : { c: "load", dst, base: from.src, field: from.field },
        );
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
      for (const el of nameNode.getElements())
        if (Node.isBindingElement(el)) this.bindName(el.getNameNode(), undefined, topLevel);
    }
  }

  private classDeclaration(node: import("ts-morph").ClassDeclaration, topLevel: boolean): void {
    const fnsBefore = this.facts.fns.length;
    const name = node.getName() ?? "default";
    const typeKey: Slot = `${this.key}.${name}`; // a class's type key is its package-level slot too
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
    const fields = [
      ...node.getProperties().map((p) => p.getName()),
      ...(node
        .getConstructors()[0]
        ?.getParameters()
        .filter((p) => p.isParameterProperty())
        .map((p) => p.getName()) ?? []),
    ];
    this.facts.types.push({
      key: typeKey,
      name,
      loc: this.loc(node),
      methods,
      hasChannel: false,
      ...this.typedClass(node, fnsBefore),
      fields,
      ...(baseKey ? { embeds: [baseKey] } : {}),
    });
  }

  /**
   * What the class is by type: a queue (typed-shapes.ts), or k8s-operator-node's Operator copied into the tree, whose
   * watch and event queue are the library's (each watchResource call of a subclass is a subscription: calls.ts).
   */
  private typedClass(node: import("ts-morph").ClassDeclaration, fnsBefore: number): { queueBy?: string } {
    if (this.shapes.isOperatorNodeClass(node)) for (const f of this.facts.fns.slice(fnsBefore)) f.library = true;
    const queueBy = this.shapes.queueClass(node);
    return queueBy ? { queueBy } : {};
  }

  protected override functionLike(
    node: Node,
    name: string,
    owner: string | undefined,
    prelude?: (thisSlot: Slot) => void,
    role?: string,
  ): Slot {
    const fn = this.newFn(node, name, owner, role);
    // A queue factory of the tree (typed-shapes.ts): each of its calls is the queue's construction site.
    if (this.shapes.queueFactory(node)) fn.library = true;
    const isArrow = Node.isArrowFunction(node);
    const thisSlot: Slot | undefined = owner ? `${fn.id}#this` : isArrow ? undefined : `${fn.id}#this`;
    if (owner) this.facts.constraints.push({ c: "alloc", dst: `${fn.id}#this`, v: `o|${owner}` });
    this.withScope(fn, thisSlot, (scope) => {
      const params =
        (node as unknown as { getParameters?: () => import("ts-morph").ParameterDeclaration[] }).getParameters?.() ??
        [];
      params.forEach((p, i) => {
        const slot: Slot = `${fn.id}#p${i}`;
        this.bindName(p.getNameNode(), { src: slot, field: undefined }, false);
        if (Node.isIdentifier(p.getNameNode())) scope.names.set(p.getName(), slot);
        fn.paramNames.push(...boundNames(p.getNameNode()));
        const init = p.getInitializer();
        if (init) {
          const src = this.expr(init);
          if (src) this.facts.constraints.push({ c: "copy", dst: slot, src });
        }
        if (p.isParameterProperty() && thisSlot)
          this.facts.constraints.push({ c: "store", base: thisSlot, field: p.getName(), src: slot });
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
}
