// controller-runtime controllers: a builder (or controller.New) is a value; every For/Owns/Watches/Watch/Named/Complete
// called on it, wherever the value went (variables, reassignments, helpers, loops), adds to it. The reconciler is
// unwrapped to the Reconcile that does the work; in-repo handlers and map functions are named with their place.
import {
  type BuilderFact,
  type CallFact,
  type Constraint,
  type Loc,
  type Slot,
  type Value,
  keyOf,
  keysOf,
} from "../facts.js";
import { at, locOrder } from "../loc.js";
import type { Controller, Handler, Source } from "../model.js";
import { fieldSlot } from "../points-to.js";
import { type Receivers, instanceType, madeAt } from "./instances.js";
import { QueueControllerLinker } from "./queue-controllers.js";

/** controller-runtime's handler.EventHandler methods and handler.Funcs fields, with the event each stands for. */
const CR_HANDLER_MEMBERS: [string, string][] = [
  ["Create", "add"],
  ["Update", "update"],
  ["Delete", "delete"],
  ["Generic", "generic"],
  ["CreateFunc", "add"],
  ["UpdateFunc", "update"],
  ["DeleteFunc", "delete"],
  ["GenericFunc", "generic"],
];

/** Builder methods that return the builder (Complete, Build and a controller's Watch end the chain). */
const CHAINING = new Set([
  "For",
  "Owns",
  "Watches",
  "WatchesRawSource",
  "WatchesMetadata",
  "Named",
  "WithOptions",
  "WithEventFilter",
  "WithLogConstructor",
]);

/** How many helper calls deep a builder, an object or a handler passed as a parameter is followed to its call sites. */
const MAX_HELPER_DEPTH = 3;

/** What the calls on one builder added to it. */
interface Found {
  sources: Source[];
  reconcilers: Slot[];
  hints: Slot[];
  name?: string;
}

/** The slots a builder call reads, as seen from one chain of call sites of the helpers it sits in. */
interface Frame {
  recv?: Slot;
  /** The function the call runs in at this depth. */
  fn: string;
  /** The receiver of the outermost call of a builder wrapper's method followed so far (`w.For(x)`: w). */
  self?: Slot;
  /** That call: what it passes (the reconciler given to a wrapper's Complete). */
  site?: CallFact;
  object?: Slot;
  handler?: Slot;
  /** Where the watched object is written: the call itself, or the helper call that passed it in. */
  loc: Loc;
}

export abstract class BuilderControllerLinker extends QueueControllerLinker {
  /** Types of the tree that wrap a controller-runtime builder (see builderWrappers). */
  private wrapping = new Set<string>();

  /**
   * Before solving: a builder value where each builder is made, builder methods returning their receiver, and
   * EnqueueRequestsFromMapFunc(fn) standing for fn (so the map function is followed through variables too).
   */
  protected builderConstraints(): Constraint[] {
    const out: Constraint[] = [];
    for (const b of this.facts.builders) if (b.ret) out.push({ c: "alloc", dst: b.ret, v: `b|${b.id}` });
    // A method of the same name on a type of the explored tree returns what it returns, not its receiver: whether the
    // call runs one is known after the first solve (sameNamedChainConstraints).
    const declared = new Set<string>();
    for (const f of this.fns.values()) if (f.owner && !f.library) declared.add(f.name.replace(/^.*\./, ""));
    for (const call of this.facts.calls) {
      if (call.builderOp && call.recv && CHAINING.has(call.method)) {
        if (!declared.has(call.method)) out.push({ c: "copy", dst: call.ret, src: call.recv });
        else this.sameNamedChains.push(call);
      }
      // handler.WithLowPriorityWhenUnchanged(h) hands its events to h.
      if (/EnqueueRequestsFromMapFunc$|^(Typed)?WithLowPriorityWhenUnchanged$/.test(call.method) && call.args[0])
        out.push({ c: "copy", dst: call.ret, src: call.args[0] });
    }
    return out;
  }

  private readonly sameNamedChains: CallFact[] = [];
  /**
   * After a first solve: a chaining call named like a method of the tree that runs none (controller-runtime's For in
   * a repository declaring its own `(*Builder).For`) returns its receiver, the builder, as any other.
   */
  protected sameNamedChainConstraints(): Constraint[] {
    return this.sameNamedChains
      .filter((c) => this.fnsAt(c.callee).every((id) => this.fns.get(id)?.library))
      .map((c) => ({ c: "copy", dst: c.ret, src: c.recv! }));
  }

  /**
   * The builders, less a call recognised by its name (`util.NewControllerManagedBy(mgr)`) that is a function of the
   * tree making a builder itself: that function's builder, one per call, is the controller.
   */
  private operatorBuilders(): BuilderFact[] {
    const makers = new Set(this.facts.builders.map((b) => b.fn));
    // (a builder start read twice, as a call and inside a composite literal, is one builder)
    const byId = new Map(this.facts.builders.map((b) => [b.id, b]));
    return [...byId.values()].filter((b) => {
      const call = this.calls.get(b.id);
      return !call || !this.callees(call).some((fn) => makers.has(fn) && !this.fns.get(fn)?.library);
    });
  }

  /**
   * Types of the tree that wrap a builder: a function not of the type makes the builder, stores it in a field of an
   * object of the type and returns that object; the type's methods act on the builder (cluster-api's
   * util/controller.Builder). Each call of that function is one controller.
   */
  private builderWrappers(builders: BuilderFact[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const b of builders) {
      const maker = this.fns.get(b.fn);
      if (!maker || maker.owner || maker.library) continue;
      for (const type of keysOf(this.pts.valuesOf(`${b.fn}#ret`), "o")) {
        const fields = this.facts.calls.some(
          (c) => c.builderOp && this.methodOwner(c.fn) === type && this.pts.valuesOf(c.recv).has(`b|${b.id}`),
        );
        if (fields) out.set(type, b.id);
      }
    }
    return out;
  }

  protected builderControllers(): Controller[] {
    if (this.facts.builders.length === 0) return [];
    const operatorBuilders = this.operatorBuilders();
    const builders = new Map(operatorBuilders.map((b) => [b.id, b]));
    const wrappers = this.builderWrappers(operatorBuilders);
    this.wrapping = new Set(wrappers.keys());
    const added = new Map<string, Found>();
    const of = (id: string) => {
      let entry = added.get(id);
      if (!entry) added.set(id, (entry = { sources: [], reconcilers: [], hints: [] }));
      return entry;
    };
    // A builder made in a factory several controllers call (`return ctrl.NewControllerManagedBy(mgr).WithOptions(o)`)
    // is one value to points-to: each call of the factory is its own builder here.
    const sitesOf = new Map<string, CallFact[]>();
    const wrapped = new Set(wrappers.values());
    for (const b of operatorBuilders) {
      if (!wrapped.has(b.id) && !this.pts.valuesOf(`${b.fn}#ret`).has(`b|${b.id}`)) continue;
      const sites = this.sitesCalling(b.fn);
      if (sites.length > 1 || wrapped.has(b.id)) sitesOf.set(b.id, sites);
    }
    // A builder made in a method of a type several controllers are objects of (one reconciler type built by a shared
    // helper per controller): one builder per object, its kinds and reconciler read from that object's fields.
    const perObject = new Map<string, Receivers[]>();
    for (const b of operatorBuilders) {
      const type = sitesOf.has(b.id) ? undefined : this.methodOwner(b.fn);
      const objects = type ? this.objectsOf(type) : [];
      if (type && objects.length > 1)
        perObject.set(
          b.id,
          objects.map((o) => new Map([[type, [o]]])),
        );
    }
    const opByRet = new Map<Slot, CallFact>();
    for (const call of this.facts.calls) if (call.builderOp) opByRet.set(call.ret, call);
    for (const call of this.facts.calls) {
      const op = call.builderOp;
      if (!op || !call.recv || this.isInternal(call.fn)) continue;
      // b.For(x).Owns(y): the receiver of Owns is what For was called on.
      let recv: Slot = call.recv;
      for (let hops = 0; opByRet.has(recv) && hops < 32; hops++) recv = opByRet.get(recv)!.recv!;
      // Points-to merges every caller's values: no builder here means none in any caller (client-go's Watch calls).
      if (keysOf(this.pts.valuesOf(recv), "b").length === 0) continue;
      // (WatchesRawSource(source.Channel(ch, h)): h handles what comes out of the channel)
      const handler = op.handler ?? this.channelSourceAt(op.object)?.args[1];
      const start: Frame = { recv, fn: call.fn, object: op.object, handler, loc: op.loc };
      for (const frame of this.framesOf(start, 0)) {
        const ids = this.buildersAt(frame.recv, builders).flatMap((b) =>
          this.instancesOf(b, frame.self ?? frame.recv, sitesOf),
        );
        for (const [id, receivers] of ids.flatMap((id) => objectBuilders(id, perObject.get(id)))) {
          const entry = of(id);
          // (a wrapper's Named(name) hands on the name its call was given)
          const named = op.name ?? (op.op === "Named" ? frame.site?.strings[0] : undefined);
          if (op.op === "Named" && named) entry.name = named;
          if (op.op === "Complete") {
            entry.reconcilers.push(...(op.reconcilers ?? []));
            entry.hints.push(...(op.reconcilerHints ?? []));
            // A wrapper's Complete(ctx, r) wraps r again: the reconciler this call passed is the one that works.
            if (frame.site) entry.hints.push(...frame.site.args);
          }
          if (op.op === "For" || op.op === "Owns" || op.op === "Watches" || op.op === "Watch") {
            const kinds = this.channelKindsAt(frame.object) ?? this.kindsAt(frame.object, receivers);
            for (const kind of kinds.length ? kinds : ["?"]) {
              if (entry.sources.some((s) => s.kind === kind && s.via === op.op && at(s.loc) === at(frame.loc)))
                continue;
              entry.sources.push({ kind, via: op.op, loc: frame.loc, handlers: this.crHandlers(op.op, frame, call) });
            }
          }
        }
      }
    }
    // A builder inside library code (a vendored controller-runtime's own examples and helpers) is not the operator's.
    return operatorBuilders
      .filter((b) => !this.isInternal(b.fn))
      .flatMap((b) =>
        sitesOf.has(b.id)
          ? sitesOf.get(b.id)!.map((site) => this.builderController(b, added.get(`${b.id}@${site.ret}`), site.loc))
          : (this.objectControllers(b, perObject.get(b.id), added) ?? [
              this.builderController(b, added.get(b.id), b.loc),
            ]),
      );
  }

  /** One controller per object of the builder's type; undefined when the objects all come out alike (one controller). */
  private objectControllers(
    b: BuilderFact,
    objects: Receivers[] | undefined,
    added: Map<string, Found>,
  ): Controller[] | undefined {
    if (!objects) return undefined;
    const out = objectBuilders(b.id, objects).map(([id, receivers]) =>
      this.builderController(b, added.get(id), this.objectLoc(receivers) ?? b.loc, receivers),
    );
    const alike = (c: Controller) => JSON.stringify([c.sources, c.workers]);
    return out.every((c) => alike(c) === alike(out[0]!)) ? undefined : out;
  }

  /** Where the one object of receivers was made: its composite literal, or the call of the helper that made it. */
  private objectLoc(receivers: Receivers | undefined): Loc | undefined {
    const object = receivers && [...receivers.values()][0]?.[0];
    const place = object && madeAt(object);
    if (!place) return undefined;
    const call = this.calls.get(place);
    if (call) return call.loc;
    const m = /^(.*):(\d+):\d+$/.exec(place);
    return m ? { file: m[1]!, line: Number(m[2]) } : undefined;
  }

  /**
   * The builders (one per factory call for a builder made in a factory) a receiver in some function may be: the
   * factory calls made in that function (or one it is written in); all of them for a call inside the factory itself.
   */
  private instancesOf(id: string, recv: Slot | undefined, sitesOf: Map<string, CallFact[]>): string[] {
    const sites = sitesOf.get(id);
    if (!sites) return [id];
    const enclosing = this.enclosingFns(recv);
    const mine = sites.filter((s) => enclosing.has(s.fn));
    return (mine.length ? mine : sites).map((s) => `${id}@${s.ret}`);
  }

  /** The calls of a function outside library code. */
  private sitesCalling(fn: string): CallFact[] {
    return this.callersOf(fn).filter((c) => !this.isInternal(c.fn));
  }

  /** The function a slot belongs to and the ones it is written in. */
  private enclosingFns(slot: Slot | undefined): Set<string> {
    const out = new Set<string>();
    for (let f = this.fns.get(slot ? (fnOfSlot(slot) ?? "") : ""); f; f = f.parent ? this.fns.get(f.parent) : undefined)
      out.add(f.id);
    return out;
  }

  private builderController(b: BuilderFact, found: Found | undefined, loc: Loc, receivers?: Receivers): Controller {
    const name = found?.name ?? b.name;
    // (one object's reconciler: the type whose Reconcile runs, the object's fields for what it calls)
    const valuesAt = (slot: Slot): Value[] =>
      receivers
        ? [...this.precise(slot, receivers)].map((v): Value => (instanceType(v) ? `o|${instanceType(v)!}` : v))
        : [...this.pts.valuesOf(slot)];
    const values = [...b.reconcilers, ...(found?.reconcilers ?? [])].flatMap(valuesAt);
    const reconcilerTypes = this.reconcileTypes(values);
    const hinted = new Set(
      this.reconcileTypes(
        [...(b.reconcilerHints ?? []), ...(found?.hints ?? [])].flatMap((s) => [...this.pts.valuesOf(s)]),
      ).flatMap((t) => this.fnsAt(`${t}.Reconcile`)),
    );
    // A type's Reconcile method (unwrapped when it only hands over to another's), else a function given as the
    // reconciler (reconcile.Func(func(ctx, req) ...)).
    const reconcile =
      reconcilerTypes.flatMap((t) =>
        this.fnsAt(`${t}.Reconcile`).map((fn) => this.unwrapReconcile(fn, hinted, 0)),
      )[0] ?? keysOf(values, "f").find((id) => this.fns.has(id));
    // (named by the reconciler that works, not a wrapper handing requests to it)
    const working = (reconcile && this.fns.get(reconcile)?.owner) ?? reconcilerTypes[0];
    const typeLabel = working ? this.typeLabel(working) : undefined;
    const primary = found?.sources.find((s) => s.via === "For")?.kind;
    const typeName = typeLabel && receivers && primary ? `${typeLabel} for ${primary}` : typeLabel;
    if (!reconcile)
      this.unlinked.push(`controller-runtime builder at ${at(loc)}: no Reconcile method found for its reconciler`);
    const sources = [...b.sources.map((s) => this.libraryHandled(s)), ...(found?.sources ?? [])].sort((x, y) =>
      locOrder(x.loc, y.loc),
    );
    return {
      name: name ?? typeName ?? this.place(b.fn).name,
      loc,
      queue: {
        name,
        type: "controller-runtime workqueue (created by the controller)",
        rateLimiter: "default (workqueue.DefaultTypedControllerRateLimiter)",
        loc,
      },
      sources,
      workers: [
        {
          loop: { name: "controller-runtime worker (Controller.processNextWorkItem in the library)" },
          process: reconcile ? this.place(reconcile) : undefined,
          then: reconcile && receivers ? this.delegations(reconcile, 0, receivers) : [],
          done: [],
          forget: [],
          requeues: [],
        },
      ],
    };
  }

  /** A BuilderFact's own sources (a reader that lists them itself): handled by controller-runtime's handlers. */
  private libraryHandled(s: BuilderFact["sources"][number]): Source {
    return {
      kind: s.kind,
      via: s.via,
      loc: s.loc,
      handlers: [
        { events: ["add", "update", "delete"], fn: { name: `${s.handlerName ?? "handler"} (controller-runtime)` } },
      ].map((h) => ({ ...h, producers: [] })),
    };
  }

  /**
   * The frames a builder call runs in: itself, or, when the builder, the object or the handler is a parameter of the
   * helper the call sits in, each call site of that helper (recursively), so two controllers sharing a helper keep
   * their own kinds and a kind passed in is placed where it is written.
   */
  private framesOf(frame: Frame, depth: number): Frame[] {
    const slots = [frame.recv, frame.object, frame.handler, frame.self];
    const byParam = slots.map(paramOf).find((p) => p !== undefined)?.fn;
    // A method of a builder wrapper runs for the wrapper each of its calls is made on.
    const owner = this.methodOwner(frame.fn);
    const helper = byParam ?? (owner && this.wrapping.has(owner) ? frame.fn : undefined);
    if (!helper || depth >= MAX_HELPER_DEPTH) return [frame];
    const sites = this.sitesCalling(helper);
    if (sites.length === 0) return [frame];
    const wrapperMethod = !!owner && this.wrapping.has(owner) && helper === frame.fn;
    const inSite = (slot: Slot | undefined, site: CallFact): Slot | undefined => {
      const p = paramOf(slot);
      return p && p.fn === helper ? site.args[p.index] : slot;
    };
    return sites.flatMap((site) =>
      this.framesOf(
        {
          recv: inSite(frame.recv, site),
          fn: site.fn,
          // (what the wrapper's call was given, as read at it: `w.WatchesRawSource(source.Kind(c, &T{}, h))`)
          object: (wrapperMethod ? site.builderOp?.object : undefined) ?? inSite(frame.object, site),
          handler: (wrapperMethod ? site.builderOp?.handler : undefined) ?? inSite(frame.handler, site),
          self: wrapperMethod ? site.recv : inSite(frame.self, site),
          site: wrapperMethod ? site : frame.site,
          // (a call of a wrapper's method is placed at the method's name, as a builder's own)
          loc: paramOf(frame.object)?.fn === helper ? (site.builderOp?.loc ?? site.loc) : frame.loc,
        },
        depth + 1,
      ),
    );
  }

  /**
   * The builders a receiver holds. A builder handed through a helper that returns it (`b = setup(b, c)`) comes back
   * merged with every other caller's: the ones made in the receiver's own function (or one it is written in) win.
   */
  private buildersAt(recv: Slot | undefined, builders: Map<string, BuilderFact>): string[] {
    const ids = keysOf(this.pts.valuesOf(recv), "b");
    if (ids.length <= 1 || !recv) return ids;
    const enclosing = this.enclosingFns(recv);
    const local = ids.filter((id) => enclosing.has(builders.get(id)?.fn ?? ""));
    return local.length ? local : ids;
  }

  /** The kinds of the objects a slot holds; controller-runtime before 0.15 wrapped them: `&source.Kind{Type: &T{}}`. */
  /** controller-runtime's `source.Channel(ch, h)` call whose result a slot is, if any. */
  private channelSources: Map<Slot, CallFact> | undefined;
  private channelSourceAt(slot: Slot | undefined): CallFact | undefined {
    if (!this.channelSources) {
      this.channelSources = new Map();
      for (const c of this.facts.calls)
        if (c.method === "Channel" && c.qualifier?.endsWith("controller-runtime/pkg/source"))
          this.channelSources.set(c.ret, c);
    }
    return slot === undefined ? undefined : this.channelSources.get(slot);
  }

  /** The kinds Go's types find coming out of a source.Channel's channel (its type argument, or what is sent on it). */
  private channelKindsAt(slot: Slot | undefined): string[] | undefined {
    const call = this.channelSourceAt(slot);
    const kinds = call && this.goTypes?.channelKinds.get(call.id);
    return kinds?.length ? kinds : undefined;
  }

  private kindsAt(slot: Slot | undefined, receivers?: Receivers): string[] {
    const kinds = new Set<string>();
    for (const v of receivers ? this.precise(slot, receivers) : this.pts.valuesOf(slot)) {
      const kind = keyOf(v, "k");
      if (kind !== undefined && kind !== "Kind") kinds.add(kind);
      for (const inner of keysOf(this.pts.valuesOf(fieldSlot(v, "Type")), "k")) kinds.add(inner);
    }
    return [...kinds].sort();
  }

  /** For and Owns use controller-runtime's own handlers; Watches' handler is followed into the explored sources. */
  private crHandlers(op: string, frame: Frame, call: CallFact): Handler[] {
    const library = (name: string): Handler[] => [
      { events: ["add", "update", "delete"], fn: { name: `${name} (controller-runtime)` }, producers: [] },
    ];
    if (op === "For") return library("handler.EnqueueRequestForObject");
    if (op === "Owns") return library("handler.EnqueueRequestForOwner");
    const byFn = new Map<string, string[]>();
    const addFn = (fn: string, event: string) => {
      // controller-runtime's own handlers read from a vendored copy stay "(controller-runtime)".
      if (this.fns.get(fn)?.library) return;
      const events = byFn.get(fn) ?? [];
      if (!events.includes(event)) events.push(event);
      byFn.set(fn, events);
    };
    // (a channel source only ever sends generic events)
    const channel = this.channelSourceAt(frame.object) !== undefined;
    const members = CR_HANDLER_MEMBERS.filter(([, event]) => !channel || event === "generic");
    for (const v of this.pts.valuesOf(frame.handler)) {
      // A map function (EnqueueRequestsFromMapFunc(fn) stands for fn), or a handler type / handler.Funcs literal.
      const fn = keyOf(v, "f");
      if (fn !== undefined && this.fns.has(fn)) addFn(fn, "map");
      for (const [member, event] of members) for (const fn of this.fnsAt(fieldSlot(v, member))) addFn(fn, event);
    }
    // (a wrapper's Watches(obj, h) is named by what its call was given)
    const written = frame.site?.builderOp?.handlerName ?? call.builderOp?.handlerName;
    if (byFn.size === 0) return library(written ?? "handler");
    return [...byFn]
      .map(([fn, events]) => ({ events, fn: this.place(fn), producers: [] }))
      .sort((a, b) => locOrder(a.fn.loc, b.fn.loc));
  }

  /**
   * A Reconcile that hands the request to another Reconcile of the explored sources (a leader-aware or logging
   * wrapper): the inner one does the work.
   */
  private unwrapReconcile(fn: string, hinted: Set<string>, depth: number): string {
    if (depth >= 3) return fn;
    for (const call of this.callsIn(this.region(fn))) {
      if (call.method !== "Reconcile") continue;
      const inner = this.callees(call).filter((id) => id !== fn && /\.Reconcile$/.test(this.fns.get(id)?.name ?? ""));
      const chosen = inner.find((id) => hinted.has(id)) ?? inner[0];
      if (chosen) return this.unwrapReconcile(chosen, hinted, depth + 1);
    }
    return fn;
  }

  /** The types among values that have a Reconcile method. */
  private reconcileTypes(values: Value[]): string[] {
    return [...new Set(keysOf(values, "o"))].filter((t) => this.fnsAt(`${t}.Reconcile`).length > 0);
  }
}

/** A builder's id, or one id per object when it is made in a method of a type with several objects. */
function objectBuilders(id: string, objects: Receivers[] | undefined): [string, Receivers | undefined][] {
  if (!objects) return [[id, undefined]];
  return objects.map((r) => [`${id}@${[...r.values()][0]![0]!}`, r]);
}

/** `<fnId>#p<i>`: a parameter slot, with its function. */
function paramOf(slot: Slot | undefined): { fn: string; index: number } | undefined {
  const m = /^(.*)#p(\d+)$/.exec(slot ?? "");
  return m ? { fn: m[1]!, index: Number(m[2]) } : undefined;
}

/** The function a local, parameter or temporary slot belongs to (`<fnId>$x`, `<fnId>#p0`, `<fnId>~3`). */
function fnOfSlot(slot: Slot): string | undefined {
  return /^(.*?:\d+:\d+)[$#~]/.exec(slot)?.[1];
}
