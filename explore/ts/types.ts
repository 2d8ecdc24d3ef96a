// What a TypeScript value is, by type: ts-morph's type checker where the types resolve (the explored tree, its
// workspace packages), and otherwise the declarations as written (a parameter's `Informer<V1Pod>`, a field's type
// alias, the class a `new` makes, the library function a call is imported from), followed through import aliases,
// type aliases, re-exports and the classes and interfaces that extend or implement a library's type.
import { Node, SyntaxKind, type Symbol as TsSymbol, type Type, type TypeNode } from "ts-morph";

/**
 * A type (or, for `name()`, a function's result) by the module that declares it: a package such as
 * `@kubernetes/client-node`, or "" for a type of the explored operator's own. `args` are its type arguments as written.
 */
export interface TypeRef {
  module: string;
  name: string;
  args: string[];
}

const MAX_DEPTH = 8;

export class TsTypes {
  constructor(
    /** The package an explored file belongs to (a workspace such as @crdgen/runtime), if any. */
    private readonly packageOf: (file: string) => string | undefined,
    /** Whether a module specifier written in a file names a module of the explored tree. */
    private readonly inTree: (fromFile: string, spec: string) => boolean,
  ) {}

  private readonly memo = new Map<Node, TypeRef[]>();
  // A call's callee and a `new`'s class are asked about once per shape test (queue, informer, factory): once each.
  private readonly calleeMemo = new Map<Node, TypeRef[]>();
  private readonly classMemo = new Map<Node, TypeRef[]>();

  /** The types a value has (an expression: a name, a property, a call, a `new`). */
  ofValue(node: Node, depth = 0): TypeRef[] {
    if (depth > MAX_DEPTH) return [];
    const cached = this.memo.get(node);
    if (cached) return cached;
    this.memo.set(node, []); // a value defined through itself ends here
    // The declarations as written first: cheap, and the only answer for an unresolved library; the checker's
    // inference only where they say nothing (an unannotated value of the tree's own types).
    const written = this.written(node, depth);
    const refs = dedupe(written.length ? written : this.checked(node, depth));
    this.memo.set(node, refs);
    return refs;
  }

  /** The package (a workspace of the tree) a node is declared in, if any. */
  packageOfNode(node: Node): string | undefined {
    return this.packageOf(fileOf(node));
  }

  /** What a callee is: `name()` for each function or class it resolves to (`makeWork` imported as newRateLimitingQueue). */
  ofCallee(callee: Node): TypeRef[] {
    // Libraries' factories are imported functions (`makeWork`, `k8s.makeInformer`): a method of a value is not
    // resolved here, which would type-check every receiver of every call.
    if (Node.isPropertyAccessExpression(callee) && !this.isNamespace(callee.getExpression())) return [];
    return memoized(this.calleeMemo, callee, () =>
      this.ofEntity(callee, [], 0).map((r) => ({ ...r, name: `${r.name}()` })),
    );
  }

  /** The function of the tree a callee written as a name names (`workFor`, imported or not), if any. */
  functionCalled(callee: Node): Node | undefined {
    if (!Node.isIdentifier(callee)) return undefined;
    return this.declarationsOf(callee)
      .map((d) => (Node.isVariableDeclaration(d) ? d.getInitializer() : d))
      .find((d): d is Node => !!d && (Node.isFunctionDeclaration(d) || Node.isArrowFunction(d)));
  }

  /** The class a `new` makes, with its type arguments, and what that class extends or implements. */
  ofClass(node: import("ts-morph").NewExpression): TypeRef[] {
    return memoized(this.classMemo, node, () =>
      this.ofEntity(
        node.getExpression(),
        node.getTypeArguments().map((t) => t.getText()),
        0,
      ),
    );
  }

  /** Where the value a name or property stands for is declared (a parameter, a field, a variable), if in the tree. */
  declarationOf(node: Node): Node | undefined {
    return this.declarationsOf(node).find(
      (d) =>
        Node.isParameterDeclaration(d) ||
        Node.isPropertyDeclaration(d) ||
        Node.isVariableDeclaration(d) ||
        Node.isBindingElement(d),
    );
  }

  /** What the checker says, when the type resolves (not `any`, as an unresolved import is). */
  private checked(node: Node, depth: number): TypeRef[] {
    let type: Type;
    try {
      type = node.getType();
    } catch {
      return [];
    }
    return this.ofType(type, depth);
  }

  private ofType(type: Type, depth: number): TypeRef[] {
    if (type.isAny() || type.isUnknown()) return [];
    if (type.isUnion()) return type.getUnionTypes().flatMap((t) => this.ofType(t, depth + 1));
    if (type.isIntersection()) return type.getIntersectionTypes().flatMap((t) => this.ofType(t, depth + 1));
    const symbol = type.getAliasSymbol() ?? type.getSymbol();
    if (!symbol) return [];
    const args = (type.getAliasSymbol() ? type.getAliasTypeArguments() : type.getTypeArguments()).map((t) =>
      t.getText(),
    );
    return this.ofSymbol(symbol, args, depth + 1);
  }

  /** What the declarations written say: annotations, initialisers, the callee or class of a call or `new`. */
  private written(node: Node, depth: number): TypeRef[] {
    if (
      Node.isParenthesizedExpression(node) ||
      Node.isAwaitExpression(node) ||
      Node.isNonNullExpression(node) ||
      Node.isSatisfiesExpression(node)
    )
      return this.ofValue(node.getExpression(), depth + 1);
    if (Node.isAsExpression(node)) {
      const typeNode = node.getTypeNode();
      return typeNode ? this.ofTypeNode(typeNode, depth + 1) : [];
    }
    if (Node.isNewExpression(node)) {
      const args = node.getTypeArguments().map((t) => t.getText());
      return this.ofEntity(node.getExpression(), args, depth + 1);
    }
    if (Node.isCallExpression(node)) return this.ofCall(node, depth);
    if (Node.isIdentifier(node) || Node.isPropertyAccessExpression(node) || node.getKind() === SyntaxKind.ThisKeyword)
      return this.ofDeclared(node, depth);
    return [];
  }

  /** A call's result: its declared return type, or `name()` of the library function it calls. */
  private ofCall(node: import("ts-morph").CallExpression, depth: number): TypeRef[] {
    const args = node.getTypeArguments().map((t) => t.getText());
    const callee = node.getExpression();
    const out: TypeRef[] = [];
    for (const ref of this.ofEntity(callee, args, depth + 1)) out.push({ ...ref, name: `${ref.name}()` });
    for (const decl of this.declarationsOf(callee)) {
      if (!Node.isFunctionDeclaration(decl) && !Node.isMethodDeclaration(decl) && !Node.isMethodSignature(decl))
        continue;
      const ret = decl.getReturnTypeNode();
      if (ret) out.push(...this.ofTypeNode(ret, depth + 1));
    }
    return out;
  }

  /** A name, property or `this`: the declared type, or the type of what initialises it. */
  private ofDeclared(node: Node, depth: number): TypeRef[] {
    const out = this.declarationsOf(node).flatMap((decl) => this.ofDeclaration(decl, depth));
    if (!Node.isPropertyAccessExpression(node) || out.length) return out;
    // `cap.When` where cap's type is known: the member, named `Type.member`; `k8s.Watch`: the module's export.
    const namespace = this.namespaceModule(node.getExpression());
    if (namespace) return [{ module: namespace, name: node.getName(), args: [] }];
    return this.ofValue(node.getExpression(), depth + 1).map((ref) => ({
      ...ref,
      name: `${ref.name}.${node.getName()}`,
    }));
  }

  private ofDeclaration(decl: Node, depth: number): TypeRef[] {
    if (
      Node.isVariableDeclaration(decl) ||
      Node.isParameterDeclaration(decl) ||
      Node.isPropertyDeclaration(decl) ||
      Node.isPropertySignature(decl)
    ) {
      const typeNode = decl.getTypeNode();
      const init = decl.getInitializer();
      if (typeNode) return this.ofTypeNode(typeNode, depth + 1);
      return init ? this.ofValue(init, depth + 1) : [];
    }
    if (Node.isBindingElement(decl)) {
      // `const { When } = capability`: a member of the destructured value, named `Type.member`.
      const name = decl.getPropertyNameNode()?.getText() ?? decl.getName();
      const source = decl.getFirstAncestorByKind(SyntaxKind.VariableDeclaration)?.getInitializer();
      return source ? this.ofValue(source, depth + 1).map((ref) => ({ ...ref, name: `${ref.name}.${name}` })) : [];
    }
    if (Node.isClassDeclaration(decl)) return this.ofSymbol(decl.getSymbol(), [], depth + 1);
    return [];
  }

  /** `k8s` of `import * as k8s from "..."`, a module of the tree or not. */
  private isNamespace(node: Node): boolean {
    return (
      Node.isIdentifier(node) &&
      !!node
        .getSymbol()
        ?.getDeclarations()
        .some((d) => Node.isNamespaceImport(d))
    );
  }

  /** The module a namespace import (`import * as k8s from "..."`) names, when it is outside the explored tree. */
  private namespaceModule(node: Node): string | undefined {
    if (!Node.isIdentifier(node)) return undefined;
    for (const decl of node.getSymbol()?.getDeclarations() ?? []) {
      if (!Node.isNamespaceImport(decl)) continue;
      const imp = decl.getFirstAncestorByKind(SyntaxKind.ImportDeclaration);
      const spec = imp?.getModuleSpecifierValue();
      if (spec && !this.inTree(fileOf(decl), spec)) return spec;
    }
    return undefined;
  }

  /** A class, function or type as named in an expression (`Watch`, `k8s.Watch`, `this.make`). */
  private ofEntity(node: Node, args: string[], depth: number): TypeRef[] {
    if (Node.isPropertyAccessExpression(node)) {
      const namespace = this.namespaceModule(node.getExpression());
      if (namespace) return [{ module: namespace, name: node.getName(), args }];
    }
    const symbol = node.getSymbol();
    return symbol ? this.ofSymbol(symbol, args, depth + 1) : [];
  }

  ofTypeNode(node: TypeNode, depth = 0): TypeRef[] {
    if (depth > MAX_DEPTH) return [];
    if (Node.isUnionTypeNode(node) || Node.isIntersectionTypeNode(node))
      return node.getTypeNodes().flatMap((t) => this.ofTypeNode(t, depth + 1));
    if (Node.isParenthesizedTypeNode(node)) return this.ofTypeNode(node.getTypeNode(), depth + 1);
    if (!Node.isTypeReference(node)) return [];
    const args = node.getTypeArguments().map((t) => t.getText());
    const name = node.getTypeName();
    if (Node.isQualifiedName(name)) {
      const namespace = this.namespaceModule(name.getLeft());
      if (namespace) return [{ module: namespace, name: name.getRight().getText(), args }];
    }
    const symbol = name.getSymbol();
    return symbol ? this.ofSymbol(symbol, args, depth + 1) : [];
  }

  /** A symbol's types: an import names the library's export; an alias, class or interface is followed. */
  private ofSymbol(symbol: TsSymbol | undefined, args: string[], depth: number): TypeRef[] {
    if (!symbol || depth > MAX_DEPTH) return [];
    return symbol.getDeclarations().flatMap((decl) => this.ofSymbolDeclaration(symbol, decl, args, depth));
  }

  private ofSymbolDeclaration(symbol: TsSymbol, decl: Node, args: string[], depth: number): TypeRef[] {
    const aliased = () => {
      const target: TsSymbol | undefined = symbol.getAliasedSymbol();
      return target && target !== symbol ? this.ofSymbol(target, args, depth + 1) : [];
    };
    if (Node.isImportSpecifier(decl) || Node.isImportClause(decl)) {
      const spec = decl.getFirstAncestorByKind(SyntaxKind.ImportDeclaration)!.getModuleSpecifierValue();
      if (this.inTree(fileOf(decl), spec)) return aliased();
      return [{ module: spec, name: Node.isImportClause(decl) ? "default" : decl.getName(), args }];
    }
    if (Node.isExportSpecifier(decl)) return aliased();
    if (Node.isTypeAliasDeclaration(decl)) return this.ofTypeNode(decl.getTypeNodeOrThrow(), depth + 1);
    const own = { module: this.packageOf(fileOf(decl)) ?? "", name: symbol.getName(), args };
    if (Node.isClassDeclaration(decl) || Node.isInterfaceDeclaration(decl)) return [own, ...this.heritage(decl, depth)];
    return Node.isFunctionDeclaration(decl) ? [own] : [];
  }

  /** The types a class or interface extends or implements (a class wrapping a library type by inheritance). */
  heritage(decl: import("ts-morph").ClassDeclaration | import("ts-morph").InterfaceDeclaration, depth = 0): TypeRef[] {
    const clauses = Node.isClassDeclaration(decl) ? [decl.getExtends(), ...decl.getImplements()] : decl.getExtends();
    return clauses.flatMap((h) => {
      if (!h) return [];
      const args = h.getTypeArguments().map((t) => t.getText());
      return this.ofEntity(h.getExpression(), args, depth + 1);
    });
  }

  /** The declarations a name, property or `this` refers to (through the checker's symbols, aliases kept). */
  private declarationsOf(node: Node): Node[] {
    if (node.getKind() === SyntaxKind.ThisKeyword) {
      const cls = node.getFirstAncestorByKind(SyntaxKind.ClassDeclaration);
      return cls ? [cls] : [];
    }
    const symbol = node.getSymbol();
    if (!symbol) return [];
    const decls = symbol.getDeclarations();
    // An imported function: its declaration in the explored tree, when the import resolves there.
    if (decls.some((d) => Node.isImportSpecifier(d) || Node.isImportClause(d))) {
      const target = symbol.getAliasedSymbol();
      return target && target !== symbol ? target.getDeclarations() : [];
    }
    return decls;
  }
}

/** The explored file a node is in (the in-memory project holds each file at `/<file>`). */
function fileOf(node: Node): string {
  return node.getSourceFile().getFilePath().replace(/^\//, "");
}

function dedupe(refs: TypeRef[]): TypeRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.module}|${r.name}|${r.args.join(",")}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The answer for node from the map, computed and kept on the first ask. */
function memoized(memo: Map<Node, TypeRef[]>, node: Node, compute: () => TypeRef[]): TypeRef[] {
  let refs = memo.get(node);
  if (!refs) memo.set(node, (refs = compute()));
  return refs;
}
