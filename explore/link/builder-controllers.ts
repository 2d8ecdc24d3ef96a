// controller-runtime controllers: the builder's (or controller.New's) sources and the reconciler's Reconcile method.
import { at } from "../loc.js";
import type { Controller, Handler, Source } from "../model.js";
import { QueueControllerLinker } from "./queue-controllers.js";

export abstract class BuilderControllerLinker extends QueueControllerLinker {
  protected builderControllers(): Controller[] {
    return this.facts.builders.map((b) => {
      const values = b.reconcilers.flatMap((slot) => [...this.pts.valuesOf(slot)]);
      const reconcilers = values.filter((v) => v.startsWith("o|")).map((v) => v.slice(2));
      // A type's Reconcile method, or a function given as the reconciler (reconcile.Func(func(ctx, req) ...)).
      const reconcile = [
        ...reconcilers.flatMap((t) => this.fnsAt(`${t}.Reconcile`)),
        ...values
          .filter((v) => v.startsWith("f|"))
          .map((v) => v.slice(2))
          .filter((id) => this.fns.has(id)),
      ][0];
      const typeName = reconcilers[0]
        ? (this.types.get(reconcilers[0])?.name ?? reconcilers[0].split(".").at(-1)!)
        : undefined;
      const sources: Source[] = b.sources.map((s) => {
        const handlerFns = s.handler ? this.fnsAt(s.handler) : [];
        const handlers: Handler[] =
          s.via === "Watches" || s.via === "Watch"
            ? handlerFns.length
              ? handlerFns.map((fn) => ({ events: ["map"], fn: this.place(fn), producers: [] }))
              : [
                  {
                    events: ["add", "update", "delete"],
                    fn: { name: `${s.handlerName ?? "handler"} (controller-runtime)` },
                    producers: [],
                  },
                ]
            : [
                {
                  events: ["add", "update", "delete"],
                  fn: {
                    name:
                      s.via === "For"
                        ? "handler.EnqueueRequestForObject (controller-runtime)"
                        : "handler.EnqueueRequestForOwner (controller-runtime)",
                  },
                  producers: [],
                },
              ];
        return { kind: s.kind, via: s.via, loc: s.loc, handlers };
      });
      if (!reconcile)
        this.unlinked.push(`controller-runtime builder at ${at(b.loc)}: no Reconcile method found for its reconciler`);
      return {
        name: b.name ?? typeName ?? this.place(b.fn).name,
        loc: b.loc,
        queue: {
          name: b.name,
          type: "controller-runtime workqueue (created by the controller)",
          rateLimiter: "default (workqueue.DefaultTypedControllerRateLimiter)",
          loc: b.loc,
        },
        sources,
        workers: [
          {
            loop: { name: "controller-runtime worker (Controller.processNextWorkItem in the library)" },
            process: reconcile ? this.place(reconcile) : undefined,
            then: [],
            done: [],
            forget: [],
            requeues: [],
          },
        ],
      };
    });
  }
}
