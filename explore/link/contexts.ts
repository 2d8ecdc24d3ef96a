// Shared helpers read per caller: a helper such as AddEventHandlersT(informer, add, update, delete) or
// Run(name, queue, workers, reconcile) called by many controllers holds, in its parameters, every caller's informer,
// queue and functions at once. Each call site of the helper is its own context: the helper's parameters are read as
// what that site passes (through helpers that pass their own parameters on), so a controller gets only its own.
import { type CallFact, type Slot, type Value, keysOf } from "../facts.js";
import { fieldSlot } from "../points-to.js";
import { LinkGraph } from "./graph.js";

/** Call sites from the outermost (the controller's own call) to the one that calls the helper. */
export type CallChain = CallFact[];

export const PARAM = /^(.*)#p(\d+)$/;

/** The index of `fn`'s parameter a slot is (`<fn>#p2` → 2), or undefined for any other slot. */
export function paramIndexOf(slot: Slot, fn: string): number | undefined {
  const m = PARAM.exec(slot);
  return m && m[1] === fn ? Number(m[2]) : undefined;
}

export abstract class ContextLinker extends LinkGraph {
  /**
   * The chains of call sites that reach a helper: a caller that passes its own (or an enclosing function's)
   * parameters on is followed up to its own callers, a few levels deep. Empty when nothing in the sources calls it.
   */
  protected callChains(fnId: string, depth = 0): CallChain[] {
    const chains: CallChain[] = [];
    for (const site of this.callersOf(fnId)) {
      const forwarded = depth < 4 ? this.forwardedParamsOwner(site) : undefined;
      const outer = forwarded && forwarded !== fnId ? this.callChains(forwarded, depth + 1) : [];
      if (outer.length) for (const chain of outer) chains.push([...chain, site]);
      else chains.push([site]);
    }
    return chains;
  }

  /** The values a helper's parameter holds in one context: what the chain's last site passes, followed outwards. */
  protected valuesIn(slot: Slot, chain: CallChain): ReadonlySet<Value> {
    const m = PARAM.exec(slot);
    const site = chain.at(-1);
    if (!m || !site || !this.callees(site).includes(m[1]!)) return this.pts.valuesOf(slot);
    const arg = site.args[Number(m[2])];
    if (arg === undefined) return new Set();
    return PARAM.test(arg) ? this.valuesIn(arg, chain.slice(0, -1)) : this.pts.valuesOf(arg);
  }

  /** A parameter's values in one context, followed through the fields of a path (`cfg.queue`). */
  protected valuesAlong(fnId: string, index: number, path: string[], chain: CallChain): Value[] {
    let values = [...this.valuesIn(`${fnId}#p${index}`, chain)];
    for (const field of path)
      values = values.flatMap((v) => {
        const slot = fieldSlot(v, field);
        return slot ? [...this.pts.valuesOf(slot)] : [];
      });
    return values;
  }

  /** The functions a helper's parameters hold in one context (the functions passed at that site). */
  protected paramFnsIn(fnId: string, chain: CallChain): Set<string> {
    const f = this.fns.get(fnId);
    const out = new Set<string>();
    for (let i = 0; f && i < f.params; i++)
      for (const id of keysOf(this.valuesIn(`${fnId}#p${i}`, chain), "f")) out.add(id);
    return out;
  }

  /** The functions a helper's parameters hold in any context. */
  protected paramFns(fnId: string): Set<string> {
    const f = this.fns.get(fnId);
    const out = new Set<string>();
    for (let i = 0; f && i < f.params; i++) for (const id of this.fnsAt(`${fnId}#p${i}`)) out.add(id);
    return out;
  }

  /**
   * The function whose parameters a call passes on as its arguments (the call sits in it or in a closure of it), when
   * something calls that function (a closure handed to wait.Until is called by the library: its own ctx is no context).
   */
  private forwardedParamsOwner(site: CallFact): string | undefined {
    for (const arg of site.args) {
      const owner = PARAM.exec(arg)?.[1];
      if (owner && this.isWithin(site.fn, owner) && this.callersOf(owner).length) return owner;
    }
    return undefined;
  }
}
