// TypeScript calls and `new` lowered to call facts and constraints, with the informers and queues recognised by shape.
import { Node, SyntaxKind } from "ts-morph";
import type { CallFact, Slot } from "../facts.js";
import { oneLine } from "../syntax.js";
import { TsReaderBase } from "./reader-base.js";
import { clientNodeEventConstant, fluentWatchKind, isRawWatch, kindOfPath, peprBinding } from "./frameworks.js";
import { CLIENT_NODE, kindOfTypeArgument } from "./library-types.js";
import { identsIn, tsIsCondition, tsIsTail, tsKeyedIn } from "./syntax.js";

export abstract class TsCallReader extends TsReaderBase {
  protected newExpression(node: import("ts-morph").NewExpression): Slot {
    const clsNode = node.getExpression();
    const cls = this.expr(clsNode);
    const args = node.getArguments().map((a) => this.expr(a) ?? this.temp());
    const ret = this.temp();
    const name = clsNode.getText();
    const fact: CallFact = {
      id: this.callId(node),
      fn: this.scope!.fn.id,
      loc: this.loc(node),
      method: `new ${name}`,
      text: `new ${name}`,
      callee: cls ?? this.temp(),
      args,
      ret,
      argIdents: node.getArguments().flatMap((a) => identsIn(a)),
      argTexts: node.getArguments().map((a) => oneLine(a.getText())),
      keyed: tsKeyedIn(node.getArguments()),
      strings: node.getArguments().flatMap((a) => (Node.isStringLiteral(a) ? [a.getLiteralText()] : [])),
      inLoop: this.scope!.loopDepth > 0,
      dynamic: false,
      tail: tsIsTail(node),
    };
    const external = Node.isIdentifier(clsNode) ? this.imported.get(name)?.external : undefined;
    if (external) fact.qualifier = external;
    const typedQueue = this.shapes.queueMade(node);
    if (typedQueue) fact.typedQueue = typedQueue;
    const informer = this.shapes.informerClass(node);
    const typeArg = node.getTypeArguments()[0]?.getText();
    // client-node's `new k8s.ListWatch(path, watch, listFn)`: an informer whose handlers are added later with on().
    if (informer?.name === "ListWatch")
      fact.informer = { kind: kindOfPath(fact.argTexts) ?? kindOfTypeArgument(typeArg) ?? "?", via: "new ListWatch" };
    else if (informer && typeArg) fact.informer = { kind: kindOfTypeArgument(typeArg)!, via: `new ${name}` };
    this.facts.calls.push(fact);
    if (cls) this.facts.constraints.push({ c: "new", cls, args, ret });
    return ret;
  }

  protected call(node: import("ts-morph").CallExpression): Slot {
    const scope = this.scope!;
    let calleeNode: Node = node.getExpression();
    while (Node.isParenthesizedExpression(calleeNode) || Node.isNonNullExpression(calleeNode))
      calleeNode = calleeNode.getExpression();
    let method = calleeNode.getText();
    let recv: Slot | undefined;
    let callee: Slot | undefined;
    let dynamic = false;
    let qualifier: string | undefined;
    let recvParam: CallFact["recvParam"];
    const nsMember = Node.isPropertyAccessExpression(calleeNode) ? this.namespaceMember(calleeNode) : undefined;
    if (nsMember && Node.isPropertyAccessExpression(calleeNode)) {
      method = calleeNode.getName();
      callee = nsMember.slot;
    } else if (Node.isPropertyAccessExpression(calleeNode)) {
      method = calleeNode.getName();
      recv = this.expr(calleeNode.getExpression());
      dynamic = true;
      recvParam = this.paramRoot(calleeNode.getExpression());
      const baseName = calleeNode.getExpression();
      if (
        Node.isIdentifier(baseName) &&
        !this.isLocal(baseName.getText()) &&
        this.imported.get(baseName.getText())?.external
      )
        qualifier = this.imported.get(baseName.getText())!.external;
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
      id: this.callId(node),
      fn: scope.fn.id,
      loc: this.loc(node),
      method,
      text: oneLine(calleeNode.getText()),
      callee: callee ?? this.temp(),
      args,
      ret,
      argIdents: argNodes.flatMap((a) => identsIn(a)),
      argTexts: argNodes.map((a) => oneLine(a.getText())),
      keyed: tsKeyedIn(argNodes),
      strings: argNodes.flatMap((a) => (Node.isStringLiteral(a) ? [a.getLiteralText()] : [])),
      inLoop: scope.loopDepth > 0,
      dynamic,
      tail: tsIsTail(node),
      recv,
      qualifier,
      recvParam,
    };
    // @kubernetes/client-node's makeInformer(kubeConfig, "/api/v1/namespaces/x/pods", listFn): the path names the kind.
    if (tsIsCondition(node)) fact.condition = true;
    this.informersAndQueues(node, fact);
    this.frameworkCall(node, fact);
    this.facts.calls.push(fact);
    // fn.bind(x) is fn, for the calls it is handed to (informer.on("add", this.enqueue.bind(this))).
    if (method === "bind" && recv) this.facts.constraints.push({ c: "copy", dst: ret, src: recv });
    // An informer factory's informerFor(key, () => new Informer(...)) returns what its second argument makes (and only
    // that: following the factory's cache would mix up every informer made through it).
    if (method === "informerFor" && args[1]) this.facts.constraints.push({ c: "call", callee: args[1], args: [], ret });
    else if (callee) this.facts.constraints.push({ c: "call", callee, args, ret });
    return ret;
  }

  /**
   * Informers, watches and queues by type: makeInformer (under any name), the queue a call makes, handlers added to an
   * informer known by its declared type, client-node's Watch (or a raw watch over a literal path).
   */
  private informersAndQueues(node: import("ts-morph").CallExpression, fact: CallFact): void {
    const { method } = fact;
    if (this.shapes.informerFactory(node)) {
      const typeArg = node.getTypeArguments()[0]?.getText();
      fact.informer = { kind: kindOfPath(fact.argTexts) ?? kindOfTypeArgument(typeArg) ?? "?", via: "makeInformer" };
    }
    const typedQueue = this.shapes.queueMade(node);
    if (typedQueue) fact.typedQueue = typedQueue;
    const callee = node.getExpression();
    if (method === "on") {
      // informer.on(k8s.ADD, fn): the constant's value, as if written as a string.
      const event = clientNodeEventConstant(node.getArguments()[0], (n) => this.externalModule(n) === CLIENT_NODE);
      if (event) fact.strings.unshift(event);
    }
    if ((method === "on" || method === "addEventHandler") && Node.isPropertyAccessExpression(callee)) {
      const typed = this.shapes.informerUsed(callee.getExpression(), (n) => this.loc(n));
      if (typed) fact.typedInformer = typed;
    }
    const watch = this.shapes.watchCall(node, method);
    if (watch) fact.informer = { kind: watch.kind, via: "Watch.watch" };
    else if (isRawWatch(method, fact.argTexts))
      fact.informer = { kind: kindOfPath(fact.argTexts.slice(0, 1)) ?? "?", via: "Watch.watch" };
  }

  /** The operator frameworks' watches and bindings (frameworks.ts), noted on the call's fact. */
  private frameworkCall(node: import("ts-morph").CallExpression, fact: CallFact): void {
    const { method } = fact;
    const fluentKind = fluentWatchKind(node, method, (root) => this.shapes.isFluentK8s(root));
    if (fluentKind) fact.informer = { kind: fluentKind, via: "K8s().Watch" };
    this.operatorNodeWatch(node, fact);
    const binding = peprBinding(node, method, (root) => this.shapes.isPeprWhen(root));
    if (binding && fact.args[0]) {
      const admission = method === "Mutate" || method === "Validate";
      // A chain spans lines: the binding is where its action is written (`.Reconcile(`), not where `When(` starts.
      const action = node.getExpression();
      const loc = Node.isPropertyAccessExpression(action) ? this.loc(action.getNameNode()) : fact.loc;
      this.facts.bindings.push({
        id: fact.id,
        loc,
        watchLoc: this.loc(binding.root),
        fn: fact.fn,
        framework: "Pepr",
        action: method,
        kind: binding.kind,
        // A finalizer runs when the object is being deleted, whatever event the binding names.
        events:
          method === "Finalize"
            ? ["delete"]
            : admission
              ? binding.events.map((e) => (e === "add" ? "create" : e))
              : binding.events,
        text: oneLine(binding.text),
        callback: fact.args[0],
      });
    }
  }

  /** k8s-operator-node's `this.watchResource(group, version, plural, onEvent)`: its watch and queue are the library's. */
  private operatorNodeWatch(node: import("ts-morph").CallExpression, fact: CallFact): void {
    const watch = this.shapes.operatorNodeWatch(node, fact.method);
    const callback = fact.args[3];
    if (!watch || !callback) return;
    const callee = node.getExpression();
    const loc = Node.isPropertyAccessExpression(callee) ? this.loc(callee.getNameNode()) : fact.loc;
    this.facts.bindings.push({
      id: fact.id,
      loc,
      watchLoc: loc,
      fn: fact.fn,
      framework: "k8s-operator-node",
      action: "watchResource",
      kind: watch.kind,
      events: ["add", "update", "delete"],
      text: `watchResource(${fact.argTexts.slice(0, 3).join(", ")})`,
      callback,
    });
  }

  /** The module a name is imported from, when that module is not in the explored tree (and no local shadows it). */
  private externalModule(name: string): string | undefined {
    return this.isLocal(name) ? undefined : this.imported.get(name)?.external;
  }
}
