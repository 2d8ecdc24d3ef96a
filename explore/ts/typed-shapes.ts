// The shapes the TypeScript reader recognises by type (types.ts, library-types.ts): queues made, informers and
// watches used, k8s-operator-node's watchResource and Pepr's When, whatever the operator's code calls them.
import { type CallExpression, type ClassDeclaration, Node, type NewExpression, SyntaxKind } from "ts-morph";
import type { Loc } from "../facts.js";
import { kindOfPath } from "./frameworks.js";
import {
  isFluentK8s,
  isInformer,
  isOperatorNodeBase,
  isPeprCapability,
  isWatch,
  isWorkqueue,
  kindOfTypeArgument,
  LIBRARY_MODULES,
} from "./library-types.js";
import type { TsTypes, TypeRef } from "./types.js";

const ADD_LIKE = /^(add|enqueue|push|put)$/i;
const GET_LIKE = /^(get|dequeue|pop|take|next)$/i;

const describe = (r: TypeRef) => `${r.name.replace(/\(\)$/, "")} (${r.module})`;

export class TypedShapes {
  private readonly queueClasses = new Map<ClassDeclaration, string | undefined>();

  constructor(private readonly types: TsTypes) {}

  /**
   * Why a class is a queue: it implements or extends a library's queue, it holds one and has add- and get-like
   * methods (a wrapper), or it has an add(item) and a get() of its own. Undefined for any other class (a cache's
   * `get(id)` takes a key: it is a lookup, not a queue).
   */
  queueClass(cls: ClassDeclaration): string | undefined {
    if (this.queueClasses.has(cls)) return this.queueClasses.get(cls);
    this.queueClasses.set(cls, undefined);
    const methods = cls.getMethods();
    const adds = methods.some((m) => ADD_LIKE.test(m.getName()) && m.getParameters().length >= 1);
    const gets = methods.some(
      (m) => GET_LIKE.test(m.getName()) && m.getParameters().every((p) => p.isOptional() || p.hasInitializer()),
    );
    // A library's own implementation (crdgen's runtime explored with the operator) is its plumbing: a queue by its own
    // add and get (so its code is the library's), never the type a controller's queue is described by.
    if (LIBRARY_MODULES.has(this.types.packageOfNode(cls) ?? "")) {
      const why = adds && gets ? "the library's own queue implementation" : undefined;
      this.queueClasses.set(cls, why);
      return why;
    }
    const inherited = isWorkqueue(this.types.heritage(cls));
    if (!inherited && !(adds && gets)) return undefined;
    const held = cls.getProperties().flatMap((p) => {
      const typeNode = p.getTypeNode();
      const init = p.getInitializer();
      const found = isWorkqueue([
        ...(typeNode ? this.types.ofTypeNode(typeNode) : []),
        ...(init ? this.types.ofValue(init) : []),
      ]);
      return found ? [found] : [];
    });
    const why = inherited
      ? `implements ${describe(inherited)}`
      : adds && gets
        ? held[0]
          ? `wraps ${describe(held[0])}`
          : "own queue type: add(item) and get()"
        : undefined;
    this.queueClasses.set(cls, why);
    return why;
  }

  /** A queue made by this call or `new`: a library queue's factory or class, or a queue class of the tree. */
  queueMade(node: CallExpression | NewExpression): string | undefined {
    if (Node.isCallExpression(node)) {
      const found = isWorkqueue(this.types.ofCallee(node.getExpression()));
      if (found) return describe(found);
      const factory = this.types.functionCalled(node.getExpression());
      return factory ? this.queueFactory(factory) : undefined;
    }
    const refs = this.types.ofClass(node);
    const found = isWorkqueue(refs);
    if (found) return describe(found);
    const symbol = node.getExpression().getSymbol();
    const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
    const cls = target?.getDeclarations().find((d): d is ClassDeclaration => Node.isClassDeclaration(d));
    return cls && this.queueClass(cls) ? `new ${cls.getName() ?? "class"}` : undefined;
  }

  /** client-node's (or crdgen's runtime's) informer class a `new` makes: `new k8s.ListWatch<V1Pod>(...)`. */
  informerClass(node: NewExpression): TypeRef | undefined {
    return isInformer(this.types.ofClass(node));
  }

  /** A library function that makes an informer: client-node's `makeInformer`, under whatever name it is imported. */
  informerFactory(node: CallExpression): TypeRef | undefined {
    const found = isInformer(this.types.ofCallee(node.getExpression()));
    return found?.name.endsWith("()") ? found : undefined;
  }

  private readonly queueFactories = new Map<Node, string | undefined>();

  /**
   * A function of the operator's whose every return is a queue it makes (`function workFor(name) { return
   * makeWork({ name }); }`): each call of it makes a queue of its own, so two controllers using it stay apart.
   */
  queueFactory(fn: Node): string | undefined {
    if (this.queueFactories.has(fn)) return this.queueFactories.get(fn);
    this.queueFactories.set(fn, undefined);
    if (!Node.isFunctionDeclaration(fn) && !Node.isArrowFunction(fn) && !Node.isFunctionExpression(fn))
      return undefined;
    if (LIBRARY_MODULES.has(this.types.packageOfNode(fn) ?? "")) return undefined;
    const returned = returnedExpressions(fn);
    let made: string | undefined;
    for (let e of returned) {
      while (e && (Node.isParenthesizedExpression(e) || Node.isAsExpression(e))) e = e.getExpression();
      made = e && (Node.isCallExpression(e) || Node.isNewExpression(e)) ? this.queueMade(e) : undefined;
      if (!made) break;
    }
    this.queueFactories.set(fn, made);
    return made;
  }

  /** An informer by the receiver's type: the kind its type argument names, and where the receiver is declared. */
  informerUsed(recv: Node, loc: (n: Node) => Loc): { kind: string; via: string; loc: Loc } | undefined {
    const found = isInformer(this.types.ofValue(recv));
    if (!found) return undefined;
    const decl = this.types.declarationOf(recv);
    const arg = found.args[0];
    return {
      kind: kindOfTypeArgument(arg) ?? "?",
      via: `${found.name.replace(/\(\)$/, "")}${arg ? `<${arg}>` : ""} (by type)`,
      loc: loc(decl ?? recv),
    };
  }

  /** client-node's `watch.watch(path, query, callback, done)` by the receiver's type, and the kind its path names. */
  watchCall(call: CallExpression, method: string): { kind: string } | undefined {
    const callee = call.getExpression();
    if (method !== "watch" || !Node.isPropertyAccessExpression(callee)) return undefined;
    if (!isWatch(this.types.ofValue(callee.getExpression()))) return undefined;
    const [path, , callback] = call.getArguments();
    return { kind: kindOfPath([this.stringText(path)]) ?? this.watchedType(callback) ?? "?" };
  }

  /** The kind a watch callback's object is typed with: `(phase: string, lease: V1Lease) => ...`. */
  private watchedType(callback: Node | undefined): string | undefined {
    if (!callback || (!Node.isArrowFunction(callback) && !Node.isFunctionExpression(callback))) return undefined;
    const kind = kindOfTypeArgument(callback.getParameters()[1]?.getTypeNode()?.getText());
    return kind?.startsWith("(") ? undefined : kind;
  }

  /**
   * k8s-operator-node's Operator copied into the tree (operators often vendor its one file): a class whose
   * `watchResource(group, version, plural, onEvent)` subscribes a client-node Watch. Its code is the library's.
   */
  isOperatorNodeClass(cls: ClassDeclaration): boolean {
    let known = this.operatorClasses.get(cls);
    if (known === undefined) {
      const method = cls.getMethod("watchResource");
      known =
        !!method &&
        method.getParameters().length >= 4 &&
        method.getDescendantsOfKind(SyntaxKind.CallExpression).some((c) => {
          const callee = c.getExpression();
          return Node.isPropertyAccessExpression(callee) && !!this.watchCall(c, callee.getName());
        });
      this.operatorClasses.set(cls, known);
    }
    return known;
  }

  private readonly operatorClasses = new Map<ClassDeclaration, boolean>();

  /** k8s-operator-node's `this.watchResource(group, version, plural, onEvent)` on a subclass of its Operator. */
  operatorNodeWatch(call: CallExpression, method: string): { kind: string; callback: Node } | undefined {
    const callee = call.getExpression();
    const [, , plural, callback] = call.getArguments();
    if (method !== "watchResource" || !callback || !Node.isPropertyAccessExpression(callee)) return undefined;
    const declaredIn = callee
      .getSymbol()
      ?.getDeclarations()
      .map((d) => d.getParent())
      .find((p): p is ClassDeclaration => !!p && Node.isClassDeclaration(p));
    const vendored = declaredIn ? this.isOperatorNodeClass(declaredIn) : false;
    if (!vendored && !isOperatorNodeBase(this.types.ofValue(callee.getExpression()))) return undefined;
    return { kind: kindOfPath([`/${this.stringText(plural).replace(/^[`'"]|[`'"]$/g, "")}`]) ?? "?", callback };
  }

  /** Pepr's `When` of a Capability, under whatever name (`const { When: on } = capability`, `capability.When`). */
  isPeprWhen(root: CallExpression): boolean {
    const callee = root.getExpression();
    const refs = this.types.ofValue(callee);
    if (refs.some((r) => r.name.endsWith(".When") && isPeprCapability([{ ...r, name: r.name.slice(0, -5) }])))
      return true;
    return Node.isPropertyAccessExpression(callee) && callee.getName() === "When"
      ? isPeprCapability(this.types.ofValue(callee.getExpression())) !== undefined
      : false;
  }

  /** kubernetes-fluent-client's (or Pepr's) `K8s(Kind)`. */
  isFluentK8s(root: CallExpression): boolean {
    return isFluentK8s(this.types.ofCallee(root.getExpression())) !== undefined;
  }

  /** A string argument as written, or the string a constant holds (`const NODES = "/api/v1/nodes"`). */
  private stringText(node: Node | undefined): string {
    if (!node) return "";
    if (Node.isIdentifier(node)) {
      const decl = this.types.declarationOf(node);
      const init = decl && Node.isVariableDeclaration(decl) ? decl.getInitializer() : undefined;
      if (
        init &&
        (Node.isStringLiteral(init) || Node.isNoSubstitutionTemplateLiteral(init) || Node.isTemplateExpression(init))
      )
        return init.getText();
    }
    return node.getText();
  }
}

/** What a function returns: its expression body, or each `return` of its own (not of a function inside it). */
function returnedExpressions(
  fn: import("ts-morph").FunctionDeclaration | import("ts-morph").ArrowFunction | import("ts-morph").FunctionExpression,
): (Node | undefined)[] {
  const body = fn.getBody();
  if (!body) return [];
  if (!Node.isBlock(body)) return [body];
  return body
    .getDescendantsOfKind(SyntaxKind.ReturnStatement)
    .filter((r) => r.getParentWhile((p) => !isFunctionNode(p))?.getParent() === fn)
    .map((r) => r.getExpression());
}

function isFunctionNode(node: Node): boolean {
  return (
    Node.isFunctionDeclaration(node) ||
    Node.isFunctionExpression(node) ||
    Node.isArrowFunction(node) ||
    Node.isMethodDeclaration(node) ||
    Node.isConstructorDeclaration(node)
  );
}
