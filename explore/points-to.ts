// A small inclusion-based (Andersen-style) points-to solver over the facts' constraints. It answers "which queue does
// `c.workqueue` hold" and "which function does `this.config.reconcile` call", across files and packages, without
// knowing any language: the readers have already lowered every expression to slots.
import type { Constraint, Slot, Value } from "./facts.js";

/** The slot a value's field lives in, or undefined for values without fields (functions, queues, informers). */
export function fieldSlot(v: Value, field: string): Slot | undefined {
  return hasFields(v) ? `${v.slice(2)}.${field}` : undefined;
}

function hasFields(v: Value): boolean {
  const tag = v[0];
  return tag === "o" || tag === "l" || tag === "m" || tag === "c";
}

// The solver numbers slots as it meets them and works on the numbers: a large tree has some 100,000 slots with long
// names, and hashing and comparing those strings on every edge was most of the solving time. A slot made from a value
// (a field, a parameter, a result) is named once per value and suffix.
type Id = number;

interface Load {
  dst: Id;
  /** `.field`: the slot read is the base value's key and this. */
  suffix: string;
}
interface Store {
  suffix: string;
  src: Id;
}
interface Call {
  args: Id[];
  ret: Id;
  more: Id[] | undefined;
}

/** A constraint with its slots numbered. */
type Numbered =
  | { c: "alloc"; dst: Id; v: Value }
  | { c: "copy"; src: Id; dst: Id }
  | { c: "load"; base: Id; load: Load }
  | { c: "store"; base: Id; store: Store }
  | { c: "call"; callee: Id; call: Call }
  | { c: "new"; cls: Id; call: Call };

/**
 * Slot numbers, and each constraint numbered once: a solver built again from a list holding mostly the same
 * constraints (per-site results) shares them with the one before, since looking up the long names is most of building.
 */
class Numbering {
  readonly ids = new Map<Slot, Id>();
  /** The slots `<key><suffix>` of each value met, by suffix. */
  readonly derived = new Map<Value, Map<string, Id>>();
  readonly numbered = new Map<Constraint, Numbered>();

  idOf(slot: Slot): Id {
    let id = this.ids.get(slot);
    if (id === undefined) this.ids.set(slot, (id = this.ids.size));
    return id;
  }

  /** The slot `<key of v><suffix>`. */
  slotOf(v: Value, suffix: string): Id {
    let bySuffix = this.derived.get(v);
    if (!bySuffix) this.derived.set(v, (bySuffix = new Map<string, Id>()));
    let id = bySuffix.get(suffix);
    if (id === undefined) bySuffix.set(suffix, (id = this.idOf(`${v.slice(2)}${suffix}` as Slot)));
    return id;
  }

  number(k: Constraint): Numbered {
    let n = this.numbered.get(k);
    if (!n) this.numbered.set(k, (n = this.numberAnew(k)));
    return n;
  }

  private numberAnew(k: Constraint): Numbered {
    switch (k.c) {
      case "alloc":
        return { c: "alloc", dst: this.idOf(k.dst), v: k.v };
      case "copy":
        return { c: "copy", src: this.idOf(k.src), dst: this.idOf(k.dst) };
      case "load":
        return { c: "load", base: this.idOf(k.base), load: { dst: this.idOf(k.dst), suffix: `.${k.field}` } };
      case "store":
        return { c: "store", base: this.idOf(k.base), store: { suffix: `.${k.field}`, src: this.idOf(k.src) } };
      case "call":
        return { c: "call", callee: this.idOf(k.callee), call: this.call(k.args, k.ret, k.more) };
      case "new":
        return { c: "new", cls: this.idOf(k.cls), call: this.call(k.args, k.ret, undefined) };
    }
  }

  private call(args: Slot[], ret: Slot, more: Slot[] | undefined): Call {
    return { args: args.map((a) => this.idOf(a)), ret: this.idOf(ret), more: more?.map((r) => this.idOf(r)) };
  }
}

/** What the solver knows of one slot: its values, and the constraints that read it. */
class SlotState {
  values: Set<Value> | undefined = undefined;
  copies: Set<Id> | undefined = undefined;
  loads: Load[] | undefined = undefined;
  stores: Store[] | undefined = undefined;
  calls: Call[] | undefined = undefined;
  news: Call[] | undefined = undefined;
}

export class PointsTo {
  private readonly numbering: Numbering;
  private readonly slots: SlotState[] = [];
  /** Values to propagate, a stack: the slot and the value found in it. */
  private readonly workSlots: Id[] = [];
  private readonly workValues: Value[] = [];

  /** Solves the constraints; `before`, a solver of mostly the same constraints, lends its numbering. */
  constructor(constraints: Constraint[], before?: PointsTo) {
    this.numbering = before?.numbering ?? new Numbering();
    this.addAll(constraints);
  }

  /**
   * Adds constraints to the solved ones and solves only the work they make. Inclusion constraints only ever add values,
   * so the fixpoint is the one solving the whole list from scratch reaches (the order values were found in may differ).
   */
  addAll(constraints: Iterable<Constraint>): void {
    for (const k of constraints) this.add(k);
    this.solve();
  }

  /** The values a slot may hold. */
  valuesOf(slot: Slot | undefined): ReadonlySet<Value> {
    const id = slot === undefined ? undefined : this.numbering.ids.get(slot);
    return (id !== undefined && this.slots[id]?.values) || EMPTY;
  }

  /** The state of a slot, made on first use (slots are numbered before they are met here). */
  private state(id: Id): SlotState {
    while (this.slots.length <= id) this.slots.push(new SlotState());
    return this.slots[id]!;
  }

  private add(k: Constraint): void {
    const n = this.numbering.number(k);
    switch (n.c) {
      case "alloc":
        this.addValue(n.dst, n.v);
        break;
      case "copy":
        this.addEdge(n.src, n.dst);
        break;
      case "load":
        this.addLoad(n.base, n.load);
        break;
      case "store":
        this.addStore(n.base, n.store);
        break;
      case "call":
        this.addCall(n.callee, n.call);
        break;
      case "new":
        this.addNew(n.cls, n.call);
        break;
    }
  }

  // A constraint reading a slot runs for each value it holds now, and (solve) for each value it gets later.

  private addLoad(base: Id, load: Load): void {
    const state = this.state(base);
    (state.loads ??= []).push(load);
    for (const v of state.values ?? EMPTY) this.onLoad(v, load);
  }

  private addStore(base: Id, store: Store): void {
    const state = this.state(base);
    (state.stores ??= []).push(store);
    for (const v of state.values ?? EMPTY) this.onStore(v, store);
  }

  private addNew(cls: Id, call: Call): void {
    const state = this.state(cls);
    (state.news ??= []).push(call);
    for (const v of state.values ?? EMPTY) this.onNew(v, call);
  }

  private addCall(callee: Id, call: Call): void {
    const state = this.state(callee);
    (state.calls ??= []).push(call);
    for (const v of state.values ?? EMPTY) this.onCall(v, call);
  }

  private addValue(slot: Id, v: Value): void {
    const state = this.state(slot);
    const set = (state.values ??= new Set());
    if (set.has(v)) return;
    set.add(v);
    this.workSlots.push(slot);
    this.workValues.push(v);
  }

  private addEdge(src: Id, dst: Id): void {
    if (src === dst) return;
    const state = this.state(src);
    const out = (state.copies ??= new Set());
    if (out.has(dst)) return;
    out.add(dst);
    for (const v of state.values ?? EMPTY) this.addValue(dst, v);
  }

  private onLoad(v: Value, load: Load): void {
    if (hasFields(v)) this.addEdge(this.numbering.slotOf(v, load.suffix), load.dst);
  }

  private onStore(v: Value, store: Store): void {
    if (hasFields(v)) this.addEdge(store.src, this.numbering.slotOf(v, store.suffix));
  }

  private onCall(v: Value, call: Call): void {
    if (v[0] !== "f") return;
    call.args.forEach((a, i) => this.addEdge(a, this.numbering.slotOf(v, paramSuffix(i))));
    this.addEdge(this.numbering.slotOf(v, "#ret"), call.ret);
    call.more?.forEach((r, i) => this.addEdge(this.numbering.slotOf(v, `#ret${i + 1}`), r));
  }

  /** `new C(...)`: an instance of C, and a call of C's constructor with the arguments. */
  private onNew(v: Value, call: Call): void {
    if (v[0] !== "c") return;
    this.addValue(call.ret, `o|${v.slice(2)}`);
    const ignored = this.numbering.slotOf(v, ".constructor#ignored");
    this.addCall(this.numbering.slotOf(v, ".constructor"), { args: call.args, ret: ignored, more: undefined });
  }

  private solve(): void {
    const { workSlots, workValues } = this;
    while (workSlots.length) {
      const slot = workSlots.pop()!;
      const v = workValues.pop()!;
      const state = this.state(slot);
      for (const dst of state.copies ?? EMPTY_IDS) this.addValue(dst, v);
      for (const l of state.loads ?? []) this.onLoad(v, l);
      for (const s of state.stores ?? []) this.onStore(v, s);
      for (const c of state.calls ?? []) this.onCall(v, c);
      for (const n of state.news ?? []) this.onNew(v, n);
    }
  }
}

const EMPTY: ReadonlySet<Value> = new Set();
const EMPTY_IDS: ReadonlySet<Id> = new Set();

const PARAM_SUFFIXES: string[] = [];
/** `#p<i>`, made once per index. */
function paramSuffix(i: number): string {
  return (PARAM_SUFFIXES[i] ??= `#p${i}`);
}
