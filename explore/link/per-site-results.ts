// Results read per call site: a helper that returns what its parameter is, or what calling its parameter returns
// (`func (f *factory) getInformer(key string, newFunc func() Informer) Informer { ...; return newFunc() }`), returns
// at each call what that call passes. Read once for all callers, its result is every caller's: each of a factory's 70
// informer methods calling getInformer would return all 70 informers, and every controller would watch every kind.
import { type Constraint, type Slot, type Value, slotDefined } from "../facts.js";
import type { PointsTo } from "../points-to.js";
import { paramIndexOf } from "./contexts.js";
import { fnOfLocal } from "./instances.js";

/** Where a helper's result comes from: its parameter `param`, itself or (with `args`) the result of calling it. */
interface ResultSource {
  param: number;
  args?: Slot[];
}

/**
 * The constraints with each call of such a helper reading its result from what that call passes; the helper's own
 * parameters still get every caller's arguments. The same list when no call is of one.
 */
export function perSiteResults(constraints: Constraint[], pts: PointsTo): Constraint[] {
  const sources = resultSources(constraints);
  if (sources.size === 0) return constraints;
  let changed = false;
  const out: Constraint[] = [];
  for (const k of constraints) {
    const fn = k.c === "call" ? onlyFunction(pts.valuesOf(k.callee)) : undefined;
    const from = fn === undefined ? undefined : sources.get(fn);
    if (k.c !== "call" || !from || !fn) {
      out.push(k);
      continue;
    }
    changed = true;
    // The helper's parameters and further results as before; its first result no longer reaches this call.
    out.push({ ...k, ret: `${fn}#ret` });
    for (const s of from) {
      const arg = k.args[s.param];
      if (arg === undefined) continue;
      if (!s.args) out.push({ c: "copy", dst: k.ret, src: arg });
      else out.push({ c: "call", callee: arg, args: s.args.map((a) => passedAs(a, fn, k.args)), ret: k.ret });
    }
  }
  return changed ? out : constraints;
}

/** The one function a callee may be, or undefined (none, several, or other values). */
function onlyFunction(values: ReadonlySet<Value>): string | undefined {
  if (values.size !== 1) return undefined;
  const [v] = values;
  return v!.startsWith("f|") ? v!.slice(2) : undefined;
}

/** An argument the helper passes on: its own parameter is what the call passes for it. */
function passedAs(slot: Slot, fn: string, args: Slot[]): Slot {
  const param = paramIndexOf(slot, fn);
  return param === undefined ? slot : (args[param] ?? slot);
}

/**
 * Functions whose first result comes only from their parameters (through their own locals): each function's sources.
 * A function whose result has any other source (a value it makes, a field it reads, another call) is left out.
 */
function resultSources(constraints: Constraint[]): Map<string, ResultSource[]> {
  const defs = new Map<Slot, Constraint[]>();
  const rets: Slot[] = [];
  for (const k of constraints) {
    const dst = slotDefined(k);
    if (dst === undefined) continue;
    const list = defs.get(dst);
    if (list) list.push(k);
    else defs.set(dst, [k]);
    if (dst.endsWith("#ret") && list === undefined) rets.push(dst);
  }
  const out = new Map<string, ResultSource[]>();
  for (const ret of rets) {
    const fn = ret.slice(0, -"#ret".length);
    const found = sourcesOf(ret, fn, defs);
    if (found?.length) out.set(fn, found);
  }
  return out;
}

/** The parameter sources of a slot of `fn`, or undefined when it has any other. */
function sourcesOf(start: Slot, fn: string, defs: Map<Slot, Constraint[]>): ResultSource[] | undefined {
  const out: ResultSource[] = [];
  const seen = new Set<Slot>([start]);
  const todo: Slot[] = [start];
  while (todo.length) {
    const slot = todo.pop()!;
    for (const k of defs.get(slot) ?? []) {
      if (k.c === "copy") {
        const param = paramIndexOf(k.src, fn);
        if (param !== undefined) out.push({ param });
        else if (fnOfLocal(k.src) === fn && !k.src.endsWith("#this") && !seen.has(k.src)) {
          seen.add(k.src);
          todo.push(k.src);
        } else if (!seen.has(k.src)) return undefined;
      } else if (k.c === "call") {
        const param = paramIndexOf(k.callee, fn);
        if (param === undefined) return undefined;
        out.push({ param, args: k.args });
      } else return undefined;
    }
  }
  return out;
}
