// Handlers that are objects: a value whose type has OnAdd/OnUpdate/OnDelete, made per call of a shared constructor
// (`Blocking(c.onSecret)` returning `filtered{handler: blocking{workFunc: fn}}`). Its methods are shared by every
// controller that calls the constructor; what they run is not. Read with the registration's own object as receiver,
// a call through a field (`b.workFunc(o)`) runs only the function stored in that object, and a method called on a
// field (`f.handler.run(o)`) runs on the object that field holds: a handler reaches only its own controller's queue.
import { type CallFact, type Slot, type Value, keysOf } from "../facts.js";
import { InstanceLinker, type Receivers, instanceType } from "./instances.js";

export abstract class HandlerObjectLinker extends InstanceLinker {
  /** The objects a handler value is, by type, when they are some of their type's objects only; else undefined. */
  protected handlerObjects(slot: Slot | undefined): Receivers | undefined {
    const byType = new Map<string, Value[]>();
    for (const v of this.precise(slot)) {
      const type = instanceType(v);
      if (type) byType.set(type, [...(byType.get(type) ?? []), v]);
    }
    for (const [type, objects] of byType) if (objects.length >= this.objectsOf(type).length) byType.delete(type);
    return byType.size ? byType : undefined;
  }

  /**
   * Functions reachable from a handler (graph.ts's reach), its receiver read as `objects`: the objects met on the way
   * (fields of the handler's object holding objects) become receivers too.
   */
  protected reachAsObjects(
    start: string,
    objects: Receivers,
    runs?: (c: CallFact) => boolean,
    limit = 8,
  ): Map<string, string[]> {
    const receivers = new Map<string, Value[]>([...objects].map(([t, o]) => [t, [...o]]));
    return this.reach(start, limit, runs, (c, fn) => this.calleesAsObjects(c, fn, receivers));
  }

  /**
   * What a call in `fn` runs when fn's receiver is one of `receivers`' objects: through a function field, only the
   * functions the object holds; a method on a value holding objects, only their types' methods (the objects then
   * receivers of those methods). Any other call runs what the points-to says.
   */
  private calleesAsObjects(c: CallFact, fn: string, receivers: Map<string, Value[]>): string[] {
    const all = this.callees(c);
    const owner = this.methodOwner(fn);
    if (!owner || !receivers.has(owner)) return all;
    // (A method called on a field is written like a call through one: `f.handler.run(o)`.)
    const stored = c.dynamic ? new Set(keysOf(this.precise(c.callee, receivers), "f")) : undefined;
    const held = [...this.precise(c.recv, receivers)].filter((v) => instanceType(v) !== undefined);
    const types = new Set(held.map((v) => instanceType(v)!));
    const methods = all.filter((id) => types.has(this.fns.get(id)?.owner ?? ""));
    for (const v of methods.length ? held : []) {
      const list = receivers.get(instanceType(v)!) ?? [];
      if (!list.includes(v)) receivers.set(instanceType(v)!, [...list, v]);
    }
    const kept = stored ? all.filter((id) => stored.has(id)) : methods;
    return kept.length ? kept : all;
  }
}
