// Where handlers are attached to informers and watches (client-go, client-node, crdgen's runtime), and which functions
// they are.
import { type CallFact, type Loc, type Slot, keysOf } from "../facts.js";
import { at, locOrder } from "../loc.js";
import { fieldSlot } from "../points-to.js";
import { type CallChain, PARAM } from "./contexts.js";
import { HandlerObjectLinker } from "./handler-objects.js";
import type { Receivers } from "./instances.js";
import { CLIENT_NODE_EVENTS, EVENT_ORDER, HANDLER_FIELDS, REGISTER_METHODS } from "./vocabulary.js";

/** Handler functions attached to one informer (or watch) at one place. */
export interface Registration {
  kind: string;
  via: string;
  loc?: Loc;
  registeredAt?: Loc;
  handlers: { fn: string; events: string[] }[];
  /** The call that made the handler object (enqueueRequestForObject(queue, ...)), for its arguments. */
  factoryCall?: CallFact;
  /**
   * The registering call, when it may register on one of several informers (`sharded ? a : b`): one watch whose
   * informer is chosen at run time, reported once.
   */
  alternativesAt?: string;
  /** Registered in a method of a type several controllers are objects of: the objects holding this informer. */
  receivers?: Receivers;
  /** The handler value is one of several objects of its type (a shared constructor's per-call copy): that object. */
  handlerObjects?: Receivers;
}

export abstract class RegistrationLinker extends HandlerObjectLinker {
  /** Every place handlers are attached to an informer or a watch, with the handler functions per event. */
  protected registrations(): Registration[] {
    const out: Registration[] = [];
    const callByRet = new Map<Slot, CallFact>();
    for (const c of this.facts.calls) callByRet.set(c.ret, c);
    const informerOf = (slot: Slot | undefined): CallFact[] =>
      keysOf(this.pts.valuesOf(slot), "i")
        .map((id) => this.informerCalls.get(id))
        .filter((c): c is CallFact => !!c);
    for (const call of this.facts.calls) {
      if (this.isInternal(call.fn)) continue;
      let handlerSlot: Slot | undefined;
      let informers: CallFact[];
      if (REGISTER_METHODS.has(call.method) && call.recv) {
        handlerSlot = call.args[0];
        informers = informerOf(call.recv);
        // fooInformer.Informer() may also lead into a generated informer package's NewSharedIndexInformer: the same
        // informer, seen from the operator's side, which is the one to report.
        const accessors = informers.filter((i) => i.informer!.via.endsWith(".Informer()"));
        if (accessors.length) informers = accessors;
      } else if (
        call.method === "on" &&
        call.recv &&
        CLIENT_NODE_EVENTS[call.strings[0] ?? ""] &&
        informerOf(call.recv).length
      ) {
        // @kubernetes/client-node: informer.on("add" | "update" | "change" | "delete", fn).
        const fns = this.fnsAt(call.args[1]);
        if (fns.length === 0) continue;
        for (const inf of informerOf(call.recv)) {
          const receivers = this.receiversHolding(call.fn, call.recv, `i|${inf.id}`);
          out.push({
            ...(receivers ? { receivers } : {}),
            kind: inf.informer!.kind,
            via: inf.informer!.via,
            loc: inf.loc,
            registeredAt: call.loc,
            handlers: fns.map((fn) => ({ fn, events: [CLIENT_NODE_EVENTS[call.strings[0]!]!] })),
          });
        }
        continue;
      } else if (call.handlerArg !== undefined && call.informer) {
        handlerSlot = call.args[call.handlerArg];
        informers = [call];
      } else if (call.informer?.via === "Watch") {
        // A raw watch: the function reading its result channel is the handler.
        out.push({
          kind: call.informer.kind,
          via: "Watch",
          loc: call.loc,
          handlers: [{ fn: call.fn, events: ["watch"] }],
        });
        continue;
      } else continue;
      const handlers = this.handlerFns(handlerSlot, 0);
      if (handlers.length === 0) {
        this.unlinked.push(
          `${call.text} at ${at(call.loc)}: its handlers are not in the explored sources${call.args[0] && callByRet.get(call.args[0])?.qualifier ? ` (they come from ${callByRet.get(call.args[0])!.qualifier}: explore that library's sources too)` : ""}`,
        );
        continue;
      }
      const factoryCall = handlerSlot ? callByRet.get(handlerSlot) : undefined;
      const objects = this.handlerObjects(handlerSlot);
      const handlerObjects = objects && handlers.some((h) => objects.has(this.fns.get(h.fn)?.owner ?? "")) && objects;
      // A registration inside a helper (AddEventHandlersT(informer, add, update, delete)): one per call site of the
      // helper, with the informer and the functions passed there.
      const helper = call.recvParam;
      const chains = helper ? this.callChains(helper.fn) : [];
      if (helper && chains.length) {
        for (const chain of chains) {
          const mine = this.handlersIn(helper.fn, handlers, chain);
          if (mine.length === 0) continue;
          const infs = keysOf(this.valuesAlong(helper.fn, helper.index, helper.path, chain), "i")
            .map((id) => this.informerCalls.get(id))
            .filter((c): c is CallFact => !!c);
          if (infs.length === 0)
            this.unlinked.push(
              `${call.text} at ${at(call.loc)}: could not tell which informer (so which kind) this is`,
            );
          for (const inf of new Set(infs))
            out.push({
              kind: inf.informer!.kind,
              via: inf.informer!.via,
              loc: inf.loc,
              registeredAt: at(chain[0]!.loc) !== at(inf.loc) ? chain[0]!.loc : undefined,
              handlers: mine,
              factoryCall,
              ...(handlerObjects ? { handlerObjects } : {}),
            });
        }
        continue;
      }
      if (informers.length === 0) {
        out.push({
          kind: "?",
          via: call.text.replace(/\.\w+$/, ""),
          registeredAt: call.loc,
          handlers,
          factoryCall,
          ...(handlerObjects ? { handlerObjects } : {}),
        });
        this.unlinked.push(`${call.text} at ${at(call.loc)}: could not tell which informer (so which kind) this is`);
      }
      for (const inf of informers) {
        const receivers = this.receiversHolding(call.fn, call.recv, `i|${inf.id}`);
        out.push({
          ...(receivers ? { receivers } : {}),
          kind: inf.informer!.kind,
          via: inf.informer!.via,
          loc: inf.loc,
          // The same line number in another file is another place (informer-factory.ts:69 vs controller-for.ts:69).
          registeredAt: inf.id !== call.id && at(inf.loc) !== at(call.loc) ? call.loc : undefined,
          handlers,
          factoryCall,
          ...(handlerObjects ? { handlerObjects } : {}),
          // Outside a loop, one run of the call registers on one informer: several are alternatives chosen at run time.
          // (Informers of different objects of the method's type are each one's own.)
          ...(informers.length > 1 && !call.inLoop && !receivers ? { alternativesAt: call.id } : {}),
        });
      }
    }
    return out;
  }

  /** What a registration's handler reaches when the handler value is an object of its own (handler-objects.ts). */
  private readonly objectReach = new Map<string, Map<string, string[]>>();
  protected handlerReach(fn: string, reg: Registration): Map<string, string[]> | undefined {
    const objects = reg.handlerObjects;
    if (!objects?.has(this.fns.get(fn)?.owner ?? "")) return undefined;
    // (What runs depends on the watched kind where a type switch on the object decides it.)
    const runs = this.runsFor(reg.kind);
    const key = `${fn} ${[...objects.values()].flat().join(" ")}${runs ? ` ${reg.kind}` : ""}`;
    let reached = this.objectReach.get(key);
    if (!reached) this.objectReach.set(key, (reached = this.reachAsObjects(fn, objects, runs)));
    return reached;
  }

  /**
   * The call that made the closure a producer adds from, when its queue is that closure's parameter: the handler's
   * factory call or one whose result is passed to it, a few levels in (`Blocking(Owner(queue))`: Owner's call).
   */
  protected factoryFor(p: CallFact, reg: Registration): CallFact | undefined {
    const maker = p.recvParam?.fn;
    if (!this.callByRet) {
      this.callByRet = new Map();
      for (const c of this.facts.calls) this.callByRet.set(c.ret, c);
    }
    let level = reg.factoryCall ? [reg.factoryCall] : [];
    for (let depth = 0; maker && level.length && depth < 4; depth++) {
      const made = level.find((c) => this.callees(c).includes(maker));
      if (made) return made;
      level = level.flatMap((c) => c.args.flatMap((a) => this.callByRet?.get(a) ?? []));
    }
    return reg.factoryCall;
  }
  private callByRet: Map<Slot, CallFact> | undefined;

  /**
   * A helper's handlers as one call site of it sees them: a closure of the helper that calls a function parameter
   * (AddFunc: func(obj) { add(obj.(T)) }) stands for the function passed there (none when nil is passed); a function
   * passed in through the helper's parameters counts only at the site that passes it.
   */
  protected handlersIn(
    helper: string,
    handlers: { fn: string; events: string[] }[],
    chain: CallChain,
  ): { fn: string; events: string[] }[] {
    const here = this.paramFnsIn(helper, chain);
    const anywhere = this.paramFns(helper);
    const byFn = new Map<string, string[]>();
    const add = (fn: string, events: string[]) => byFn.set(fn, [...new Set([...(byFn.get(fn) ?? []), ...events])]);
    for (const h of handlers) {
      if (!this.isWithin(h.fn, helper)) {
        if (here.has(h.fn) || !anywhere.has(h.fn)) add(h.fn, h.events);
        continue;
      }
      const forwards = this.callsIn(this.region(h.fn)).filter((c) => PARAM.exec(c.callee)?.[1] === helper);
      if (forwards.length === 0) {
        add(h.fn, h.events);
        continue;
      }
      for (const c of forwards)
        for (const id of keysOf(this.valuesIn(c.callee, chain), "f")) if (this.fns.has(id)) add(id, h.events);
    }
    const order = (events: string[]) => Math.min(...events.map((e) => EVENT_ORDER.indexOf(e)));
    return [...byFn]
      .map(([fn, events]) => ({ fn, events }))
      .sort((a, b) => order(a.events) - order(b.events) || locOrder(this.fns.get(a.fn)!.loc, this.fns.get(b.fn)!.loc));
  }

  /**
   * Listeners whose call reaches `fnId` (a producer's function no informer handler or worker reaches): functions written
   * as properties of an object passed to a call (`member.subscribe({ acquired: (ranges) => ... })`) or closures handed
   * to a registrar that keeps them (`cache.OnResourceUpdated(func(...) {...})`, graph.ts registrarOf), found by walking
   * callers back from fnId; the walk stops at each listener it meets. Each comes with the call it was passed to.
   */
  protected listenersReaching(fnId: string, depth = 6): { call: CallFact; fn: string; event: string }[] {
    const out: { call: CallFact; fn: string; event: string }[] = [];
    const seen = new Set([fnId]);
    let level = [fnId];
    for (let d = 0; d < depth && level.length; d++) {
      const next: string[] = [];
      for (const id of level) {
        const passedTo = this.listenerCall(id);
        if (passedTo) {
          out.push({ call: passedTo, fn: id, event: this.fns.get(id)!.role! });
          continue;
        }
        const registrar = this.registrarOf(id);
        if (registrar) {
          out.push({ call: registrar, fn: id, event: registrar.method });
          continue;
        }
        for (const c of this.callersOf(id))
          if (!seen.has(c.fn) && !this.isInternal(c.fn)) {
            seen.add(c.fn);
            next.push(c.fn);
          }
      }
      level = next;
    }
    return out.sort((a, b) => locOrder(this.fns.get(a.fn)!.loc, this.fns.get(b.fn)!.loc));
  }

  /** The call (in the function fnId is written in) given an object literal whose property `role` is fnId. */
  private listenerCall(fnId: string): CallFact | undefined {
    const f = this.fns.get(fnId);
    if (!f?.role || !f.parent) return undefined;
    const role = f.role;
    return (this.callsByFn.get(f.parent) ?? []).find(
      (c) =>
        !REGISTER_METHODS.has(c.method) &&
        c.args.some((arg) =>
          [...this.pts.valuesOf(arg)].some((v) => v[0] === "l" && this.fnsAt(fieldSlot(v, role)).includes(fnId)),
        ),
    );
  }

  /** Handler functions in a handler value: a ResourceEventHandlerFuncs-like literal, a filtering wrapper, or a type with OnAdd/... */
  protected handlerFns(slot: Slot | undefined, depth: number): { fn: string; events: string[] }[] {
    const byFn = new Map<string, string[]>();
    for (const v of this.pts.valuesOf(slot)) {
      // AddFunc/UpdateFunc/DeleteFunc set on the value win over OnAdd/... methods of its type (client-go's
      // ResourceEventHandlerFuncs has both: the methods only call the funcs).
      const funcs = HANDLER_FIELDS.filter(
        ([field]) => !field.startsWith("On") && this.fnsAt(fieldSlot(v, field)).length > 0,
      );
      for (const [field, event] of funcs.length ? funcs : HANDLER_FIELDS) {
        const s = fieldSlot(v, field);
        for (const fn of this.fnsAt(s)) {
          const events = byFn.get(fn) ?? [];
          if (!events.includes(event)) events.push(event);
          byFn.set(fn, events);
        }
      }
      if (depth < 3) {
        const inner = fieldSlot(v, "Handler");
        if (inner)
          for (const h of this.handlerFns(inner, depth + 1)) byFn.set(h.fn, [...(byFn.get(h.fn) ?? []), ...h.events]);
      }
    }
    const order = (events: string[]) => Math.min(...events.map((e) => EVENT_ORDER.indexOf(e)));
    return [...byFn]
      .map(([fn, events]) => ({ fn, events }))
      .sort((a, b) => order(a.events) - order(b.events) || locOrder(this.fns.get(a.fn)!.loc, this.fns.get(b.fn)!.loc));
  }
}
