// Objects through their methods: a Go method's receiver is its type's summary, so what a setter stores into it
// (`func (b *Builder) For(i Impl) *Builder { b.impl = i; return b }`) lands in every object of the type, and a
// chain of such calls (`NewBuilder(name).For(&a{}).Complete()`) loses which object it started from. Read per call: a method
// that returns its receiver returns the object it was called on, and a field it sets from a parameter is set, in the
// objects the call's receiver is, to what that call passes.
import { type CallFact, type Constraint, type Slot, type Value } from "../facts.js";
import { fieldSlot } from "../points-to.js";
import { paramIndexOf } from "./contexts.js";
import { instanceType } from "./instances.js";
import { RegistrationLinker } from "./registrations.js";

export abstract class ReceiverObjectLinker extends RegistrationLinker {
  /** Methods (by id) that return their receiver, and the fields each sets from its parameters (field → index). */
  private methodShapes:
    { returnsSelf: Set<string>; setters: Map<string, { field: string; param: number }[]> } | undefined;
  private shapes(): NonNullable<typeof this.methodShapes> {
    if (this.methodShapes) return this.methodShapes;
    const returnsSelf = new Set<string>();
    const setters = new Map<string, { field: string; param: number }[]>();
    for (const k of this.facts.constraints) {
      if (k.c === "copy" && k.dst === `${selfOf(k.src)}#ret`) returnsSelf.add(selfOf(k.src)!);
      if (k.c !== "store") continue;
      const method = selfOf(k.base);
      const param = method ? paramIndexOf(k.src, method) : undefined;
      if (method && param !== undefined)
        setters.set(method, [...(setters.get(method) ?? []), { field: k.field, param }]);
    }
    return (this.methodShapes = { returnsSelf, setters });
  }

  /** A call of a method returning its receiver returns what the call's receiver holds (the chain keeps its object). */
  protected chainConstraints(): Constraint[] {
    const { returnsSelf } = this.shapes();
    const out: Constraint[] = [];
    if (returnsSelf.size === 0) return out;
    for (const c of this.facts.calls)
      if (c.recv && !this.isInternal(c.fn) && this.fnsAt(c.callee).some((id) => returnsSelf.has(id)))
        out.push({ c: "copy", dst: c.ret, src: c.recv });
    return out;
  }

  /**
   * A setter called on some of its type's objects sets their field to what that call passes (`b.For(&a{})` sets this
   * builder's impl to the a, not every builder's). Read once the objects and the chains are solved.
   */
  protected setterConstraints(): Constraint[] {
    const { setters } = this.shapes();
    const out: Constraint[] = [];
    if (setters.size === 0) return out;
    for (const c of this.facts.calls) {
      if (!c.recv || this.isInternal(c.fn)) continue;
      for (const method of this.fnsAt(c.callee)) {
        const sets = setters.get(method);
        const type = this.fns.get(method)?.owner;
        if (!sets || !type) continue;
        for (const object of this.someObjects(c, type))
          for (const { field, param } of sets) {
            const arg = c.args[param];
            if (arg) out.push({ c: "copy", dst: fieldSlot(object, field)!, src: arg });
          }
      }
    }
    return out;
  }

  /** The objects of `type` a call's receiver is, when they are some of its objects only. */
  private someObjects(c: CallFact, type: string): Value[] {
    const all = this.objectsOf(type).length;
    if (all < 2) return [];
    const mine = [...this.precise(c.recv)].filter((v) => instanceType(v) === type);
    return mine.length < all ? mine : [];
  }
}

/** The method whose receiver a slot is (`<fn>#this` → fn). */
function selfOf(slot: Slot): string | undefined {
  return slot.endsWith("#this") ? slot.slice(0, -"#this".length) : undefined;
}
