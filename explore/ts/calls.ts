// TypeScript calls and `new` lowered to call facts and constraints, with the informers and queues recognised by shape.
import { Node, SyntaxKind } from "ts-morph";
import type { CallFact, Slot } from "../facts.js";
import { oneLine } from "../syntax.js";
import { TsReaderBase } from "./reader-base.js";
import { clientNodeEventConstant, fluentWatchKind, isRawWatch, kindOfPath, peprBinding } from "./frameworks.js";
import { identsIn, tsIsTail, tsKeyedIn } from "./syntax.js";

const CLIENT_NODE = "@kubernetes/client-node";

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
    // client-node's `new k8s.ListWatch(path, watch, listFn)`: an informer whose handlers are added later with on().
    const base = Node.isPropertyAccessExpression(clsNode) ? clsNode.getExpression() : undefined;
    const module = external ?? (base && Node.isIdentifier(base) ? this.externalModule(base.getText()) : undefined);
    if (/(^|\.)ListWatch$/.test(name) && module === CLIENT_NODE)
      fact.informer = { kind: kindOfPath(fact.argTexts) ?? "?", via: "new ListWatch" };
    const typeArg = node.getTypeArguments()[0]?.getText();
    if (/Informer$/.test(name) && typeArg)
      fact.informer = {
        kind: /^(KubernetesObject|[A-Z])$/.test(typeArg) ? "(kind set at run time)" : typeArg,
        via: `new ${name}`,
      };
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
    if (method === "makeInformer") fact.informer = { kind: kindOfPath(fact.argTexts) ?? "?", via: "makeInformer" };
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

  /** Watches and bindings of the TypeScript operator libraries (frameworks.ts), noted on the call's fact. */
  private frameworkCall(node: import("ts-morph").CallExpression, fact: CallFact): void {
    const { method } = fact;
    if (method === "on") {
      // informer.on(k8s.ADD, fn): the constant's value, as if written as a string.
      const event = clientNodeEventConstant(node.getArguments()[0], (n) => this.externalModule(n) === CLIENT_NODE);
      if (event) fact.strings.unshift(event);
    } else if (isRawWatch(method, fact.argTexts)) {
      fact.informer = { kind: kindOfPath(fact.argTexts.slice(0, 1)) ?? "?", via: "Watch.watch" };
    }
    const fluentKind = fluentWatchKind(node, method);
    if (fluentKind) fact.informer = { kind: fluentKind, via: "K8s().Watch" };
    const binding = peprBinding(node, method);
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

  /** The module a name is imported from, when that module is not in the explored tree (and no local shadows it). */
  private externalModule(name: string): string | undefined {
    return this.isLocal(name) ? undefined : this.imported.get(name)?.external;
  }
}
