// Objects by allocation site: a struct or class value made at one place (`&Controller{...}`, `new Controller(...)`)
// is also the value `l|<type>@@<place>`, whose fields hold only what was stored into that object; a constructor that
// several callers share makes one object per call (`l|<type>@@<place>@@<call>`), its fields set from what that call
// passes. The solver keeps the type's own slots as the union of all its objects (`o|<type>`), so nothing is lost; the
// linker asks `precise(slot)` where controllers sharing a type must stay apart, and may read a method's receiver as
// one object (`precise(slot, { [type]: [object] })`).
import { type CallFact, type Constraint, type Slot, type TypeFact, type Value, keysOf } from "../facts.js";
import { fieldSlot } from "../points-to.js";
import { CallResultLinker, type Receivers } from "./call-results.js";
import { paramIndexOf } from "./contexts.js";
import { appendAll } from "./lists.js";

/** Between a type and the place of an object of it, and between an object and the call that made a copy of it. */
const AT = "@@";

export type { Receivers } from "./call-results.js";

/** The type of an object value (`l|<type>@@...`), or undefined for any other value. */
export function instanceType(v: Value): string | undefined {
  if (v[0] !== "l") return undefined;
  const i = v.indexOf(AT);
  return i > 0 ? v.slice(2, i) : undefined;
}

/** Where an object value was made: its place, or for a per-call copy the call that made it (`l|T@@p@@call` → call). */
export function madeAt(v: Value): string | undefined {
  const i = v.lastIndexOf(AT);
  return v[0] === "l" && i > 0 ? v.slice(i + AT.length) : undefined;
}

/** The object a per-call copy was made from (`l|T@@p@@call` → `l|T@@p`), or undefined for an object made in place. */
function parentOf(v: Value): Value | undefined {
  const i = v.lastIndexOf(AT);
  return i > 0 && v.indexOf(AT) < i ? (v.slice(0, i) as Value) : undefined;
}

/** The function a local, a temporary or a parameter belongs to (`<fn>$x`, `<fn>~3`, `<fn>#p0`), or undefined. */
export function fnOfLocal(slot: Slot): string | undefined {
  return /^(.*?)(?:\$[^$~#.]*|~\d+|#p\d+|#ret\d*|#this)$/.exec(slot)?.[1];
}

/** An object, the function that made it, and what its fields are set from there. */
interface Made {
  obj: Value;
  maker: string;
  fields: { field: string; src: Slot }[];
}

type Definer = { load: Slot; field: string } | { copy: Slot } | { value: Value };

export abstract class InstanceLinker extends CallResultLinker {
  /** Object values by type. */
  protected readonly instances = new Map<string, Set<Value>>();
  /** Fields of per-call copies set from a parameter the call passes nothing for (a variadic one): empty, not the type's. */
  private readonly passedNothing = new Set<Slot>();
  /** How each local and temporary gets its values, when only constraints do (not a call's result). */
  private definers: Map<Slot, Definer[] | "opaque"> | undefined;
  /** The list `definers` was read from and how far: the linker only appends to it, so a new solve reads the rest. */
  private definersRead: { list: Constraint[]; count: number; stale: boolean } | undefined;
  private readonly preciseMemo = new Map<Slot, ReadonlySet<Value>>();

  /**
   * After a first solve: an object for each `new` of a TypeScript class (its constructor's stores into `this` as that
   * call passes them), and an object for each call of a shared constructor (Go or TypeScript) that returns one it makes.
   */
  protected instanceConstraints(): Constraint[] {
    const stores = new Map<string, { base: Slot; field: string; src: Slot }[]>();
    for (const k of this.facts.constraints) {
      if (k.c === "alloc" && instanceType(k.v)) this.addInstance(k.v);
      const fn = k.c === "store" ? fnOfLocal(k.base) : undefined;
      if (fn) pushTo(stores, fn, k as { base: Slot; field: string; src: Slot });
    }
    const made: Made[] = [];
    const out: Constraint[] = [];
    const seen = new Set<Value>();
    for (const k of this.facts.constraints) {
      if (k.c === "alloc" && instanceType(k.v)) {
        // (A literal the reader lowers into several temporaries is one object, its stores found through all of them.)
        if (seen.has(k.v)) continue;
        seen.add(k.v);
        const maker = fnOfLocal(k.dst);
        const fields = (stores.get(maker ?? "") ?? []).filter((s) => this.pts.valuesOf(s.base).has(k.v));
        if (maker) made.push({ obj: k.v, maker, fields });
      } else if (k.c === "new") appendAll(made, this.newObjects(k, stores, out));
    }
    return appendAll(out, this.perCallCopies(made));
  }

  /** `new C(args)`: an object of each class the callee may be, its fields what the constructor stores from `args`. */
  private newObjects(
    k: Extract<Constraint, { c: "new" }>,
    stores: Map<string, { base: Slot; field: string; src: Slot }[]>,
    out: Constraint[],
  ): Made[] {
    const made: Made[] = [];
    const maker = fnOfLocal(k.ret);
    for (const type of keysOf(this.pts.valuesOf(k.cls), "c")) {
      const obj: Value = `l|${type}${AT}${k.ret}`;
      this.addInstance(obj);
      out.push({ c: "alloc", dst: k.ret, v: obj });
      const fields: Made["fields"] = [];
      for (const ctor of this.fnsAt(`${type}.constructor`))
        for (const s of stores.get(ctor) ?? []) {
          if (s.base !== `${ctor}#this`) continue;
          const param = paramIndexOf(s.src, ctor);
          const src = param === undefined ? s.src : k.args[param];
          if (src) fields.push({ field: s.field, src });
        }
      for (const f of fields) out.push({ c: "copy", dst: fieldSlot(obj, f.field)!, src: f.src });
      if (maker) made.push({ obj, maker, fields });
    }
    return made;
  }

  /** An object a free function makes and returns, copied for each of its calls when it has several. */
  private perCallCopies(made: Made[]): Constraint[] {
    const out: Constraint[] = [];
    const returned = made.filter(
      (m) => !this.fns.get(m.maker)?.owner && this.pts.valuesOf(`${m.maker}#ret`).has(m.obj),
    );
    if (returned.length === 0) return out;
    const makers = new Set(returned.map((m) => m.maker));
    const sitesOf = new Map<string, CallFact[]>();
    for (const c of this.facts.calls)
      for (const fn of this.fnsAt(c.callee)) if (makers.has(fn) && !this.isInternal(c.fn)) pushTo(sitesOf, fn, c);
    const byObject = new Map(made.map((m) => [m.obj, m]));
    const copied = new Set<Value>();
    for (const m of returned) {
      const sites = sitesOf.get(m.maker) ?? [];
      if (sites.length < 2) continue;
      for (const site of sites)
        out.push({ c: "alloc", dst: site.ret, v: this.copyAt(m, site, byObject, out, copied, 0) });
    }
    return out;
  }

  /**
   * The copy of an object one call of its maker makes, its fields set from that call's arguments. An object the same
   * maker made and stored into one of its fields (`filtered{handler: blocking{workFunc: fn}}`) is copied for the call
   * too: a value struct nested in another holds that call's function, not every caller's. Each object is copied once
   * per call (`copied`), however many of the maker's objects hold it: a literal nesting many others, read loosely,
   * would otherwise be copied once per path to it.
   */
  private copyAt(
    m: Made,
    site: CallFact,
    byObject: Map<Value, Made>,
    out: Constraint[],
    copied: Set<Value>,
    depth: number,
  ): Value {
    const copy: Value = `${m.obj}${AT}${site.id}`;
    if (copied.has(copy)) return copy;
    copied.add(copy);
    this.addInstance(copy);
    for (const f of m.fields) {
      const dst = fieldSlot(copy, f.field)!;
      const param = paramIndexOf(f.src, m.maker);
      const inner = [...this.pts.valuesOf(f.src)].flatMap((v) => {
        const made = byObject.get(v);
        return made && made.maker === m.maker && made !== m ? [made] : [];
      });
      if (param !== undefined) {
        if (site.args[param]) out.push({ c: "copy", dst, src: site.args[param] });
        else this.passedNothing.add(dst);
      } else if (inner.length && depth < 4)
        for (const i of inner) out.push({ c: "alloc", dst, v: this.copyAt(i, site, byObject, out, copied, depth + 1) });
      else out.push({ c: "copy", dst, src: f.src });
    }
    return copy;
  }

  private addInstance(v: Value): void {
    const type = instanceType(v)!;
    const set = this.instances.get(type);
    if (set) set.add(v);
    else this.instances.set(type, new Set([v]));
  }

  /** The objects of a type, a copy made per call standing for the object it copies. */
  protected override objectsOf(type: string): Value[] {
    return [...prefer(new Set(this.instances.get(type) ?? []))];
  }

  /**
   * What a slot holds, object by object: a field read from a value that is an object is that object's field (the
   * type's own when nothing was stored into the object), and a type's summary value gives way to its objects.
   * `receivers` reads the receiver of a type's methods (and of the closures in them) as the given objects.
   */
  protected override precise(slot: Slot | undefined, receivers?: Receivers, depth = 0): ReadonlySet<Value> {
    if (slot === undefined) return EMPTY;
    const known = receivers ? this.receiverOf(slot, receivers) : this.preciseMemo.get(slot);
    if (known) return known;
    const defs = depth > 12 ? "opaque" : (this.definersOf().get(slot) ?? "opaque");
    const out = prefer(
      defs === "opaque"
        ? ((receivers && this.resultFor(slot, receivers, depth)) ?? new Set(this.pts.valuesOf(slot)))
        : this.fromDefiners(defs, receivers, depth),
    );
    if (!receivers) this.preciseMemo.set(slot, out);
    return out;
  }

  /** After a new solve: what precise() remembered was read from the last one. */
  protected forgetObjectReads(): void {
    if (this.definersRead) this.definersRead.stale = true;
    this.forgetCallResults();
    this.preciseMemo.clear();
  }

  /**
   * `receivers` (else the one object of the type `fnId` is a method of) with the objects its Go structs embed in
   * those objects: a promoted method (`c.retryLater()`, declared on the embedded base) runs on the base this object
   * holds, not on every base. Unchanged when that names no fewer objects than all.
   */
  protected withEmbedded(fnId: string, receivers: Receivers | undefined): Receivers | undefined {
    const type = this.methodOwner(fnId);
    const objects = this.goObjects(type, receivers);
    if (!type || !objects) return receivers;
    const out: Map<string, readonly Value[]> = new Map(receivers ?? [[type, objects]]);
    for (const e of this.types.get(type)?.embeds ?? []) {
      const inner = this.embeddedIn(objects, e);
      if (inner.length && inner.length < this.objectsOf(e).length) out.set(e, inner);
    }
    return out.size > (receivers?.size ?? 1) ? out : receivers;
  }

  /** The objects of a Go type that `receivers` gives, else its one object; undefined when neither. */
  private goObjects(type: string | undefined, receivers: Receivers | undefined): readonly Value[] | undefined {
    if (!type?.startsWith("go:")) return undefined;
    const objects = receivers?.get(type) ?? this.objectsOf(type);
    return objects.length === 1 || (receivers && objects.length) ? objects : undefined;
  }

  /** The objects of the embedded struct type `embed` that `objects` hold in their embedded field. */
  private embeddedIn(objects: Iterable<Value>, embed: string, depth = 0): Value[] {
    const name = this.types.get(embed)?.name;
    if (!name) return [];
    return [...prefer(this.fieldOf(new Set(objects), name, depth))].filter((x) => instanceType(x) === embed);
  }

  /** A method's receiver read as the objects given for its type. */
  private receiverOf(slot: Slot, receivers: Receivers): ReadonlySet<Value> | undefined {
    const self = /^(.*)#this$/.exec(slot)?.[1];
    const owner = self ? this.fns.get(self)?.owner : undefined;
    return owner && receivers.has(owner) ? new Set(receivers.get(owner)) : undefined;
  }

  private fromDefiners(defs: Definer[], receivers: Receivers | undefined, depth: number): Set<Value> {
    const values = new Set<Value>();
    for (const d of defs) {
      const found =
        "value" in d
          ? [d.value]
          : "copy" in d
            ? this.precise(d.copy, receivers, depth + 1)
            : this.fieldOf(this.precise(d.load, receivers, depth + 1), d.field);
      for (const v of found) values.add(v);
    }
    return values;
  }

  /** The queues a slot holds, object by object (all it may hold when that tells none). */
  protected queuesOf(slot: Slot | undefined, receivers?: Receivers): string[] {
    const queues = [...new Set(keysOf(this.precise(slot, receivers), "q"))];
    return queues.length ? queues : this.queuesAt(slot);
  }

  /**
   * A field of each value: an object's own, else (nothing stored into it) its type's. A field a Go struct does not
   * declare but embeds is the embedded value's: read through the embedded field it is that object's own (each
   * controller's `c.queue` the queue of the base its constructor made), where the type's slots join every object's.
   */
  private fieldOf(bases: ReadonlySet<Value>, field: string, depth = 0): Set<Value> {
    const out = new Set<Value>();
    for (const v of bases) for (const x of this.fieldOfOne(v, field, depth)) out.add(x);
    return out;
  }

  private fieldOfOne(v: Value, field: string, depth: number): ReadonlySet<Value> {
    let values: ReadonlySet<Value> = EMPTY;
    let unset = false;
    for (let o: Value | undefined = v; o && values.size === 0 && !unset; o = parentOf(o)) {
      values = this.pts.valuesOf(fieldSlot(o, field));
      unset = this.passedNothing.has(fieldSlot(o, field)!);
    }
    // (A type's summary value holds every object's field: read through the embedded objects when it is promoted.)
    const type = instanceType(v) ?? (v[0] === "o" ? v.slice(2) : undefined);
    if (unset || !type || (values.size && v[0] !== "o")) return values;
    const promoted = this.promotedRead(type, field, v, depth);
    if (promoted.size) return promoted;
    return values.size === 0 && v[0] === "l" ? this.pts.valuesOf(`${type}.${field}`) : values;
  }

  /** A field `type` takes from a struct it embeds, read in the embedded objects of `v` (empty when none). */
  private promotedRead(type: string, field: string, v: Value, depth: number): ReadonlySet<Value> {
    const through = depth < 4 ? this.embeddedHolding(type, field) : undefined;
    const inner = through ? this.embeddedIn([v], through, depth + 1) : [];
    return inner.length ? this.fieldOf(new Set(inner), field, depth + 1) : EMPTY;
  }

  /** The struct a Go type embeds that gives it `field` (one it does not declare itself), or undefined. */
  private embeddedHolding(type: string, field: string): string | undefined {
    const t = this.types.get(type);
    if (!t?.embeds?.length || !type.startsWith("go:") || this.declares(t, field)) return undefined;
    const has = (key: string, depth: number): boolean => {
      const inner = this.types.get(key);
      if (!inner || depth > 4) return false;
      return this.declares(inner, field) || (inner.embeds ?? []).some((e) => has(e, depth + 1));
    };
    return t.embeds.find((e) => has(e, 0));
  }

  private declares(t: TypeFact, name: string): boolean {
    return (t.fields ?? []).includes(name) || t.methods.includes(name);
  }

  /** Locals and temporaries whose values only constraints give (a call's result or a parameter is opaque). */
  private definersOf(): Map<Slot, Definer[] | "opaque"> {
    const list = this.constraintsSolved;
    // (Read again only after a new solve, as when the whole list was read each time.)
    if (this.definers && this.definersRead?.list === list && !this.definersRead.stale) return this.definers;
    if (!this.definers || this.definersRead?.list !== list) {
      this.definers = new Map();
      this.definersRead = { list, count: 0, stale: false };
    }
    const defs = this.definers;
    const read = this.definersRead;
    const add = (slot: Slot, d: Definer | "opaque") => {
      if (!fnOfLocal(slot) || /#(p\d+|ret|this)$/.test(slot)) return;
      const known = defs.get(slot);
      if (d === "opaque" || known === "opaque") defs.set(slot, "opaque");
      else if (known) known.push(d);
      else defs.set(slot, [d]);
    };
    for (let i = read.count; i < list.length; i++) {
      const k = list[i]!;
      if (k.c === "alloc") add(k.dst, { value: k.v });
      else if (k.c === "copy") add(k.dst, { copy: k.src });
      else if (k.c === "load") add(k.dst, { load: k.base, field: k.field });
      else if (k.c === "call" || k.c === "new") add(k.ret, "opaque");
    }
    read.count = list.length;
    read.stale = false;
    return defs;
  }
}

const EMPTY: ReadonlySet<Value> = new Set();

/** A type's summary value gives way to its objects, and an object to the copies made of it per call. */
function prefer(values: Set<Value>): Set<Value> {
  const objects = [...values].filter((v) => instanceType(v) !== undefined);
  if (objects.length === 0) return values;
  const types = new Set(objects.map((v) => instanceType(v)!));
  const copied = new Set(objects.flatMap((v) => parentOf(v) ?? []));
  const out = new Set<Value>();
  for (const v of values) if (!(v[0] === "o" && types.has(v.slice(2))) && !copied.has(v)) out.add(v);
  return out;
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
