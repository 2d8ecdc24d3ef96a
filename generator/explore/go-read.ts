// Reads Go sources with tree-sitter's Go grammar (web-tree-sitter, WebAssembly: no native build) into the neutral facts.
// Packages are folders; import paths map to folders through the go.mod files found under the explored root.
import { createRequire } from "node:module";
import path from "node:path";
import { Language, Parser, type Node } from "web-tree-sitter";
import { type BuilderFact, type CallFact, type Facts, type FnFact, type Slot, type TypeFact, emptyFacts, singularKind } from "./facts.js";

const require = createRequire(import.meta.url);
let parserPromise: Promise<Parser> | undefined;

/** One parser for the process: loading the grammar costs more than parsing a file. */
function goParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    await Parser.init();
    const language = await Language.load(require.resolve("tree-sitter-go/tree-sitter-go.wasm"));
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return parserPromise;
}

export interface GoSource {
  /** Path relative to the explored root, "/"-separated. */
  file: string;
  text: string;
}

/** A go.mod found in the tree: its module path and the folder (relative, "" for the root) it sits in. */
export interface GoModule {
  modulePath: string;
  dir: string;
}

const pkgKeyOf = (dir: string) => `go:${dir}`;

/**
 * Modules whose informers, queues and handlers are the plumbing operators use, not an operator's own flow. They are
 * still read (values flow through them), but nothing in them is reported; their examples/ are operators and are.
 */
const LIBRARY_MODULES = new Set(["k8s.io/client-go", "sigs.k8s.io/controller-runtime", "k8s.io/apimachinery", "k8s.io/apiserver", "k8s.io/component-base", "k8s.io/utils"]);

function isLibraryFile(file: string, modules: GoModule[]): boolean {
  // Vendored copies have no go.mod of their own: vendor/<module path>/... names the module.
  const vendored = /(?:^|\/)vendor\/(.+)$/.exec(file)?.[1];
  if (vendored) return [...LIBRARY_MODULES].some((m) => vendored.startsWith(`${m}/`) && !vendored.slice(m.length + 1).startsWith("examples/"));
  // The innermost module holding the file decides.
  let best: GoModule | undefined;
  for (const m of modules) {
    const inside = m.dir === "" || file.startsWith(`${m.dir}/`);
    if (inside && (!best || m.dir.length > best.dir.length)) best = m;
  }
  if (!best || !LIBRARY_MODULES.has(best.modulePath)) return false;
  const rel = best.dir === "" ? file : file.slice(best.dir.length + 1);
  return !rel.startsWith("examples/");
}

/** Parses every Go file and returns their facts; types are completed with methods from every file of their package. */
export async function readGo(sources: GoSource[], modules: GoModule[]): Promise<Facts> {
  const parser = await goParser();
  const facts = emptyFacts();
  const types = new Map<string, TypeFact>();
  const methods = new Map<string, string[]>();
  for (const source of sources) {
    const tree = parser.parse(source.text);
    if (!tree) throw new Error(`${source.file}: the Go parser returned no tree`);
    try {
      if (tree.rootNode.hasError) {
        const bad = tree.rootNode.descendantsOfType("ERROR")[0];
        facts.warnings.push(`${source.file}:${(bad?.startPosition.row ?? 0) + 1}: Go syntax error; the rest of the file was read as far as the parser could`);
      }
      new GoFileReader(source.file, modules, facts, types, methods).read(tree.rootNode);
    } finally {
      tree.delete();
    }
  }
  for (const [key, type] of types) {
    type.methods = methods.get(key) ?? [];
    facts.types.push(type);
  }
  return facts;
}

interface Scope {
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

class GoFileReader {
  private readonly pkgKey: string;
  private readonly imports = new Map<string, { path: string; pkgKey?: string }>();
  private scope: Scope | undefined;
  private lits = 0;
  private readonly library: boolean;
  /** Identifier collectors: every identifier lowered while one is open is added to it (no second walk of the tree). */
  private readonly collectors: Set<string>[] = [];

  private collect<T>(body: () => T): [T, string[]] {
    const names = new Set<string>();
    this.collectors.push(names);
    try {
      return [body(), [...names]];
    } finally {
      this.collectors.pop();
    }
  }

  constructor(
    private readonly file: string,
    private readonly modules: GoModule[],
    private readonly facts: Facts,
    private readonly types: Map<string, TypeFact>,
    private readonly methods: Map<string, string[]>,
  ) {
    this.pkgKey = pkgKeyOf(path.posix.dirname(file) === "." ? "" : path.posix.dirname(file));
    this.library = isLibraryFile(file, modules);
  }

  read(root: Node): void {
    for (const node of root.namedChildren) {
      if (node.type === "import_declaration") this.readImports(node);
    }
    for (const node of root.namedChildren) {
      if (node.type === "type_declaration") this.readTypes(node);
      else if (node.type === "function_declaration" || node.type === "method_declaration") this.readFunction(node);
      else if (node.type === "var_declaration") this.readPackageVars(node);
    }
  }

  private readImports(decl: Node): void {
    for (const spec of decl.descendantsOfType("import_spec")) {
      const pathNode = spec.childForFieldName("path");
      if (!pathNode) continue;
      const importPath = pathNode.text.replace(/^["`]|["`]$/g, "");
      const alias = spec.childForFieldName("name")?.text ?? importPath.split("/").at(-1)!;
      if (alias === "_" || alias === ".") continue;
      const dir = this.dirOfImport(importPath);
      this.imports.set(alias, dir === undefined ? { path: importPath } : { path: importPath, pkgKey: pkgKeyOf(dir) });
    }
  }

  /** The folder of an import path inside the explored tree, or undefined for packages from elsewhere. */
  private dirOfImport(importPath: string): string | undefined {
    for (const m of this.modules) {
      if (importPath === m.modulePath) return m.dir;
      if (importPath.startsWith(`${m.modulePath}/`)) return path.posix.join(m.dir, importPath.slice(m.modulePath.length + 1));
    }
    return undefined;
  }

  private readTypes(decl: Node): void {
    for (const spec of decl.descendantsOfType("type_spec")) {
      const name = spec.childForFieldName("name")?.text;
      const type = spec.childForFieldName("type");
      if (!name || !type) continue;
      const key = `${this.pkgKey}.${name}`;
      const hasChannel = type.type === "struct_type" && type.descendantsOfType("channel_type").length > 0;
      const fields: string[] = [];
      const embeds: string[] = [];
      if (type.type === "struct_type") {
        for (const field of type.descendantsOfType("field_declaration")) {
          if (field.parent?.parent?.id !== type.id) continue; // fields of nested anonymous structs are not this type's
          const names = field.childrenForFieldName("name").filter((n): n is Node => n !== null);
          if (names.length) fields.push(...names.map((n) => n.text));
          else {
            // An embedded field: *base.Controller or Controller; its fields and methods are promoted.
            const embedded = field.childForFieldName("type");
            const inner = embedded?.type === "pointer_type" ? embedded.namedChildren[0] : embedded;
            const embeddedKey = this.typeKeyOf(inner ?? null);
            if (embeddedKey) embeds.push(embeddedKey);
          }
        }
      }
      this.types.set(key, { key, name, loc: this.loc(spec), methods: [], hasChannel, fields, embeds });
    }
  }

  private readPackageVars(decl: Node): void {
    // Package-level variables: lowered in a pseudo function per file so their initialisers take part.
    const fn = this.newFn(decl, "package variables", undefined);
    this.withScope(fn, () => {
      for (const spec of decl.descendantsOfType("var_spec")) this.varSpec(spec, (name) => `${this.pkgKey}.${name}`);
    });
  }

  private loc(node: Node) {
    return { file: this.file, line: node.startPosition.row + 1 };
  }

  private newFn(node: Node, name: string, owner: string | undefined, role?: string): FnFact {
    const fn: FnFact = {
      id: `${this.file}:${node.startPosition.row + 1}:${node.startPosition.column + 1}`,
      name,
      loc: this.loc(node),
      lang: "go",
      params: 0,
      paramNames: [],
      loops: [],
      assigns: [],
      ...(owner ? { owner } : {}),
      ...(this.scope ? { parent: this.scope.fn.id } : {}),
      ...(role ? { role } : {}),
      ...(this.library ? { library: true } : {}),
    };
    this.facts.fns.push(fn);
    return fn;
  }

  private withScope<T>(fn: FnFact, body: (scope: Scope) => T): T {
    const scope: Scope = { fn, names: new Map(), paramTypes: new Map(), inits: new Map(), allInits: new Map(), loopDepth: 0, temps: 0, ...(this.scope ? { parent: this.scope } : {}) };
    const saved = this.scope;
    this.scope = scope;
    try {
      return body(scope);
    } finally {
      this.scope = saved;
    }
  }

  private readFunction(node: Node): void {
    const name = node.childForFieldName("name")?.text ?? "func";
    let owner: string | undefined;
    let receiverName: string | undefined;
    let display = name;
    if (node.type === "method_declaration") {
      const receiver = node.childForFieldName("receiver")?.namedChildren.find((c) => c.type === "parameter_declaration");
      const typeNode = receiver?.childForFieldName("type");
      const pointer = typeNode?.type === "pointer_type";
      const typeName = typeNode?.descendantsOfType("type_identifier")[0]?.text ?? typeNode?.text ?? "?";
      owner = `${this.pkgKey}.${typeName}`;
      receiverName = receiver?.childForFieldName("name")?.text;
      display = `(${pointer ? "*" : ""}${typeName}).${name}`;
      const list = this.methods.get(owner) ?? [];
      list.push(name);
      this.methods.set(owner, list);
    }
    const fn = this.newFn(node, display, owner);
    if (owner) {
      this.facts.constraints.push({ c: "alloc", dst: `${owner}.${name}`, v: `f|${fn.id}` });
    } else {
      this.facts.constraints.push({ c: "alloc", dst: `${this.pkgKey}.${name}`, v: `f|${fn.id}` });
    }
    this.withScope(fn, (scope) => {
      if (owner) {
        this.facts.constraints.push({ c: "alloc", dst: `${fn.id}#this`, v: `o|${owner}` });
        if (receiverName) scope.names.set(receiverName, `${fn.id}#this`);
      }
      this.readParams(node.childForFieldName("parameters"), scope);
      this.readResults(node.childForFieldName("result"), scope);
      const body = node.childForFieldName("body");
      if (body) this.visit(body);
    });
  }

  private readParams(params: Node | null, scope: Scope): void {
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
        if (!n) continue;
        scope.names.set(n.text, `${scope.fn.id}#p${index}`);
        scope.fn.paramNames.push(n.text);
        if (type) scope.paramTypes.set(n.text, type);
        index++;
      }
    }
    scope.fn.params = index;
  }

  /** Named results are locals that a bare return returns. */
  private readResults(result: Node | null, scope: Scope): void {
    if (!result || result.type !== "parameter_list") return;
    for (const decl of result.namedChildren) {
      for (const n of decl.childrenForFieldName("name")) if (n) scope.names.set(n.text, `${scope.fn.id}$${n.text}`);
    }
  }

  private temp(): Slot {
    const scope = this.scope!;
    return `${scope.fn.id}~${scope.temps++}`;
  }

  private lookup(name: string): Slot | undefined {
    for (let s = this.scope; s; s = s.parent) {
      const slot = s.names.get(name);
      if (slot) return slot;
    }
    return undefined;
  }

  /** The slot of a name: a local, a parameter, a captured variable, or a package-level name. */
  private slotOfName(name: string): Slot | undefined {
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

  private isLocalName(name: string): boolean {
    return this.lookup(name) !== undefined;
  }

  // ---- statements ----

  private visit(node: Node): void {
    switch (node.type) {
      case "short_var_declaration":
      case "assignment_statement":
        this.assignment(node);
        return;
      case "var_declaration":
        for (const spec of node.descendantsOfType("var_spec")) this.varSpec(spec, (name) => this.declare(name));
        return;
      case "return_statement": {
        const list = node.namedChildren[0];
        const first = list?.type === "expression_list" ? list.namedChildren[0] : list;
        const slot = first ? this.expr(first) : undefined;
        for (const other of list?.type === "expression_list" ? list.namedChildren.slice(1) : []) this.expr(other);
        if (slot) this.facts.constraints.push({ c: "copy", dst: `${this.scope!.fn.id}#ret`, src: slot });
        return;
      }
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
              if (id?.type === "identifier") {
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

  private declare(name: string): Slot {
    const slot = `${this.scope!.fn.id}$${name}`;
    this.scope!.names.set(name, slot);
    return slot;
  }

  private varSpec(spec: Node, slotFor: (name: string) => Slot): void {
    const names = spec.childrenForFieldName("name").filter((n): n is Node => n !== null);
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

  private assignment(node: Node): void {
    const scope = this.scope!;
    const left = node.childForFieldName("left");
    const right = node.childForFieldName("right");
    const lefts = left?.type === "expression_list" ? left.namedChildren : left ? [left] : [];
    const rights = right?.type === "expression_list" ? right.namedChildren : right ? [right] : [];
    const declaring = node.type === "short_var_declaration";
    const [rhsSlots, rhsIdents] = this.collect(() => rights.map((r) => this.expr(r)));
    const rhsCall = rights.length === 1 && rights[0] ? this.lastCallId : undefined;
    const rhsIsCall = rights.length === 1 && rights[0]?.type === "call_expression";
    lefts.forEach((l, i) => {
      if (!l) return;
      // `a, b := f()`: the first result is the one that matters for queues, informers and watches.
      const src = rights.length === lefts.length ? rhsSlots[i] : i === 0 ? rhsSlots[0] : undefined;
      const rhsNode = rights.length === lefts.length ? rights[i] : rights[0];
      if (l.type === "identifier") {
        if (l.text === "_") return;
        const dst = declaring && !scope.names.has(l.text) ? this.declare(l.text) : (this.lookup(l.text) ?? this.declare(l.text));
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
      lhs: lefts.filter((l): l is Node => l?.type === "identifier").map((l) => l.text),
      rhsIdents,
      ...(rhsIsCall && rhsCall ? { rhsCall } : {}),
      line: node.startPosition.row + 1,
    });
  }

  // ---- expressions ----

  private lastCallId: string | undefined;

  private expr(node: Node): Slot | undefined {
    switch (node.type) {
      case "identifier":
        for (const c of this.collectors) c.add(node.text);
        return this.slotOfName(node.text);
      case "type_conversion_expression": {
        const call = this.genericCall(node);
        if (call) return call;
        const inner = node.childForFieldName("operand");
        return inner ? this.expr(inner) : undefined;
      }
      case "parenthesized_expression":
      case "unary_expression":
      case "type_assertion_expression": {
        const inner = node.childForFieldName("operand") ?? node.namedChildren[0];
        const slot = inner ? this.expr(inner) : undefined;
        for (const c of node.namedChildren) if (c !== inner && isExpression(c.type)) this.expr(c);
        return slot;
      }
      case "selector_expression": {
        const operand = node.childForFieldName("operand")!;
        const field = node.childForFieldName("field")!.text;
        if (operand.type === "identifier" && !this.isLocalName(operand.text) && this.imports.has(operand.text)) {
          const imp = this.imports.get(operand.text)!;
          return imp.pkgKey ? `${imp.pkgKey}.${field}` : undefined;
        }
        const base = this.expr(operand);
        if (!base) return undefined;
        const t = this.temp();
        this.facts.constraints.push({ c: "load", dst: t, base, field });
        return t;
      }
      case "call_expression":
        return this.call(node);
      case "func_literal":
        return this.funcLiteral(node);
      case "composite_literal":
        return this.compositeLiteral(node);
      default:
        for (const c of node.namedChildren) {
          if (isExpression(c.type)) this.expr(c);
          else if (c.type === "literal_value") this.literalValue(c, undefined);
        }
        return undefined;
    }
  }

  private funcLiteral(node: Node, role?: string): Slot {
    const fn = this.newFn(node, "func literal", undefined, role);
    this.withScope(fn, (scope) => {
      this.readParams(node.childForFieldName("parameters"), scope);
      this.readResults(node.childForFieldName("result"), scope);
      const body = node.childForFieldName("body");
      if (body) this.visit(body);
    });
    const t = this.temp();
    this.facts.constraints.push({ c: "alloc", dst: t, v: `f|${fn.id}` });
    return t;
  }

  /** The key of a named type as written (`Controller`, `pkg.Type` from a package of the tree), or undefined. */
  private typeKeyOf(typeNode: Node | null): string | undefined {
    if (!typeNode) return undefined;
    if (typeNode.type === "type_identifier") return `${this.pkgKey}.${typeNode.text}`;
    if (typeNode.type === "qualified_type") {
      const pkg = this.imports.get(typeNode.childForFieldName("package")?.text ?? "");
      const name = typeNode.childForFieldName("name")?.text;
      return pkg?.pkgKey && name ? `${pkg.pkgKey}.${name}` : undefined;
    }
    if (typeNode.type === "generic_type") return this.typeKeyOf(typeNode.childForFieldName("type"));
    return undefined;
  }

  private compositeLiteral(node: Node): Slot {
    const typeKey = this.typeKeyOf(node.childForFieldName("type"));
    const t = this.temp();
    this.facts.constraints.push({ c: "alloc", dst: t, v: typeKey ? `o|${typeKey}` : `l|${this.file}:${node.startPosition.row + 1}:${node.startPosition.column + 1}#${this.lits++}` });
    const body = node.childForFieldName("body");
    if (body) this.literalValue(body, t);
    return t;
  }

  /** `{Key: value, ...}`: stores into the literal; nested `{...}` elements without a type become literals too. */
  private literalValue(body: Node, target: Slot | undefined): void {
    for (const el of body.namedChildren) {
      if (el.type === "keyed_element") {
        const [keyEl, valueEl] = el.namedChildren;
        const key = keyEl?.namedChildren[0] ?? keyEl;
        const value = valueEl?.namedChildren[0] ?? valueEl;
        if (!value) continue;
        const slot = value.type === "func_literal" ? this.funcLiteral(value, key?.text) : this.elementValue(value);
        if (target && key && key.type === "identifier" && slot) this.facts.constraints.push({ c: "store", base: target, field: key.text, src: slot });
      } else {
        const value = el.namedChildren[0] ?? el;
        this.elementValue(value);
      }
    }
  }

  private elementValue(value: Node): Slot | undefined {
    if (value.type === "literal_value") {
      const t = this.temp();
      this.facts.constraints.push({ c: "alloc", dst: t, v: `l|${this.file}:${value.startPosition.row + 1}:${value.startPosition.column + 1}#${this.lits++}` });
      this.literalValue(value, t);
      return t;
    }
    return isExpression(value.type) ? this.expr(value) : undefined;
  }

  private call(node: Node): Slot {
    let fnNode = node.childForFieldName("function")!;
    while (fnNode.type === "index_expression" || fnNode.type === "generic_type" || fnNode.type === "parenthesized_expression") {
      fnNode = fnNode.childForFieldName("operand") ?? fnNode.childForFieldName("type") ?? fnNode.namedChildren[0]!;
    }
    const argsNode = node.childForFieldName("arguments");
    const argNodes = argsNode ? argsNode.namedChildren.filter((a) => isExpression(a.type) || a.type === "func_literal") : [];
    return this.callWith(node, fnNode, argNodes);
  }

  /** `pkg.F[T](x)` parses as a conversion to a generic type; with a function of that name it is a call (workqueue.NewTyped...[T](rl)). */
  private genericCall(node: Node): Slot | undefined {
    const type = node.childForFieldName("type");
    const operand = node.childForFieldName("operand");
    if (type?.type !== "generic_type" || !operand) return undefined;
    const inner = type.childForFieldName("type");
    if (!inner || (inner.type !== "qualified_type" && inner.type !== "type_identifier")) return undefined;
    return this.callWith(node, inner, [operand]);
  }

  private callWith(node: Node, fnNode: Node, argNodes: Node[]): Slot {
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
          scope.fn && this.facts.constraints.push({ c: "load", dst: callee, base: recv, field: method });
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
    const id = `${this.file}:${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
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
      argTexts: mayMakeQueue ? argNodes.map((a) => oneLine(a.type === "identifier" ? (this.initOf(a.text)?.text ?? a.text) : a.text)) : [],
      keyed: mayMakeQueue ? keyedIn(argNodes) : {},
      strings: argNodes.flatMap((a) => (a.type === "interpreted_string_literal" ? [a.text.slice(1, -1)] : [])),
      inLoop: scope.loopDepth > 0,
      dynamic,
      tail: isTail(node),
      ...(recv ? { recv } : {}),
      ...(qualifier ? { qualifier } : {}),
      ...(recvParam ? { recvParam } : {}),
    };
    this.recogniseInformer(fact, fnNode, argNodes, qualifier);
    this.facts.calls.push(fact);
    if (callee) this.facts.constraints.push({ c: "call", callee, args, ret });
    this.recogniseBuilder(node, fact);
    this.recogniseControllerNew(node, fact, argNodes);
    this.lastCallId = id;
    return ret;
  }

  private setInit(name: string, value: Node): void {
    const scope = this.scope!;
    scope.inits.set(name, value);
    const all = scope.allInits.get(name) ?? [];
    all.push(value);
    scope.allInits.set(name, all);
  }

  private initsOf(name: string): Node[] {
    for (let s = this.scope; s; s = s.parent) {
      const all = s.allInits.get(name);
      if (all) return all;
      if (s.names.has(name)) return [];
    }
    return [];
  }

  private initOf(name: string): Node | undefined {
    for (let s = this.scope; s; s = s.parent) {
      const init = s.inits.get(name);
      if (init) return init;
      if (s.names.has(name)) return undefined;
    }
    return undefined;
  }

  /** `q` or `c.queue` where `q`/`c` is a parameter of this or an enclosing function (not a receiver). */
  private paramRoot(operand: Node): CallFact["recvParam"] {
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

  // ---- what the reader recognises by shape ----

  private recogniseInformer(fact: CallFact, fnNode: Node, argNodes: Node[], qualifier: string | undefined): void {
    const scope = this.scope!;
    if (qualifier?.endsWith("/tools/cache")) {
      const informerCtor = /^New(Shared|SharedIndex|Indexer)?Informer$/.test(fact.method);
      if (informerCtor) {
        const kind = this.kindOfObjectArg(argNodes[1]) ?? "?";
        fact.informer = { kind, via: `cache.${fact.method}` };
        if (fact.method === "NewInformer" || fact.method === "NewIndexerInformer") fact.handlerArg = 3;
      }
      return;
    }
    if (fnNode.type !== "selector_expression") return;
    const operand = fnNode.childForFieldName("operand")!;
    if (fact.method === "Informer" && argNodes.length === 0) {
      fact.informer = { kind: this.kindOfInformerExpr(operand, 0) ?? "?", via: `${oneLine(operand.text)}.Informer()` };
    } else if (fact.method === "Watch" && !isInWatchFunc(scope)) {
      const kind = operand.type === "call_expression" ? this.pluralAccessorKind(operand) : undefined;
      if (kind) fact.informer = { kind, via: "Watch" };
    }
  }

  private kindOfObjectArg(arg: Node | undefined): string | undefined {
    const lit = arg?.type === "unary_expression" ? arg.namedChildren[0] : arg;
    if (lit?.type !== "composite_literal") return undefined;
    const type = lit.childForFieldName("type");
    return type?.type === "qualified_type" ? type.childForFieldName("name")?.text : type?.text;
  }

  /** `factory.Apps().V1().Deployments()` → Deployment. */
  private pluralAccessorKind(call: Node): string | undefined {
    const f = call.childForFieldName("function");
    if (f?.type !== "selector_expression") return undefined;
    const name = f.childForFieldName("field")!.text;
    return /^[A-Z][A-Za-z]*s$/.test(name) ? singularKind(name) : undefined;
  }

  /** The kind behind an informer accessor: a `Foos()` call, a parameter typed `FooInformer`, or a local set from either. */
  private kindOfInformerExpr(node: Node, depth: number): string | undefined {
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

  /**
   * controller-runtime's builder: `NewControllerManagedBy(mgr).For(&T{}).Owns(&U{}).Watches(..).Complete(r)`, also
   * `TypedControllerManagedBy[req](mgr)` and a chain split over a variable (`b := ...; b.Complete(r)`).
   */
  private recogniseBuilder(node: Node, fact: CallFact): void {
    if (fact.method !== "Complete" && fact.method !== "Build") return;
    const chain: { method: string; node: Node; args: Node[] }[] = [];
    let cur: Node | null | undefined = node;
    const visited = new Set<string>([nodeKey(node)]);
    for (let hops = 0; (cur?.type === "call_expression" || cur?.type === "type_conversion_expression") && hops < 32; hops++) {
      if (cur.type === "type_conversion_expression") {
        // builder.TypedControllerManagedBy[req](mgr): the generic call the chain starts with.
        const name = cur.childForFieldName("type")?.descendantsOfType("type_identifier")[0]?.text ?? "";
        chain.push({ method: name, node: cur, args: cur.childForFieldName("operand") ? [cur.childForFieldName("operand")!] : [] });
        break;
      }
      let f: Node | null = cur.childForFieldName("function");
      while (f && (f.type === "index_expression" || f.type === "generic_type")) f = f.childForFieldName("operand") ?? f.childForFieldName("type");
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
    const builder: BuilderFact = { id: fact.id, loc: this.loc(start.node), fn: this.scope!.fn.id, sources: [], reconcilers: [] };
    const complete = chain[0]!;
    builder.reconcilers = this.reconcilerSlots(complete.args[0]);
    for (const link of [...chain].reverse()) {
      let f = link.node.childForFieldName("function");
      while (f && (f.type === "index_expression" || f.type === "generic_type")) f = f.childForFieldName("operand") ?? f.childForFieldName("type");
      const loc = this.loc(f?.childForFieldName("field") ?? link.node);
      if (link.method === "Named" && link.args[0]?.type === "interpreted_string_literal") builder.name = link.args[0].text.slice(1, -1);
      if (link.method === "For" || link.method === "Owns") {
        builder.sources.push({ via: link.method, kind: this.kindOfObjectArg(link.args[0]) ?? "?", loc });
      } else if (link.method === "Watches" || link.method === "WatchesRawSource") {
        builder.sources.push({ ...this.crSource(link.args, link.method === "Watches" ? 1 : -1), via: "Watches", loc });
      }
    }
    this.facts.builders.push(builder);
  }

  /** A reconciler value, and the function inside a conversion such as reconcile.Func(func(...) {...}). */
  private reconcilerSlots(arg: Node | undefined): Slot[] {
    if (!arg) return [];
    const slots = [this.expr(arg)];
    // r := reconcile.TypedFunc[req](func(...) {...}); ...Complete(r): look at what r was set to.
    const value = arg.type === "identifier" ? (this.initOf(arg.text) ?? arg) : arg;
    const inner =
      value.type === "call_expression" ? value.childForFieldName("arguments")?.namedChildren[0] : value.type === "type_conversion_expression" ? value.childForFieldName("operand") : undefined;
    if (inner) slots.push(this.expr(inner));
    return slots.filter((x): x is Slot => !!x);
  }

  /**
   * The watched kind and handler of Watches(&T{}, handler) or of a source.Kind(cache, &T{}, handler): the handler is a
   * map function (EnqueueRequestsFromMapFunc(fn)) or one of controller-runtime's own, named.
   */
  private crSource(args: Node[], handlerIndex: number): { kind: string; handler?: Slot; handlerName?: string } {
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
      return { kind, handlerName: oneLine(target.childForFieldName("type")?.text ?? target.text).replace(/\[.*\]$/, "") };
    }
    const callee = target?.type === "call_expression" ? target.childForFieldName("function") : undefined;
    const name = oneLine(callee?.text ?? target?.text ?? "handler").replace(/\[.*\]$/, "");
    const inner = target?.type === "call_expression" && /MapFunc$/.test(name) ? target.childForFieldName("arguments")?.namedChildren[0] : undefined;
    const slot = inner ? this.expr(inner) : undefined;
    return { kind, handlerName: name, ...(slot ? { handler: slot } : {}) };
  }

  /** controller-runtime without the builder: `c, err := controller.New(name, mgr, controller.Options{Reconciler: r})`, then `c.Watch(source.Kind(...))`. */
  private readonly crControllers = new Map<string, BuilderFact>();

  private recogniseControllerNew(node: Node, fact: CallFact, argNodes: Node[]): void {
    if (fact.qualifier?.endsWith("controller-runtime/pkg/controller") && /^New(Typed)?(Unmanaged)?$/.test(fact.method)) {
      const options = argNodes[2]?.type === "composite_literal" ? argNodes[2] : undefined;
      const reconciler = options?.descendantsOfType("keyed_element").find((el) => (el.namedChildren[0]?.namedChildren[0] ?? el.namedChildren[0])?.text === "Reconciler");
      const value = reconciler?.namedChildren[1]?.namedChildren[0] ?? reconciler?.namedChildren[1];
      const builder: BuilderFact = { id: fact.id, loc: fact.loc, fn: this.scope!.fn.id, sources: [], reconcilers: this.reconcilerSlots(value), ...(fact.strings[0] ? { name: fact.strings[0] } : {}) };
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

const nodeKey = (n: Node) => `${n.startIndex}:${n.endIndex}`;

/** `podInformer` → Pod, `fooInformer` → Foo; undefined for names that do not end in Informer. */
function kindFromName(name: string): string | undefined {
  const m = /^(\w+?)Informer$/i.exec(name);
  return m ? m[1]!.charAt(0).toUpperCase() + m[1]!.slice(1) : undefined;
}

function isTail(call: Node): boolean {
  let p = call.parent;
  if (p?.type === "expression_list") p = p.parent;
  return !!p && ["expression_statement", "return_statement", "go_statement", "defer_statement"].includes(p.type);
}

function isInWatchFunc(scope: Scope): boolean {
  // WatchFunc, WatchFuncWithContext, ...: the watch side of a ListWatch, which the informer runs.
  for (let s: Scope | undefined = scope; s; s = s.parent) if (/^Watch\w*Func/.test(s.fn.role ?? "")) return true;
  return false;
}

const EXPRESSIONS = new Set([
  "identifier", "selector_expression", "call_expression", "func_literal", "composite_literal", "unary_expression",
  "binary_expression", "parenthesized_expression", "type_assertion_expression", "type_conversion_expression",
  "index_expression", "slice_expression", "interpreted_string_literal", "raw_string_literal", "int_literal",
  "float_literal", "true", "false", "nil", "iota", "rune_literal", "imaginary_literal", "generic_type",
]);

function isExpression(type: string): boolean {
  return EXPRESSIONS.has(type);
}

function keyedIn(args: Node[]): Record<string, string> {
  const keyed: Record<string, string> = {};
  for (const a of args) {
    for (const el of a.type === "keyed_element" ? [a] : a.descendantsOfType("keyed_element")) {
      const [k, v] = el.namedChildren;
      const key = (k?.namedChildren[0] ?? k)?.text;
      const value = (v?.namedChildren[0] ?? v)?.text;
      if (key && value !== undefined && !(key in keyed)) keyed[key] = oneLine(value);
    }
  }
  return keyed;
}


function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").replace(/([([{]) /g, "$1").replace(/,? ([)\]}])/g, "$1");
  return flat.length > 100 ? `${flat.slice(0, 97)}...` : flat;
}
