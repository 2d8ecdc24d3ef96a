// crdgen's runtime entry point, read the way controller-runtime's builder is: each `controllerFor(kube, <kind>Resource,
// hooks, ...)` call (a generated new<Kind>Controller) is one controller. Its kind comes from the descriptor, its queue,
// handlers and workers from the runtime's controllerFor (when the runtime is explored), and its processing goes on to
// the hooks given at that call.
import { type CallFact, keysOf } from "../facts.js";
import { at } from "../loc.js";
import type { Controller, Place, Source, Worker } from "../model.js";
import { fieldSlot } from "../points-to.js";
import { BuilderControllerLinker } from "./builder-controllers.js";
import { push } from "./graph.js";
import { REGISTER_METHODS } from "./vocabulary.js";

/** The runtime function every generated controller calls. */
const ENTRY = "controllerFor";
/** The kind of an informer made from a descriptor known only at run time (the TypeScript reader's word for it). */
const RUNTIME_KIND = "(kind set at run time)";

export abstract class ControllerForLinker extends BuilderControllerLinker {
  /**
   * The controllers, with each queue controller the runtime's controllerFor makes replaced by one block per call of
   * controllerFor; without the runtime's sources, each call is still a block, its queue and workers the library's.
   */
  protected controllerForControllers(queueControllers: Controller[]): Controller[] {
    const sites = this.facts.calls.filter((c) => c.method === ENTRY && c.args.length >= 3 && !this.isInternal(c.fn));
    if (sites.length === 0) return queueControllers;
    const claimed = new Set<Controller>();
    const matches = new Map<CallFact, Controller[]>();
    for (const site of sites) {
      const targets = this.callees(site).filter((id) => this.fns.get(id)!.name === ENTRY);
      // The queues controllerFor makes: in its own body, else anywhere it reaches.
      let queueLocs = new Set(
        [...this.queueCalls.values()]
          .filter((q) => targets.some((t) => this.region(t).includes(q.fn)))
          .map((q) => at(q.loc)),
      );
      if (queueLocs.size === 0)
        queueLocs = new Set(
          [...this.queueCalls.values()]
            .filter((q) => targets.some((t) => this.reach(t).has(q.fn)))
            .map((q) => at(q.loc)),
        );
      const found = queueControllers.filter((c) => queueLocs.has(at(c.queue.loc)));
      for (const c of found) claimed.add(c);
      matches.set(site, found);
    }
    // A hook reached from the runtime's shared code belongs to the call that passed it: the end of a chain that is
    // another call's hook is left out of this one's.
    const hooksBySite = new Map<CallFact, Set<string>>();
    const allHooks = new Set<string>();
    for (const site of sites) {
      const own = new Set<string>();
      for (const w of (matches.get(site) ?? []).flatMap((c) => c.workers)) {
        for (const chain of w.then)
          for (const fn of this.fnsAtLoc(chain.at(-1)?.loc)) if (this.isHookOf(site, fn)) own.add(fn);
      }
      hooksBySite.set(site, own);
      for (const fn of own) allHooks.add(fn);
    }
    const out = queueControllers.filter((c) => !claimed.has(c));
    for (const site of sites) {
      const enclosing = this.fns.get(site.fn);
      const kind = this.descriptorKind(site);
      const name =
        enclosing && enclosing.name !== "module" ? this.fnName(enclosing) : `${ENTRY}(${site.argTexts[1] ?? ""})`;
      const found = matches.get(site) ?? [];
      if (found.length === 0) {
        out.push(this.libraryControllerFor(site, name, kind));
        continue;
      }
      const registeredHere = new Set(
        this.callees(site)
          .flatMap((t) => this.callsIn(this.region(t)))
          .filter((c) => REGISTER_METHODS.has(c.method))
          .map((c) => at(c.loc)),
      );
      const own = hooksBySite.get(site)!;
      const keep = (chain: Place[]) => {
        const ends = this.fnsAtLoc(chain.at(-1)?.loc);
        return ends.some((fn) => own.has(fn)) || !ends.some((fn) => allHooks.has(fn));
      };
      for (const c of found) {
        const sources: Source[] = c.sources.map((s) =>
          s.kind === RUNTIME_KIND && registeredHere.has(at(s.registeredAt ?? s.loc)) ? { ...s, kind } : s,
        );
        const workers: Worker[] = c.workers.map((w) => ({ ...w, then: w.then.filter(keep) }));
        out.push({ ...c, name, loc: site.loc, sources, workers });
      }
    }
    return out;
  }

  /** The kind a descriptor argument names: its `kind` property, else the name (`mySQLClusterResource` → MySQLCluster). */
  protected descriptorKind(site: CallFact): string {
    const kinds = new Set<string>();
    for (const v of this.pts.valuesOf(site.args[1]))
      for (const kind of keysOf(this.pts.valuesOf(fieldSlot(v, "kind")), "s")) kinds.add(kind);
    if (kinds.size) return [...kinds].sort().join(" | ");
    const name = /(\w+)\s*$/.exec(site.argTexts[1] ?? "")?.[1]?.replace(/Resource$/, "");
    return name ? name.charAt(0).toUpperCase() + name.slice(1) : RUNTIME_KIND;
  }

  /** fn is a hook the call passes: a property of its hooks argument under fn's own name. */
  protected isHookOf(site: CallFact, fn: string): boolean {
    const f = this.fns.get(fn)!;
    const names = new Set(
      [
        f.role,
        f.name
          .replace(/ \(arrow\)$/, "")
          .split(".")
          .at(-1),
      ].filter((n): n is string => !!n),
    );
    for (const v of this.pts.valuesOf(site.args[2]))
      for (const n of names) if (this.fnsAt(fieldSlot(v, n)).includes(fn)) return true;
    return false;
  }

  /** A controllerFor call whose runtime is not among the explored sources: the queue, handlers and workers are the library's. */
  protected libraryControllerFor(site: CallFact, name: string, kind: string): Controller {
    const reconcile = [...this.pts.valuesOf(site.args[2])].flatMap((v) => this.fnsAt(fieldSlot(v, "reconcile")))[0];
    if (!reconcile)
      this.unlinked.push(
        `${site.text} at ${at(site.loc)}: no reconcile hook found in its hooks argument (${site.argTexts[2] ?? "?"})`,
      );
    return {
      name,
      loc: site.loc,
      queue: { type: "crdgen runtime workqueue (created by controllerFor)", rateLimiter: "default", loc: site.loc },
      sources: [
        {
          kind,
          via: ENTRY,
          loc: site.loc,
          handlers: [
            {
              events: ["add", "update", "delete"],
              fn: { name: "enqueueRequestForObject (@crdgen/runtime)" },
              producers: [],
            },
          ],
        },
      ],
      workers: [
        {
          loop: { name: "crdgen runtime worker (Controller.worker in @crdgen/runtime)" },
          process: reconcile ? this.place(reconcile) : undefined,
          then: [],
          done: [],
          forget: [],
          requeues: [],
        },
      ],
    };
  }

  protected fnsByLoc: Map<string, string[]> | undefined;
  protected fnsAtLoc(loc: Place["loc"]): string[] {
    if (!this.fnsByLoc) {
      this.fnsByLoc = new Map();
      for (const f of this.fns.values()) push(this.fnsByLoc, at(f.loc), f.id);
    }
    return loc ? (this.fnsByLoc.get(at(loc)) ?? []) : [];
  }
}
