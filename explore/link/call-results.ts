// Calls read object by object: when the objects a read is about narrow the functions a call may run
// (`b.impl.Register()` with b one builder, whose impl is one implementation), its result is what those functions
// return, not what every implementation does (instances.ts asks here when a slot is a call's result); the functions
// a call through a field runs for other objects only; the objects whose field holds a value.
import { type CallFact, type Constraint, type Slot, type Value, keysOf, slotDefined } from "../facts.js";
import { ContextLinker } from "./contexts.js";

/** The receivers of a type's methods read as these objects. */
export type Receivers = ReadonlyMap<string, readonly Value[]>;

type CallConstraint = Extract<Constraint, { c: "call" }>;

export abstract class CallResultLinker extends ContextLinker {
  /** Every constraint the last solve was given. */
  protected constraintsSolved: Constraint[] = [];
  private callResults: Map<Slot, CallConstraint> | undefined;

  /** What a slot holds, object by object (instances.ts). */
  protected abstract precise(slot: Slot | undefined, receivers?: Receivers, depth?: number): ReadonlySet<Value>;
  /** The objects of a type (instances.ts). */
  protected abstract objectsOf(type: string): Value[];

  /**
   * A call's result when the receivers narrow the functions it runs (`b.impl.Register()` with b one builder): what
   * the others alone return is left out, and what a method returns is read with its receiver as the objects the
   * call's receiver holds (that builder's impl: its own queue). Undefined for a slot no call's result is, or a call
   * they do not narrow.
   */
  protected resultFor(slot: Slot, receivers: Receivers, depth: number): Set<Value> | undefined {
    const call = this.callsByRet().get(slot);
    if (!call) return undefined;
    const all = this.fnsAt(call.callee);
    const mine = all.length < 2 ? all : keysOf(this.precise(call.callee, receivers, depth + 1), "f");
    const run = mine.length ? all.filter((id) => mine.includes(id)) : all;
    const onObjects = this.resultOnObjects(slot, run, receivers, depth);
    if (onObjects) return onObjects;
    if (run.length === all.length) return undefined;
    const kept = new Set(run.flatMap((id) => [...this.pts.valuesOf(`${id}#ret`)]));
    const others = all.filter((id) => !run.includes(id)).flatMap((id) => [...this.pts.valuesOf(`${id}#ret`)]);
    const dropped = new Set(others.filter((v) => !kept.has(v)));
    return new Set([...this.pts.valuesOf(slot)].filter((v) => !dropped.has(v)));
  }

  /**
   * What the methods a call runs return, each read with its receiver as the objects of its type the call's receiver
   * holds, when those are some of the type's objects only. Undefined when no method's objects are narrowed.
   */
  private resultOnObjects(slot: Slot, run: string[], receivers: Receivers, depth: number): Set<Value> | undefined {
    const recv = this.callFactsByRet().get(slot)?.recv;
    if (!recv || run.length === 0) return undefined;
    const out = new Set<Value>();
    let narrowed = false;
    for (const id of run) {
      const type = this.fns.get(id)?.owner;
      const objects = new Set(type ? this.objectsOf(type) : []);
      const held = objects.size < 2 ? [] : [...this.precise(recv, receivers, depth + 1)].filter((v) => objects.has(v));
      const returned =
        held.length && held.length < objects.size
          ? this.returnedBy(id, new Map([...receivers, [type!, held]]), depth + 1)
          : undefined;
      if (returned) narrowed = true;
      for (const v of returned ?? this.pts.valuesOf(`${id}#ret`)) out.add(v);
    }
    return narrowed ? out : undefined;
  }

  /** What a function's return statements give, read with the receivers; undefined when one is not a plain value. */
  private returnedBy(fnId: string, receivers: Receivers, depth: number): Set<Value> | undefined {
    const out = new Set<Value>();
    for (const k of this.returns().get(`${fnId}#ret`) ?? []) {
      if (k.c === "alloc") out.add(k.v);
      else if (k.c === "copy") for (const v of this.precise(k.src, receivers, depth + 1)) out.add(v);
      else return undefined;
    }
    return out;
  }

  /**
   * The objects a method's receiver is when a slot read in it holds the given value (the controller objects whose
   * `c.queue` is this queue): undefined when that tells none apart (one object, or every object alike).
   */
  protected receiversHolding(fnId: string, slot: Slot | undefined, value: Value): Receivers | undefined {
    const type = this.methodOwner(fnId);
    const objects = type ? this.objectsOf(type) : [];
    if (!type || objects.length < 2) return undefined;
    const mine = objects.filter((o) => this.precise(slot, new Map([[type, [o]]])).has(value));
    return mine.length && mine.length < objects.length ? new Map([[type, mine]]) : undefined;
  }

  /**
   * Functions that calls through a field, in the methods reached from `start`, run for other objects only: the sync
   * function another controller stored in the same field.
   */
  protected othersOnly(start: string, receivers: Receivers | undefined): Set<string> {
    const out = new Set<string>();
    if (!receivers) return out;
    const allowed = new Set<string>();
    for (const fn of this.reach(start, 3).keys()) {
      const type = this.methodOwner(fn);
      if (!type || !receivers.has(type)) continue;
      for (const c of this.callsByFn.get(fn) ?? []) {
        if (!c.dynamic) continue;
        const mine = new Set(keysOf(this.precise(c.callee, receivers), "f"));
        for (const id of this.callees(c)) (mine.has(id) ? allowed : out).add(id);
      }
    }
    for (const id of allowed) out.delete(id);
    return out;
  }

  /** After a new solve: the calls by result are read from its constraints again. */
  protected forgetCallResults(): void {
    this.callResults = undefined;
    this.returnDefs = undefined;
  }

  /** The constraints giving each function's first result (`<fn>#ret`). */
  private returnDefs: Map<Slot, Constraint[]> | undefined;
  private returns(): Map<Slot, Constraint[]> {
    if (this.returnDefs) return this.returnDefs;
    this.returnDefs = new Map();
    for (const k of this.constraintsSolved) {
      const dst = slotDefined(k);
      if (!dst?.endsWith("#ret")) continue;
      const list = this.returnDefs.get(dst);
      if (list) list.push(k);
      else this.returnDefs.set(dst, [k]);
    }
    return this.returnDefs;
  }

  /** The calls of the sources by the slot of their result. */
  private callFacts: Map<Slot, CallFact> | undefined;
  protected callFactsByRet(): Map<Slot, CallFact> {
    if (!this.callFacts) this.callFacts = new Map(this.facts.calls.map((c) => [c.ret, c]));
    return this.callFacts;
  }

  private callsByRet(): Map<Slot, CallConstraint> {
    if (this.callResults) return this.callResults;
    this.callResults = new Map();
    for (const k of this.constraintsSolved) if (k.c === "call") this.callResults.set(k.ret, k);
    return this.callResults;
  }
}
