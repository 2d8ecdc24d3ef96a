// The facts indexed for the linker: functions, calls, callers and callees through points-to, closures, reachability.
import { type GoTypeFacts, runsFor } from "../go/typed.js";
import { type CallFact, type Facts, type FnFact, type Slot, type TypeFact, keysOf } from "../facts.js";
import { locOrder } from "../loc.js";
import type { Place } from "../model.js";
import type { PointsTo } from "../points-to.js";

/** The indexes and the points-to questions every part of the linker asks; the parts that find flows come later. */
export abstract class LinkGraph {
  protected readonly fns = new Map<string, FnFact>();
  protected readonly calls = new Map<string, CallFact>();
  protected readonly callsByFn = new Map<string, CallFact[]>();
  protected readonly children = new Map<string, string[]>();
  protected readonly types = new Map<string, TypeFact>();
  protected readonly queueTypes = new Map<string, TypeFact>();
  protected readonly internal = new Set<string>();
  protected readonly queueCalls = new Map<string, CallFact>();
  protected readonly informerCalls = new Map<string, CallFact>();
  protected pts!: PointsTo;
  protected readonly unlinked: string[] = [];

  constructor(
    protected readonly facts: Facts,
    /** What Go's type checker told (go-typed/); without it, Go queues and helpers are known by their shapes and names. */
    protected readonly goTypes?: GoTypeFacts,
  ) {
    for (const f of facts.fns) this.fns.set(f.id, f);
    for (const c of facts.calls) {
      this.calls.set(c.id, c);
      push(this.callsByFn, c.fn, c);
    }
    for (const f of facts.fns) if (f.parent) push(this.children, f.parent, f.id);
    for (const t of facts.types) this.types.set(t.key, t);
  }

  /** isInternal's answers, asked for every function on every path walked; `internal` is filled before (findInternal). */
  protected readonly internalMemo = new Map<string, boolean>();
  protected isInternal(fnId: string): boolean {
    let known = this.internalMemo.get(fnId);
    if (known === undefined) this.internalMemo.set(fnId, (known = this.insideInternal(fnId)));
    return known;
  }

  private insideInternal(fnId: string): boolean {
    let depth = 0;
    for (let f = this.fns.get(fnId); f && depth < 64; f = f.parent ? this.fns.get(f.parent) : undefined, depth++)
      if (this.internal.has(f.id)) return true;
    return false;
  }

  protected fnsAt(slot: Slot | undefined): string[] {
    return keysOf(this.pts.valuesOf(slot), "f").filter((id) => this.fns.has(id));
  }

  protected queuesAt(slot: Slot | undefined): string[] {
    return [...new Set(keysOf(this.pts.valuesOf(slot), "q"))];
  }

  protected place(fnId: string): Place {
    const f = this.fns.get(fnId)!;
    return { name: this.fnName(f), loc: f.loc };
  }

  /**
   * How a report names a type: a Go type with its package (`gameservers.Controller`, since many operators call each of
   * their controllers `Controller`), by the folder's name; a type in the explored folder itself, and a TypeScript class,
   * by its name.
   */
  protected typeLabel(key: string): string {
    const name = this.types.get(key)?.name ?? key.split(".").at(-1)!;
    const dir = /^go:(.*)\.[^.]+$/.exec(key)?.[1];
    const pkg = dir?.split("/").at(-1);
    return pkg ? `${pkg}.${name}` : name;
  }

  /** A closure is named after the functions it is written in (`func literal in (*Controller).Run`); a loop, not recursion. */
  protected fnName(f: FnFact): string {
    const names: string[] = [];
    let g: FnFact | undefined = f;
    while (g) {
      names.push(g.name);
      if (g.name !== "func literal" && g.name !== "arrow function") break;
      const parent: FnFact | undefined = g.parent ? this.fns.get(g.parent) : undefined;
      g = parent && parent.name !== "module" ? parent : undefined;
    }
    return names.join(" in ");
  }

  /** The functions a call may run. */
  protected readonly calleeMemo = new Map<string, string[]>();
  protected callees(call: CallFact): string[] {
    let out = this.calleeMemo.get(call.id);
    if (!out) this.calleeMemo.set(call.id, (out = this.fnsAt(call.callee).filter((id) => !this.isInternal(id))));
    return out;
  }

  protected callerIndex: Map<string, CallFact[]> | undefined;
  /** The calls that may run a function (built once: every call's callees). */
  protected callersOf(fnId: string): CallFact[] {
    if (!this.callerIndex) {
      this.callerIndex = new Map();
      for (const c of this.facts.calls) for (const id of this.callees(c)) push(this.callerIndex, id, c);
    }
    return this.callerIndex.get(fnId) ?? [];
  }

  /** A function and the closures written inside it. */
  protected region(fnId: string): string[] {
    const out = [fnId];
    for (let i = 0; i < out.length; i++) for (const c of this.children.get(out[i]!) ?? []) out.push(c);
    return out;
  }

  protected callsIn(fnIds: string[]): CallFact[] {
    return fnIds.flatMap((id) => this.callsByFn.get(id) ?? []).sort((a, b) => locOrder(a.loc, b.loc));
  }

  /**
   * The calls that run for objects of `kind` (Go's types: not a call a type switch on the object keeps from that kind);
   * undefined when the types narrow nothing.
   */
  protected runsFor(kind: string): ((c: CallFact) => boolean) | undefined {
    const goTypes = this.goTypes;
    if (!goTypes?.narrowed.size || kind === "?") return undefined;
    return (c) => runsFor(goTypes, c.id, kind);
  }

  /**
   * Functions reachable from `start` (calls and closures that run with their function), with the path of calls that
   * first reached each. `runs` keeps the calls that run (for a watched kind); `calleesOf` says what a call in a function
   * runs (handler-objects.ts reads a handler's calls through its own object's fields).
   */
  protected reach(
    start: string,
    limit = 8,
    runs?: (c: CallFact) => boolean,
    calleesOf: (c: CallFact, fn: string) => string[] = (c) => this.callees(c),
  ): Map<string, string[]> {
    const paths = new Map<string, string[]>([[start, []]]);
    const queue = [start];
    while (queue.length) {
      const fn = queue.shift()!;
      const path = paths.get(fn)!;
      if (path.length >= limit) continue;
      const next: [string, boolean][] = this.closuresRunIn(fn).map((c) => [c, false]);
      for (const c of this.callsByFn.get(fn) ?? [])
        if (!runs || runs(c)) for (const id of calleesOf(c, fn)) next.push([id, true]);
      for (const [id, isCall] of next) {
        if (paths.has(id) || this.isInternal(id)) continue;
        paths.set(id, isCall ? [...path, id] : path);
        queue.push(id);
      }
    }
    return paths;
  }

  /**
   * The closures written in a function that run when it does. Not one that only explored code elsewhere calls, nor one
   * handed only to explored code that never calls it (a callback given to a registrar, `cache.OnResourceUpdated(func(...)
   * {...})`, runs when the registrar's events fire, not when it is registered). A closure called where it is written,
   * by the function it is handed to there (`Each(keys, func(k) {...})`), or handed to code not explored
   * (`wait.Until(func() {...})`, a promise's `then`) runs with its function.
   */
  protected closuresRunIn(fnId: string): string[] {
    return (this.children.get(fnId) ?? []).filter((c) => {
      const callers = this.callersOf(c).filter((call) => !this.isInternal(call.fn));
      if (callers.length === 0) return !this.keptForLater(c);
      const given = this.givenTo(c).filter((g) => this.isWithin(g.fn, fnId));
      const runners = [fnId, ...given.flatMap((g) => this.callees(g))];
      return callers.some((call) => runners.some((r) => this.isWithin(call.fn, r)));
    });
  }

  /**
   * The call a closure is handed to where it is written, when that call keeps it for later: the closure runs on the
   * registrar's events.
   */
  protected registrarOf(fnId: string): CallFact | undefined {
    const parent = this.fns.get(fnId)?.parent;
    if (!parent || !this.keptForLater(fnId)) return undefined;
    return this.givenTo(fnId).find((call) => this.isWithin(call.fn, parent));
  }

  /** A function no explored call runs, handed only to explored code (which never calls it nor hands it elsewhere). */
  private keptForLater(fnId: string): boolean {
    if (this.callersOf(fnId).some((call) => !this.isInternal(call.fn))) return false;
    const given = this.givenTo(fnId);
    return given.length > 0 && given.every((call) => this.callees(call).length > 0);
  }

  private givenIndex: Map<string, CallFact[]> | undefined;
  /** The calls a function value is passed to as an argument. */
  private givenTo(fnId: string): CallFact[] {
    if (!this.givenIndex) {
      this.givenIndex = new Map();
      for (const c of this.facts.calls)
        for (const id of new Set(c.args.flatMap((a) => this.fnsAt(a)))) push(this.givenIndex, id, c);
    }
    return this.givenIndex.get(fnId) ?? [];
  }

  /** Whether a function is `owner` or written inside it (a closure of it, at any depth). */
  protected isWithin(fnId: string, owner: string): boolean {
    let depth = 0;
    for (let f = this.fns.get(fnId); f && depth < 64; f = f.parent ? this.fns.get(f.parent) : undefined, depth++)
      if (f.id === owner) return true;
    return false;
  }

  /** The type whose method a function is (or is written in). */
  protected methodOwner(fnId: string): string | undefined {
    for (let f = this.fns.get(fnId), d = 0; f && d < 64; f = f.parent ? this.fns.get(f.parent) : undefined, d++)
      if (f.owner) return f.owner;
    return undefined;
  }
}

export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
