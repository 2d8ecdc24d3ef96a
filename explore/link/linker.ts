// The linker: finds queues, informers, handlers, producers and consumers in the facts, solves points-to so references
// through fields, parameters and helpers meet, and assembles one controller per queue.
// The linker is one class in layers, a file each: graph → registrations → workers → queue-controllers →
// builder-controllers → controller-for → ts-operators → linker (which finds the queues and solves).
import type { GoTypeFacts } from "../go/typed.js";
import { type CallFact, type Constraint, type Facts, type FnFact, keysOf } from "../facts.js";
import { locOrder } from "../loc.js";
import type { Controller } from "../model.js";
import { PointsTo } from "../points-to.js";
import { appendAll } from "./lists.js";
import { perSiteResults } from "./per-site-results.js";
import { TsOperatorLinker } from "./ts-operators.js";
import type { WrapperType } from "./wrapper-queues.js";
import { OWN_ADD, OWN_GET } from "./vocabulary.js";

export interface LinkResult {
  controllers: Controller[];
  unlinked: string[];
}

export function link(facts: Facts, goTypes?: GoTypeFacts): LinkResult {
  return new Linker(facts, goTypes).run();
}

class Linker extends TsOperatorLinker {
  run(): { controllers: Controller[]; unlinked: string[] } {
    this.findQueueTypes();
    this.findWrapperTypes();
    this.findInternal();
    let constraints = [...this.facts.constraints, ...this.promotions(), ...this.builderConstraints()];
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
    // A helper returning what its parameter returns gives each call its own result (per-site-results.ts).
    const perSite = perSiteResults(constraints, this.pts);
    // Per-site results replace constraints (a call's result no longer the helper's): that list is solved anew.
    if (perSite !== constraints) this.pts = new PointsTo((constraints = perSite), this.pts);
    this.solvedCount = constraints.length;
    this.constraintsSolved = constraints;
    const objects = this.objectConstraints();
    appendAll(constraints, objects);
    // Constructors of own queue types (queue.New(100) returning a *Queue) are known only once values flow: add them and
    // solve again.
    let more = objects.length > 0;
    for (const call of this.queueTypes.size || this.wrapperTypes.size ? this.facts.calls : []) {
      if (this.isInternal(call.fn)) continue;
      // A wrapper queue's constructor: each call is a queue of its own (also one its name already made a queue).
      const wrapper = this.wrapperBuiltBy(call);
      if (wrapper) {
        appendAll(constraints, this.wrapperSite(call, wrapper));
        more = true;
        continue;
      }
      if (this.queueCalls.has(call.id)) continue;
      // A function returning a fresh value of an own queue type; one that returns a queue already made (q|) only hands
      // it on.
      const makesOwnQueue = this.fnsAt(call.callee).some((fn) => {
        const ret = this.pts.valuesOf(`${fn}#ret`);
        return keysOf(ret, "o").some((t) => this.queueTypes.has(t)) && keysOf(ret, "q").length === 0;
      });
      if (makesOwnQueue) {
        this.queueCalls.set(call.id, call);
        constraints.push({ c: "alloc", dst: call.ret, v: `q|${call.id}` });
        more = true;
      }
    }
    if (this.dispatchConstraints(constraints)) more = true;
    if (more) this.solveAppended(constraints);
    this.constraintsSolved = constraints;
    this.solveSetters(constraints);
    // A queue a method makes, one per object its calls run on (per-call-queues.ts): known once setters are solved.
    this.solveAgain(constraints, this.methodQueueConstraints());
    const controllers = [
      ...this.controllerForControllers(this.queueControllers()),
      ...this.builderControllers(),
      ...this.bindingControllers(),
    ];
    controllers.sort((a, b) => locOrder(a.loc, b.loc) || a.name.localeCompare(b.name));
    return { controllers, unlinked: this.unlinked };
  }

  /** A wrapper's construction site: its object, and the queue it makes unless its constructor is given one. */
  private wrapperSite(call: CallFact, wrapper: WrapperType): Constraint[] {
    const out = this.siteObject(call, wrapper);
    if (this.givenQueue(call, wrapper)) return out;
    this.wrapperSites.set(call.id, wrapper);
    if (this.queueCalls.has(call.id)) return out;
    this.queueCalls.set(call.id, call);
    out.push({ c: "alloc", dst: call.ret, v: `q|${call.id}` });
    return out;
  }

  /** After a first solve: the objects made where, and what follows from them (one list, to solve again with). */
  private objectConstraints(): Constraint[] {
    return [
      // Objects per allocation site and per call of a shared constructor (instances.ts).
      ...this.instanceConstraints(),
      // Queues a shared constructor makes, one per call like its objects (per-call-queues.ts).
      ...this.perCallQueueConstraints(),
      // A method returning its receiver keeps a chain's object (receiver-objects.ts).
      ...this.chainConstraints(),
      // A library builder's chaining call named like a method of the tree (builder-controllers.ts).
      ...this.sameNamedChainConstraints(),
    ];
  }

  /** Setters called on some objects of their type set those objects' fields: read once the chains are solved. */
  private solveSetters(constraints: Constraint[]): void {
    this.solveAgain(constraints, this.setterConstraints());
  }

  /** Solves again with more constraints, if any. */
  private solveAgain(constraints: Constraint[], more: Constraint[]): void {
    if (more.length === 0) return;
    appendAll(constraints, more);
    this.solveAppended(constraints);
    this.forgetObjectReads();
  }

  /** How many of the constraints the points-to has solved; later ones only add to the list. */
  private solvedCount = 0;

  /** Solves the constraints appended since the last solve on top of it. */
  private solveAppended(constraints: Constraint[]): void {
    this.pts.addAll(constraints.slice(this.solvedCount));
    this.solvedCount = constraints.length;
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
        // A TypeScript base class's methods run with `this` being the subclass instance too (Go's promoted methods do
        // not:
        // their receiver is the embedded value).
        if (t.key.startsWith("ts:"))
          for (const f of this.fns.values())
            if (f.owner === key) out.push({ c: "alloc", dst: `${f.id}#this`, v: `o|${t.key}` });
        for (const e of inner.embeds ?? []) visit(e, depth + 1);
      };
      for (const e of t.embeds ?? []) visit(e, 0);
    }
    return out;
  }

  /**
   * Interface calls the points-to left without a function (the value came from code not read, or through a type the
   * syntax cannot follow): the module's implementations the type checker names, narrowed to the types whose values
   * reach the receiver when any do. True when constraints were added.
   */
  private dispatchConstraints(constraints: Constraint[]): boolean {
    let added = false;
    for (const [callId, targets] of this.goTypes?.dispatch ?? []) {
      const call = this.calls.get(callId);
      if (!call || this.fnsAt(call.callee).length) continue;
      const reaching = new Set(keysOf(this.pts.valuesOf(call.recv), "o"));
      const known = targets.filter((id) => this.fns.has(id));
      const narrowed = known.filter((id) => reaching.has(this.fns.get(id)!.owner ?? ""));
      for (const id of narrowed.length ? narrowed : known) {
        constraints.push({ c: "alloc", dst: call.callee, v: `f|${id}` });
        added = true;
      }
    }
    return added;
  }

  // ---- what is a queue ----

  private findQueueTypes(): void {
    for (const t of this.types.values()) {
      // TypeScript classes are queues by type, as the reader found them (ts/typed-shapes.ts).
      if (t.key.startsWith("ts:")) {
        if (t.queueBy) this.queueTypes.set(t.key, t);
        continue;
      }
      const adds = t.methods.some((m) => OWN_ADD.test(m));
      const gets = t.methods.some((m) => OWN_GET.test(m));
      // With Go's types: the module's types implementing client-go's workqueue interface, whatever their names.
      const byName = !this.goTypes && /queue$/i.test(t.name);
      if ((adds && gets && (t.hasChannel || byName)) || this.goTypes?.queueTypes.has(t.key))
        this.queueTypes.set(t.key, t);
    }
  }

  /** Code inside queue implementations: its own adds and gets are not the operator's. */
  private findInternal(): void {
    for (const f of this.fns.values())
      if (f.library || this.insideQueueType(f) || this.isQueueMaker(f) || this.isWrapperConstructor(f))
        this.internal.add(f.id);
    this.internalMemo.clear();
  }

  /** A method of a queue or wrapper type (without types, also of any type named …Queue). */
  private insideQueueType(f: FnFact): boolean {
    if (!f.owner) return false;
    if (this.queueTypes.has(f.owner) || this.wrapperTypes.has(f.owner)) return true;
    const ownerName = this.types.get(f.owner)?.name ?? f.owner.split(".").at(-1)!;
    return !(this.goTypes && f.lang === "go") && /queue$/i.test(ownerName);
  }

  /** A free function building a queue: as the type checker found it, or (without types) named new…Queue. */
  private isQueueMaker(f: FnFact): boolean {
    if (f.owner) return false;
    if (this.goTypes && f.lang === "go") return this.goTypes.constructors.has(f.id);
    return /^new\w*queue$/i.test(f.name);
  }

  private isQueueConstructor(call: CallFact): boolean {
    if (this.goTypes && this.fns.get(call.fn)?.lang === "go") return this.goTypes.queueCalls.has(call.id);
    if (this.fns.get(call.fn)?.lang === "ts")
      return call.typedQueue !== undefined || this.taskQueue(call) !== undefined;
    const library = libraryQueueConstructor(call);
    if (library !== undefined) return library;
    if (/^new\w*queue$/i.test(call.method) || this.taskQueue(call)) return true;
    const cls = /^new (\w+)$/.exec(call.method)?.[1];
    if (cls) return [...this.queueTypes.values()].some((t) => t.name === cls);
    return false;
  }
}

/** Read without types: client-go's workqueue constructors, controller-runtime's priority queue; else undefined. */
function libraryQueueConstructor(call: CallFact): boolean | undefined {
  if (call.qualifier?.endsWith("/util/workqueue")) return /^New/.test(call.method) && !/Limiter$/.test(call.method);
  if (call.qualifier?.endsWith("/controller/priorityqueue")) return call.method === "New";
  return undefined;
}
