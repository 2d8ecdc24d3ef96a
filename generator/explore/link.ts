// The linker: finds queues, informers, handlers, producers and consumers in the facts, solves points-to so references
// through fields, parameters and helpers meet, and assembles one controller per queue.
import type { CallFact, Constraint, Facts, FnFact, Loc, Slot, TypeFact } from "./facts.js";
import type { Controller, Handler, Place, Producer, Source, Worker } from "./model.js";
import { PointsTo, fieldSlot } from "./points-to.js";

const ADD_METHODS = new Set(["Add", "AddAfter", "AddRateLimited", "add", "addAfter", "addRateLimited"]);
const GET_METHODS = new Set(["Get", "get"]);
const DONE_METHODS = new Set(["Done", "done"]);
const FORGET_METHODS = new Set(["Forget", "forget"]);
const REGISTER_METHODS = new Set(["AddEventHandler", "AddEventHandlerWithResyncPeriod", "AddEventHandlerWithOptions", "addEventHandler"]);
/** Own queue types: method names that put in and take out. */
const OWN_ADD = /^(add|enqueue|push|put)$/i;
const OWN_GET = /^(get|dequeue|pop|take|next)$/i;
const HANDLER_FIELDS: [string, string][] = [
  ["AddFunc", "add"], ["UpdateFunc", "update"], ["DeleteFunc", "delete"],
  ["addFunc", "add"], ["updateFunc", "update"], ["deleteFunc", "delete"],
  ["OnAdd", "add"], ["OnUpdate", "update"], ["OnDelete", "delete"],
];

const EVENT_ORDER = ["add", "update", "delete", "watch", "map"];
const CLIENT_NODE_EVENTS: Record<string, string> = { add: "add", update: "update", change: "update", delete: "delete" };

export interface LinkResult {
  controllers: Controller[];
  unlinked: string[];
}

export function link(facts: Facts): LinkResult {
  return new Linker(facts).run();
}

class Linker {
  private readonly fns = new Map<string, FnFact>();
  private readonly calls = new Map<string, CallFact>();
  private readonly callsByFn = new Map<string, CallFact[]>();
  private readonly children = new Map<string, string[]>();
  private readonly types = new Map<string, TypeFact>();
  private readonly queueTypes = new Map<string, TypeFact>();
  private readonly internal = new Set<string>();
  private readonly queueCalls = new Map<string, CallFact>();
  private readonly informerCalls = new Map<string, CallFact>();
  private pts!: PointsTo;
  private readonly unlinked: string[] = [];

  constructor(private readonly facts: Facts) {
    for (const f of facts.fns) this.fns.set(f.id, f);
    for (const c of facts.calls) {
      this.calls.set(c.id, c);
      push(this.callsByFn, c.fn, c);
    }
    for (const f of facts.fns) if (f.parent) push(this.children, f.parent, f.id);
    for (const t of facts.types) this.types.set(t.key, t);
  }

  run(): { controllers: Controller[]; unlinked: string[] } {
    this.findQueueTypes();
    this.findInternal();
    const constraints = [...this.facts.constraints, ...this.promotions()];
    for (const call of this.facts.calls) {
      if (this.isInternal(call.fn)) continue;
      if (this.isQueueConstructor(call)) {
        this.queueCalls.set(call.id, call);
        constraints.push({ c: "alloc", dst: call.ret, v: `q|${call.id}` });
      }
      if (call.informer) {
        this.informerCalls.set(call.id, call);
        constraints.push({ c: "alloc", dst: call.ret, v: `i|${call.id}` });
      }
    }
    this.pts = new PointsTo(constraints);
    // Constructors of own queue types (queue.New(100) returning a *Queue) are known only once values flow: add them and solve again.
    let more = false;
    for (const call of this.queueTypes.size ? this.facts.calls : []) {
      if (this.isInternal(call.fn) || this.queueCalls.has(call.id)) continue;
      // A function returning a fresh value of an own queue type; one that returns a queue already made (q|) only hands it on.
      const makesOwnQueue = this.fnsAt(call.callee).some((fn) => {
        const ret = [...this.pts.valuesOf(`${fn}#ret`)];
        return ret.some((v) => v.startsWith("o|") && this.queueTypes.has(v.slice(2))) && !ret.some((v) => v.startsWith("q|"));
      });
      if (makesOwnQueue) {
        this.queueCalls.set(call.id, call);
        constraints.push({ c: "alloc", dst: call.ret, v: `q|${call.id}` });
        more = true;
      }
    }
    if (more) this.pts = new PointsTo(constraints);
    const controllers = [...this.queueControllers(), ...this.builderControllers()];
    controllers.sort((a, b) => locOrder(a.loc, b.loc) || a.name.localeCompare(b.name));
    return { controllers, unlinked: this.unlinked };
  }

  /**
   * Embedded structs and base classes: a name the outer type does not declare itself is the inner type's, both ways
   * (c.queue on the outer type is the queue the inner type's worker reads; c.sync set on the outer is what it calls).
   */
  private promotions(): Constraint[] {
    const out: Constraint[] = [];
    for (const t of this.types.values()) {
      const own = new Set([...(t.fields ?? []), ...t.methods]);
      const seen = new Set<string>();
      const visit = (key: string, depth: number) => {
        const inner = this.types.get(key);
        if (!inner || seen.has(key) || depth > 4) return;
        seen.add(key);
        for (const name of new Set([...(inner.fields ?? []), ...inner.methods])) {
          if (own.has(name)) continue;
          out.push({ c: "copy", dst: `${t.key}.${name}`, src: `${key}.${name}` });
          out.push({ c: "copy", dst: `${key}.${name}`, src: `${t.key}.${name}` });
        }
        // A TypeScript base class's methods run with `this` being the subclass instance too (Go's promoted methods do not:
        // their receiver is the embedded value).
        if (t.key.startsWith("ts:")) for (const f of this.fns.values()) if (f.owner === key) out.push({ c: "alloc", dst: `${f.id}#this`, v: `o|${t.key}` });
        for (const e of inner.embeds ?? []) visit(e, depth + 1);
      };
      for (const e of t.embeds ?? []) visit(e, 0);
    }
    return out;
  }

  // ---- what is a queue ----

  private findQueueTypes(): void {
    for (const t of this.types.values()) {
      const adds = t.methods.some((m) => OWN_ADD.test(m));
      const gets = t.methods.some((m) => OWN_GET.test(m));
      if (adds && gets && (t.hasChannel || /queue$/i.test(t.name))) this.queueTypes.set(t.key, t);
    }
  }

  /** Code inside queue implementations: its own adds and gets are not the operator's. */
  private findInternal(): void {
    for (const f of this.fns.values()) {
      if (f.library) {
        this.internal.add(f.id);
        continue;
      }
      const ownerName = f.owner ? this.types.get(f.owner)?.name ?? f.owner.split(".").at(-1)! : undefined;
      if ((f.owner && (this.queueTypes.has(f.owner) || /queue$/i.test(ownerName ?? ""))) || (!f.owner && /^new\w*queue$/i.test(f.name))) this.internal.add(f.id);
    }
  }

  private isInternal(fnId: string): boolean {
    let depth = 0;
    for (let f = this.fns.get(fnId); f && depth < 64; f = f.parent ? this.fns.get(f.parent) : undefined, depth++) if (this.internal.has(f.id)) return true;
    return false;
  }

  private isQueueConstructor(call: CallFact): boolean {
    if (call.qualifier?.endsWith("/util/workqueue")) return /^New/.test(call.method) && !/Limiter$/.test(call.method);
    if (/^new\w*queue$/i.test(call.method)) return true;
    const cls = /^new (\w+)$/.exec(call.method)?.[1];
    if (cls) return [...this.queueTypes.values()].some((t) => t.name === cls);
    return false;
  }

  // ---- points-to helpers ----

  private fnsAt(slot: Slot | undefined): string[] {
    return [...this.pts.valuesOf(slot)].filter((v) => v.startsWith("f|")).map((v) => v.slice(2)).filter((id) => this.fns.has(id));
  }

  private queuesAt(slot: Slot | undefined): string[] {
    const queues = new Set<string>();
    for (const v of this.pts.valuesOf(slot)) {
      if (v.startsWith("q|")) queues.add(v.slice(2));
    }
    return [...queues];
  }

  private place(fnId: string): Place {
    const f = this.fns.get(fnId)!;
    return { name: this.fnName(f), loc: f.loc };
  }

  private fnName(f: FnFact): string {
    if (f.name !== "func literal" && f.name !== "arrow function") return f.name;
    const parent = f.parent ? this.fns.get(f.parent) : undefined;
    return parent && parent.name !== "module" ? `${f.name} in ${this.fnName(parent)}` : f.name;
  }

  /** The functions a call may run. */
  private readonly calleeMemo = new Map<string, string[]>();
  private callees(call: CallFact): string[] {
    let out = this.calleeMemo.get(call.id);
    if (!out) this.calleeMemo.set(call.id, (out = this.fnsAt(call.callee).filter((id) => !this.isInternal(id))));
    return out;
  }

  private callerIndex: Map<string, CallFact[]> | undefined;
  /** The calls that may run a function (built once: every call's callees). */
  private callersOf(fnId: string): CallFact[] {
    if (!this.callerIndex) {
      this.callerIndex = new Map();
      for (const c of this.facts.calls) for (const id of this.callees(c)) push(this.callerIndex, id, c);
    }
    return this.callerIndex.get(fnId) ?? [];
  }

  /** A function and the closures written inside it. */
  private region(fnId: string): string[] {
    const out = [fnId];
    for (let i = 0; i < out.length; i++) for (const c of this.children.get(out[i]!) ?? []) out.push(c);
    return out;
  }

  private callsIn(fnIds: string[]): CallFact[] {
    return fnIds.flatMap((id) => this.callsByFn.get(id) ?? []).sort((a, b) => locOrder(a.loc, b.loc));
  }

  /** Functions reachable from `start` (calls and closures), with the path that first reached each. */
  private reach(start: string, limit = 8): Map<string, string[]> {
    const paths = new Map<string, string[]>([[start, []]]);
    const queue = [start];
    while (queue.length) {
      const fn = queue.shift()!;
      const path = paths.get(fn)!;
      if (path.length >= limit) continue;
      const next: [string, boolean][] = [
        ...(this.children.get(fn) ?? []).map((c): [string, boolean] => [c, false]),
        ...(this.callsByFn.get(fn) ?? []).flatMap((c) => this.callees(c).map((id): [string, boolean] => [id, true])),
      ];
      for (const [id, isCall] of next) {
        if (paths.has(id) || this.isInternal(id)) continue;
        paths.set(id, isCall ? [...path, id] : path);
        queue.push(id);
      }
    }
    return paths;
  }

  // ---- controllers built around a queue ----

  private queueControllers(): Controller[] {
    const producersByQueue = new Map<string, CallFact[]>();
    const consumersByQueue = new Map<string, CallFact[]>();
    const opsByQueue = new Map<string, CallFact[]>();
    for (const call of this.facts.calls) {
      if (!call.recv || this.isInternal(call.fn)) continue;
      const queues = this.queuesAt(call.recv);
      if (queues.length === 0) continue;
      for (const q of queues) {
        const own = this.ownQueueType(q);
        const isAdd = own ? OWN_ADD.test(call.method) || ADD_METHODS.has(call.method) : ADD_METHODS.has(call.method);
        const isGet = own ? OWN_GET.test(call.method) : GET_METHODS.has(call.method);
        if (isAdd) push(producersByQueue, q, call);
        else if (isGet) push(consumersByQueue, q, call);
        else push(opsByQueue, q, call);
      }
    }
    const registrations = this.registrations();
    // Registration-driven: each handler's reachable producers, with the queue each one adds to *for this registration*
    // (a handler made by a helper such as enqueueRequestForObject(queue) adds to the queue passed at this call).
    const sourcesByQueue = new Map<string, Source[]>();
    const usedProducers = new Set<string>();
    const allProducers = [...new Set([...producersByQueue.values()].flat())];
    for (const reg of registrations) {
      const handlersByQueue = new Map<string, Handler[]>();
      for (const h of reg.handlers) {
        const reached = this.reach(h.fn);
        const byQueue = new Map<string, Producer[]>();
        for (const p of allProducers) {
          const path = reached.get(p.fn);
          if (!path) continue;
          for (const q of this.producerQueues(p, reg.factoryCall)) {
            if (!this.queueCalls.has(q)) continue;
            usedProducers.add(`${p.loc.file}:${p.loc.line}`);
            push(byQueue, q, { method: p.method, text: p.text, loc: p.loc, via: path.map((id) => this.place(id)) });
          }
        }
        for (const [q, found] of byQueue) push(handlersByQueue, q, { events: h.events, fn: this.place(h.fn), producers: found.sort((a, b) => locOrder(a.loc, b.loc)) });
      }
      for (const [q, handlers] of handlersByQueue) {
        // One informer with handlers added by several calls (client-node's on("add"), on("update"), ...) is one source.
        const same = (sourcesByQueue.get(q) ?? []).find((s) => s.kind === reg.kind && s.via === reg.via && at(s.loc) === at(reg.loc));
        if (same) {
          for (const h of handlers) if (!same.handlers.some((x) => at(x.fn.loc) === at(h.fn.loc))) same.handlers.push(h);
          continue;
        }
        push(sourcesByQueue, q, { kind: reg.kind, via: reg.via, ...(reg.loc ? { loc: reg.loc } : {}), ...(reg.registeredAt ? { registeredAt: reg.registeredAt } : {}), handlers });
      }
      if (handlersByQueue.size === 0) {
        for (const h of reg.handlers) this.unlinked.push(`handler ${this.place(h.fn).name} (${at(this.place(h.fn).loc)}) for ${reg.kind}: puts nothing on a queue found in the explored sources`);
      }
    }
    const controllers: Controller[] = [];
    for (const [queueId, ctor] of this.queueCalls) {
      const producers = producersByQueue.get(queueId) ?? [];
      const consumers = consumersByQueue.get(queueId) ?? [];
      const workers = consumers.map((get) => this.worker(get, producers, opsByQueue.get(queueId) ?? []));
      for (const w of workers) for (const r of w.requeues) usedProducers.add(`${r.loc.file}:${r.loc.line}`);
      // The queue's own file first (the primary resource's wiring), then in source order.
      const here = (s: Source) => ((s.registeredAt ?? s.loc)?.file === ctor.loc.file ? 0 : 1);
      const sources = (sourcesByQueue.get(queueId) ?? []).sort((a, b) => here(a) - here(b) || locOrder(a.registeredAt ?? a.loc, b.registeredAt ?? b.loc));
      const creator = this.fns.get(ctor.fn);
      const own = this.ownQueueType(queueId);
      const ref = consumers[0] ?? producers[0];
      // Named after the type holding the queue in its file; a queue made in main() is named after whatever holds it.
      const holder = this.holderType(queueId, ctor.loc.file, false) ?? (creator?.name === "main" ? this.holderType(queueId, ctor.loc.file, true) : undefined);
      const controller: Controller = {
        name: holder ?? (creator && creator.name !== "module" ? this.fnName(creator) : ctor.loc.file),
        loc: ctor.loc,
        queue: {
          ...(this.queueName(ctor) ? { name: this.queueName(ctor)! } : {}),
          ...(ref ? { ref: ref.text.slice(0, Math.max(0, ref.text.length - ref.method.length - 1)) } : {}),
          type: own ? `${own.name} (own queue type${own.hasChannel ? " over a channel" : ""})` : ctor.qualifier?.endsWith("/util/workqueue") ? `workqueue.${ctor.method}` : ctor.method,
          rateLimiter: this.rateLimiter(ctor, !!own),
          loc: ctor.loc,
        },
        sources,
        workers,
      };
      if (sources.length === 0) this.unlinked.push(`queue ${describeQueue(controller)}: no event handler found that adds to it`);
      if (workers.length === 0) this.unlinked.push(`queue ${describeQueue(controller)}: no worker found that takes keys from it (nothing calls Get on it in the explored sources)`);
      controllers.push(controller);
    }
    for (const [, producers] of producersByQueue) {
      for (const p of producers) {
        const key = `${p.loc.file}:${p.loc.line}`;
        if (usedProducers.has(key)) continue;
        usedProducers.add(key);
        this.unlinked.push(`${p.text} at ${key}: not reached from any event handler or worker`);
      }
    }
    return controllers;
  }

  /** The type (declared in the queue's file) whose field holds the queue: the controller's own name for itself. */
  private holders: Map<string, TypeFact[]> | undefined;
  private holderType(queueId: string, file: string, anywhere: boolean): string | undefined {
    if (!this.holders) {
      // Built once: for each store of a queue into a field, the types whose field it is.
      this.holders = new Map();
      for (const k of this.facts.constraints) {
        if (k.c !== "store") continue;
        const queues = this.queuesAt(k.src);
        if (queues.length === 0) continue;
        for (const v of this.pts.valuesOf(k.base)) {
          const t = v.startsWith("o|") ? this.types.get(v.slice(2)) : undefined;
          if (t) for (const q of queues) push(this.holders, q, t);
        }
      }
    }
    return (this.holders.get(queueId) ?? []).find((t) => anywhere || t.loc.file === file)?.name;
  }

  private ownQueueType(queueId: string): TypeFact | undefined {
    const ctor = this.queueCalls.get(queueId);
    if (!ctor) return undefined;
    for (const fnId of this.fnsAt(ctor.callee)) {
      const f = this.fns.get(fnId)!;
      // The constructor's result: the own queue type whose value it returns.
      for (const v of this.pts.valuesOf(`${fnId}#ret`)) if (v.startsWith("o|") && this.queueTypes.has(v.slice(2))) return this.queueTypes.get(v.slice(2));
      void f;
    }
    for (const v of this.pts.valuesOf(ctor.callee)) if (v.startsWith("c|") && this.queueTypes.has(v.slice(2))) return this.queueTypes.get(v.slice(2));
    return undefined;
  }

  /** The name given to the queue's constructor as a string literal (a name held in a variable is not known here). */
  private queueName(ctor: CallFact): string | undefined {
    const keyed = ctor.keyed["Name"] ?? ctor.keyed["name"];
    if (keyed !== undefined) return /^"(.*)"$/.exec(keyed)?.[1];
    return ctor.strings.at(-1);
  }

  private rateLimiter(ctor: CallFact, own: boolean): string {
    if (own) return "none";
    const keyed = ctor.keyed["RateLimiter"] ?? ctor.keyed["rateLimiter"];
    if (keyed) return keyed;
    if (/RateLimiting/i.test(ctor.method)) {
      const first = ctor.argTexts[0];
      if (ctor.qualifier?.endsWith("/util/workqueue") && first) return first;
      return "default";
    }
    return "none";
  }

  /** Every place handlers are attached to an informer or a watch, with the handler functions per event. */
  private registrations(): Registration[] {
    const out: Registration[] = [];
    const callByRet = new Map<Slot, CallFact>();
    for (const c of this.facts.calls) callByRet.set(c.ret, c);
    const informerOf = (slot: Slot | undefined): CallFact[] =>
      [...this.pts.valuesOf(slot)].filter((v) => v.startsWith("i|")).map((v) => this.informerCalls.get(v.slice(2))).filter((c): c is CallFact => !!c);
    for (const call of this.facts.calls) {
      if (this.isInternal(call.fn)) continue;
      let handlerSlot: Slot | undefined;
      let informers: CallFact[] = [];
      if (REGISTER_METHODS.has(call.method) && call.recv) {
        handlerSlot = call.args[0];
        informers = informerOf(call.recv);
        // fooInformer.Informer() may also lead into a generated informer package's NewSharedIndexInformer: the same
        // informer, seen from the operator's side, which is the one to report.
        const accessors = informers.filter((i) => i.informer!.via.endsWith(".Informer()"));
        if (accessors.length) informers = accessors;
      } else if (call.method === "on" && call.recv && CLIENT_NODE_EVENTS[call.strings[0] ?? ""] && informerOf(call.recv).length) {
        // @kubernetes/client-node: informer.on("add" | "update" | "change" | "delete", fn).
        const fns = this.fnsAt(call.args[1]);
        if (fns.length === 0) continue;
        for (const inf of informerOf(call.recv)) {
          out.push({ kind: inf.informer!.kind, via: inf.informer!.via, loc: inf.loc, registeredAt: call.loc, handlers: fns.map((fn) => ({ fn, events: [CLIENT_NODE_EVENTS[call.strings[0]!]!] })) });
        }
        continue;
      } else if (call.handlerArg !== undefined && call.informer) {
        handlerSlot = call.args[call.handlerArg];
        informers = [call];
      } else if (call.informer?.via === "Watch") {
        // A raw watch: the function reading its result channel is the handler.
        out.push({ kind: call.informer.kind, via: "Watch", loc: call.loc, handlers: [{ fn: call.fn, events: ["watch"] }] });
        continue;
      } else continue;
      const handlers = this.handlerFns(handlerSlot, 0);
      if (handlers.length === 0) {
        this.unlinked.push(`${call.text} at ${at(call.loc)}: its handlers are not in the explored sources${call.args[0] && callByRet.get(call.args[0])?.qualifier ? ` (they come from ${callByRet.get(call.args[0])!.qualifier}: explore that library's sources too)` : ""}`);
        continue;
      }
      const factory = handlerSlot ? callByRet.get(handlerSlot) : undefined;
      const factoryCall = factory ? { factoryCall: factory } : {};
      if (informers.length === 0) {
        out.push({ kind: "?", via: call.text.replace(/\.\w+$/, ""), registeredAt: call.loc, handlers, ...factoryCall });
        this.unlinked.push(`${call.text} at ${at(call.loc)}: could not tell which informer (so which kind) this is`);
      }
      for (const inf of informers) {
        out.push({ kind: inf.informer!.kind, via: inf.informer!.via, loc: inf.loc, ...(inf.id !== call.id && inf.loc.line !== call.loc.line ? { registeredAt: call.loc } : {}), handlers, ...factoryCall });
      }
    }
    return out;
  }

  /** Handler functions in a handler value: a ResourceEventHandlerFuncs-like literal, a filtering wrapper, or a type with OnAdd/... */
  private handlerFns(slot: Slot | undefined, depth: number): { fn: string; events: string[] }[] {
    const byFn = new Map<string, string[]>();
    for (const v of this.pts.valuesOf(slot)) {
      // AddFunc/UpdateFunc/DeleteFunc set on the value win over OnAdd/... methods of its type (client-go's
      // ResourceEventHandlerFuncs has both: the methods only call the funcs).
      const funcs = HANDLER_FIELDS.filter(([field]) => !field.startsWith("On") && this.fnsAt(fieldSlot(v, field)).length > 0);
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
        if (inner) for (const h of this.handlerFns(inner, depth + 1)) byFn.set(h.fn, [...(byFn.get(h.fn) ?? []), ...h.events]);
      }
    }
    const order = (events: string[]) => Math.min(...events.map((e) => EVENT_ORDER.indexOf(e)));
    return [...byFn].map(([fn, events]) => ({ fn, events })).sort((a, b) => order(a.events) - order(b.events) || locOrder(this.fns.get(a.fn)!.loc, this.fns.get(b.fn)!.loc));
  }

  // ---- workers ----

  /** The queues a producer adds to; through a handler factory's parameter, the one passed at that factory call. */
  private producerQueues(p: CallFact, factoryCall: CallFact | undefined): string[] {
    if (factoryCall && p.recvParam && this.callees(factoryCall).includes(p.recvParam.fn)) {
      let slots: Slot[] = [factoryCall.args[p.recvParam.index] ?? ""];
      for (const field of p.recvParam.path) slots = slots.flatMap((s) => [...this.pts.valuesOf(s)].map((v) => fieldSlot(v, field)).filter((x): x is Slot => !!x));
      return [...new Set(slots.flatMap((s) => this.queuesAt(s)))];
    }
    return this.queuesAt(p.recv);
  }

  private worker(get: CallFact, producers: CallFact[], ops: CallFact[]): Worker {
    const getter = get.fn;
    let loop: string | undefined = get.inLoop ? getter : undefined;
    if (!loop) {
      const callers = this.callersOf(getter);
      loop = callers.find((c) => c.inLoop)?.fn;
      if (!loop) this.unlinked.push(`${get.text} at ${at(get.loc)}: ${this.place(getter).name} is not called from a loop in the explored sources`);
    }
    const region = this.region(getter);
    const regionCalls = this.callsIn(region);
    // Direct helpers of the getter (a handleErr(err, key)) count for Done/Forget/requeues too.
    const helpers = regionCalls.flatMap((c) => this.callees(c)).filter((id) => !region.includes(id));
    const opRegion = new Set([...region, ...helpers]);
    const inRegion = (c: CallFact) => opRegion.has(c.fn);
    const [process, ...alternatives] = this.processing(get, region, regionCalls);
    const worker: Worker = {
      loop: this.place(loop ?? getter),
      ...(loop && loop !== getter ? { getter: this.place(getter) } : {}),
      get: get.loc,
      getText: get.text,
      ...(process ? { process: this.place(process) } : {}),
      ...(alternatives.length ? { processAlso: alternatives.map((id) => this.place(id)) } : {}),
      then: process ? this.delegations(process, 0) : [],
      done: ops.filter((c) => inRegion(c) && DONE_METHODS.has(c.method)).map((c) => c.loc),
      forget: ops.filter((c) => inRegion(c) && FORGET_METHODS.has(c.method)).map((c) => c.loc),
      requeues: producers.filter((c) => inRegion(c) && (!process || !this.region(process).includes(c.fn))).map((c) => ({ method: c.method, loc: c.loc })),
    };
    return worker;
  }

  /** The function the item from Get is handed to: the first call in the getter that passes it (or a name derived from it). */
  private processing(get: CallFact, region: string[], regionCalls: CallFact[]): string[] {
    const found = this.processingIn(region, regionCalls, (a) => a.rhsCall === get.id, get.id);
    // Several functions behind one call (an interface or a field set by several controllers): all of them, as found.
    if (found.length !== 1) return found;
    const first = found[0]!;
    // A wrapper that itself marks the key Done/Forget or requeues it (handle(key)) is still queue plumbing: look inside.
    let p = first;
    for (let depth = 0; depth < 2; depth++) {
      const inner = this.region(p);
      const innerCalls = this.callsIn(inner);
      if (!innerCalls.some((c) => c.recv && this.queuesAt(c.recv).length)) break;
      const params = new Set(this.fns.get(p)!.paramNames);
      const next = this.processingIn(inner, innerCalls, undefined, undefined, params);
      if (next.length === 0) break;
      if (next.length > 1) return next;
      p = next[0]!;
    }
    return [p];
  }

  private processingIn(region: string[], regionCalls: CallFact[], seed: ((a: FnFact["assigns"][number]) => boolean) | undefined, skip: string | undefined, seedNames: Set<string> = new Set()): string[] {
    const derived = new Set<string>(seedNames);
    const assigns = region.flatMap((id) => this.fns.get(id)!.assigns);
    if (seed) for (const a of assigns) if (seed(a)) for (const n of a.lhs) derived.add(n);
    for (let changed = true; changed; ) {
      changed = false;
      for (const a of assigns) {
        if (a.rhsIdents.some((i) => derived.has(i))) {
          for (const n of a.lhs) {
            if (!derived.has(n)) {
              derived.add(n);
              changed = true;
            }
          }
        }
      }
    }
    for (const c of regionCalls) {
      if (c.id === skip || (c.recv && this.queuesAt(c.recv).length)) continue;
      if (!c.argIdents.some((i) => derived.has(i))) continue;
      const targets = this.callees(c).filter((id) => !region.includes(id));
      if (targets.length) return targets.sort((a, b) => locOrder(this.fns.get(a)!.loc, this.fns.get(b)!.loc));
    }
    return [];
  }

  /**
   * Where the processing function hands over to code chosen at run time in another file (crdgen's config.reconcile →
   * hooks.reconcile): calls through a field, parameter or variable whose result is returned or awaited. Lambdas are
   * followed through; a chain ends at the first named function, and chains that end in a lambda calling nothing known
   * (an optional hook the operator does not have) are dropped.
   */
  private delegations(fnId: string, depth: number): Place[][] {
    if (depth > 5) return [];
    const file = this.fns.get(fnId)!.loc.file;
    const chains: Place[][] = [];
    const seen = new Set<string>();
    for (const c of this.callsIn(this.region(fnId))) {
      if (!c.dynamic || !c.tail) continue;
      for (const target of this.callees(c)) {
        const t = this.fns.get(target)!;
        if ((depth === 0 && t.loc.file === file) || seen.has(target)) continue;
        if (t.owner && c.recv && this.pts.valuesOf(c.recv).has(`o|${t.owner}`) && !this.isFieldHolding(c)) continue;
        seen.add(target);
        const hop: Place = { name: `${c.text} → ${this.fnName(t)}`, loc: t.loc };
        if (!isLambda(t)) {
          chains.push([hop]);
          continue;
        }
        for (const f of this.delegations(target, depth + 1)) chains.push([hop, ...f]);
      }
    }
    return chains;
  }

  /** A call through a field that holds a function (`c.syncHandler(key)` with syncHandler set in the constructor). */
  private storedFields: Set<string> | undefined;
  private isFieldHolding(c: CallFact): boolean {
    this.storedFields ??= new Set(this.facts.constraints.flatMap((k) => (k.c === "store" ? [k.field] : [])));
    return this.storedFields.has(c.method);
  }

  // ---- controller-runtime ----

  private builderControllers(): Controller[] {
    return this.facts.builders.map((b) => {
      const values = b.reconcilers.flatMap((slot) => [...this.pts.valuesOf(slot)]);
      const reconcilers = values.filter((v) => v.startsWith("o|")).map((v) => v.slice(2));
      // A type's Reconcile method, or a function given as the reconciler (reconcile.Func(func(ctx, req) ...)).
      const reconcile = [...reconcilers.flatMap((t) => this.fnsAt(`${t}.Reconcile`)), ...values.filter((v) => v.startsWith("f|")).map((v) => v.slice(2)).filter((id) => this.fns.has(id))][0];
      const typeName = reconcilers[0] ? this.types.get(reconcilers[0])?.name ?? reconcilers[0].split(".").at(-1)! : undefined;
      const sources: Source[] = b.sources.map((s) => {
        const handlerFns = s.handler ? this.fnsAt(s.handler) : [];
        const handlers: Handler[] =
          s.via === "Watches" || s.via === "Watch"
            ? handlerFns.length
              ? handlerFns.map((fn) => ({ events: ["map"], fn: this.place(fn), producers: [] }))
              : [{ events: ["add", "update", "delete"], fn: { name: `${s.handlerName ?? "handler"} (controller-runtime)` }, producers: [] }]
            : [{ events: ["add", "update", "delete"], fn: { name: s.via === "For" ? "handler.EnqueueRequestForObject (controller-runtime)" : "handler.EnqueueRequestForOwner (controller-runtime)" }, producers: [] }];
        return { kind: s.kind, via: s.via, loc: s.loc, handlers };
      });
      if (!reconcile) this.unlinked.push(`controller-runtime builder at ${at(b.loc)}: no Reconcile method found for its reconciler`);
      return {
        name: b.name ?? typeName ?? this.place(b.fn).name,
        loc: b.loc,
        queue: { ...(b.name ? { name: b.name } : {}), type: "controller-runtime workqueue (created by the controller)", rateLimiter: "default (workqueue.DefaultTypedControllerRateLimiter)", loc: b.loc },
        sources,
        workers: [
          {
            loop: { name: "controller-runtime worker (Controller.processNextWorkItem in the library)" },
            ...(reconcile ? { process: this.place(reconcile) } : {}),
            then: [],
            done: [],
            forget: [],
            requeues: [],
          },
        ],
      };
    });
  }
}

interface Registration {
  kind: string;
  via: string;
  loc?: Loc;
  registeredAt?: Loc;
  handlers: { fn: string; events: string[] }[];
  /** The call that made the handler object (enqueueRequestForObject(queue, ...)), for its arguments. */
  factoryCall?: CallFact;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function isLambda(f: FnFact): boolean {
  return f.name === "func literal" || f.name === "arrow function" || f.name.endsWith(" (arrow)");
}

function at(l: Loc | undefined): string {
  return l ? `${l.file}:${l.line}` : "library";
}

function locOrder(a: Loc | undefined, b: Loc | undefined): number {
  if (!a || !b) return a ? -1 : b ? 1 : 0;
  return a.file.localeCompare(b.file) || a.line - b.line;
}

function describeQueue(c: Controller): string {
  return `${c.queue.name ? `"${c.queue.name}" ` : ""}created at ${at(c.queue.loc)}`;
}
