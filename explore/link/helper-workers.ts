// Workers written through a shared helper: `for c.processX() {}` where processX is
// `return util.ProcessWorkItem(c.queue, func(key string) (time.Duration, error) {…})` and the helper takes the key
// from the queue it is given and hands it to the function it is given. The loop is the caller's caller that passes
// this queue; the processing function is the func literal passed with this queue (or what it only delegates to).
import type { CallFact } from "../facts.js";
import { PARAM } from "./contexts.js";
import { PerCallQueueLinker } from "./per-call-queues.js";

export abstract class HelperWorkerLinker extends PerCallQueueLinker {
  /**
   * The loop two calls above a Get on a helper's queue parameter (Run → `for c.processX() {}` → the helper holding
   * the Get): of the sites calling the helper, one that passes this queue and whose function is called in a loop.
   */
  protected loopAboveHelper(get: CallFact, queueId: string | undefined): string | undefined {
    const helper = get.recvParam;
    if (!helper || helper.fn !== get.fn) return undefined;
    for (const site of this.callersOf(helper.fn)) {
      if (queueId && !this.valuesAlong(helper.fn, helper.index, helper.path, [site]).includes(`q|${queueId}`)) continue;
      const loop = this.callersOf(site.fn).find((c) => c.inLoop);
      if (loop) return loop.fn;
    }
    return undefined;
  }

  /**
   * Adds to `names` the parameters of func literals written in the region and called in place with one of them
   * (`err := func(key string) error {…}(obj)`: key holds what obj holds).
   */
  protected seedInPlaceLiterals(region: string[], regionCalls: CallFact[], names: Set<string>): void {
    const inRegion = new Set(region);
    for (let changed = true; changed;) {
      changed = false;
      for (const c of regionCalls) {
        const literal = this.callees(c).find((id) => inRegion.has(id) && isLiteral(this.fns.get(id)?.name));
        if (!literal) continue;
        const params = this.fns.get(literal)!.paramNames;
        c.args.forEach((arg, i) => {
          const param = params[i];
          if (param && names.has(this.nameOfSlot(arg) ?? "") && !names.has(param)) {
            names.add(param);
            changed = true;
          }
        });
      }
    }
  }

  /** The name a local variable's or parameter's slot stands for (`file:line:col$obj`, `fn#p0`). */
  private nameOfSlot(slot: string): string | undefined {
    const local = /\$(\w+)$/.exec(slot);
    if (local) return local[1];
    const param = PARAM.exec(slot);
    return param ? this.fns.get(param[1]!)?.paramNames[Number(param[2])] : undefined;
  }

  /**
   * A func literal that only hands its parameters to one function (`func(key string) error { return c.sync(key) }`)
   * is reported as that function; a literal that does more (looks the object up, logs, then calls) is the work itself.
   */
  protected throughDelegatingLiteral(fnId: string): string {
    const f = this.fns.get(fnId);
    if (!f || !isLiteral(f.name) || (this.children.get(fnId) ?? []).length) return fnId;
    const calls = this.callsIn([fnId]);
    const only = calls[0];
    if (calls.length !== 1 || !only!.tail || !f.paramNames.some((p) => only!.argIdents.includes(p))) return fnId;
    const targets = this.callees(only!);
    return targets.length === 1 && !isLiteral(this.fns.get(targets[0]!)?.name) ? targets[0]! : fnId;
  }
}

function isLiteral(name: string | undefined): boolean {
  return name === "func literal" || name === "arrow function" || (name?.endsWith(" (arrow)") ?? false);
}
