// A small inclusion-based (Andersen-style) points-to solver over the facts' constraints. It answers "which queue does
// `c.workqueue` hold" and "which function does `this.config.reconcile` call", across files and packages, without
// knowing any language: the readers have already lowered every expression to slots.
import { type Constraint, type Slot, type Value, keyOf } from "./facts.js";

/** The slot a value's field lives in, or undefined for values without fields (functions, queues, informers). */
export function fieldSlot(v: Value, field: string): Slot | undefined {
  const tag = v[0];
  if (tag === "o" || tag === "l" || tag === "m" || tag === "c") return `${v.slice(2)}.${field}`;
  return undefined;
}

export class PointsTo {
  private readonly pts = new Map<Slot, Set<Value>>();
  private readonly copies = new Map<Slot, Set<Slot>>();
  private readonly loads = new Map<Slot, { dst: Slot; field: string }[]>();
  private readonly stores = new Map<Slot, { field: string; src: Slot }[]>();
  private readonly calls = new Map<Slot, { args: Slot[]; ret: Slot; more?: Slot[] }[]>();
  private readonly news = new Map<Slot, { args: Slot[]; ret: Slot }[]>();
  private readonly work: [Slot, Value][] = [];

  constructor(constraints: Constraint[]) {
    for (const k of constraints) this.add(k);
    this.solve();
  }

  /** The values a slot may hold. */
  valuesOf(slot: Slot | undefined): ReadonlySet<Value> {
    return (slot !== undefined && this.pts.get(slot)) || EMPTY;
  }

  private add(k: Constraint): void {
    switch (k.c) {
      case "alloc":
        this.addValue(k.dst, k.v);
        break;
      case "copy":
        this.addEdge(k.src, k.dst);
        break;
      case "load":
        push(this.loads, k.base, { dst: k.dst, field: k.field });
        for (const v of this.valuesOf(k.base)) this.onLoad(v, k.dst, k.field);
        break;
      case "store":
        push(this.stores, k.base, { field: k.field, src: k.src });
        for (const v of this.valuesOf(k.base)) this.onStore(v, k.field, k.src);
        break;
      case "call":
        push(this.calls, k.callee, { args: k.args, ret: k.ret, more: k.more });
        for (const v of this.valuesOf(k.callee)) this.onCall(v, k.args, k.ret, k.more);
        break;
      case "new":
        push(this.news, k.cls, { args: k.args, ret: k.ret });
        for (const v of this.valuesOf(k.cls)) this.onNew(v, k.args, k.ret);
        break;
    }
  }

  private addValue(slot: Slot, v: Value): void {
    let set = this.pts.get(slot);
    if (!set) this.pts.set(slot, (set = new Set()));
    if (set.has(v)) return;
    set.add(v);
    this.work.push([slot, v]);
  }

  private addEdge(src: Slot, dst: Slot): void {
    if (src === dst) return;
    let out = this.copies.get(src);
    if (!out) this.copies.set(src, (out = new Set()));
    if (out.has(dst)) return;
    out.add(dst);
    for (const v of this.valuesOf(src)) this.addValue(dst, v);
  }

  private onLoad(v: Value, dst: Slot, field: string): void {
    const from = fieldSlot(v, field);
    if (from) this.addEdge(from, dst);
  }

  private onStore(v: Value, field: string, src: Slot): void {
    const to = fieldSlot(v, field);
    if (to) this.addEdge(src, to);
  }

  private onCall(v: Value, args: Slot[], ret: Slot, more?: Slot[]): void {
    const fn = keyOf(v, "f");
    if (fn === undefined) return;
    args.forEach((a, i) => this.addEdge(a, `${fn}#p${i}`));
    this.addEdge(`${fn}#ret`, ret);
    more?.forEach((r, i) => this.addEdge(`${fn}#ret${i + 1}`, r));
  }

  private onNew(v: Value, args: Slot[], ret: Slot): void {
    const type = keyOf(v, "c");
    if (type === undefined) return;
    this.addValue(ret, `o|${type}`);
    this.add({ c: "call", callee: `${type}.constructor`, args, ret: `${type}.constructor#ignored` });
  }

  private solve(): void {
    while (this.work.length) {
      const [slot, v] = this.work.pop()!;
      for (const dst of this.copies.get(slot) ?? []) this.addValue(dst, v);
      for (const l of this.loads.get(slot) ?? []) this.onLoad(v, l.dst, l.field);
      for (const s of this.stores.get(slot) ?? []) this.onStore(v, s.field, s.src);
      for (const c of this.calls.get(slot) ?? []) this.onCall(v, c.args, c.ret, c.more);
      for (const n of this.news.get(slot) ?? []) this.onNew(v, n.args, n.ret);
    }
  }
}

const EMPTY: ReadonlySet<Value> = new Set();

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
