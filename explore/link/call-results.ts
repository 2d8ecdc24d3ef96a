// Calls read object by object: when the objects a read is about narrow the functions a call may run
// (`b.impl.Register()` with b one builder, whose impl is one implementation), its result is what those functions
// return, not what every implementation does (instances.ts asks here when a slot is a call's result); the functions
// a call through a field runs for other objects only; the objects whose field holds a value.
import { type Constraint, type Slot, type Value, keysOf } from "../facts.js";
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
   * the others alone return is left out. Undefined for a slot no call's result is, or a call they do not narrow.
   */
  protected resultFor(slot: Slot, receivers: Receivers, depth: number): Set<Value> | undefined {
    const call = this.callsByRet().get(slot);
    const all = call ? this.fnsAt(call.callee) : [];
    if (!call || all.length < 2) return undefined;
    const mine = new Set(keysOf(this.precise(call.callee, receivers, depth + 1), "f"));
    if (mine.size === 0 || all.every((id) => mine.has(id))) return undefined;
    const kept = new Set(all.filter((id) => mine.has(id)).flatMap((id) => [...this.pts.valuesOf(`${id}#ret`)]));
    const others = all.filter((id) => !mine.has(id)).flatMap((id) => [...this.pts.valuesOf(`${id}#ret`)]);
    const dropped = new Set(others.filter((v) => !kept.has(v)));
    return new Set([...this.pts.valuesOf(slot)].filter((v) => !dropped.has(v)));
  }

  /** The type whose method a function is (or is written in). */
  protected methodOwner(fnId: string): string | undefined {
    for (let f = this.fns.get(fnId), d = 0; f && d < 64; f = f.parent ? this.fns.get(f.parent) : undefined, d++)
      if (f.owner) return f.owner;
    return undefined;
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
  }

  private callsByRet(): Map<Slot, CallConstraint> {
    if (this.callResults) return this.callResults;
    this.callResults = new Map();
    for (const k of this.constraintsSolved) if (k.c === "call") this.callResults.set(k.ret, k);
    return this.callResults;
  }
}
