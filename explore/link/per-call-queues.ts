// Queues made by a shared constructor: a constructor several callers share makes one object per call (instances.ts),
// and a queue it makes and keeps in that object is one queue per call too (`&Reconciler{reconcileQ: workqueue.New…}`
// returned to four operators is four reconcile queues). The type's methods read the queue from their receiver, so a
// Get or an Add written once in a method is, object by object, the Get or the Add of that object's own queue.
import { type CallFact, type Constraint, type Slot, type Value, keysOf } from "../facts.js";
import { fieldSlot } from "../points-to.js";
import { push } from "./graph.js";
import { PARAM } from "./contexts.js";
import { type Receivers, fnOfLocal, instanceType, madeAt } from "./instances.js";
import { ReceiverObjectLinker } from "./receiver-objects.js";

/** Between a queue made in a constructor and the call of the constructor it was made for. */
const AT = "@@";

interface PerCallQueue {
  /** The queue the constructor's own code makes. */
  made: string;
  /** The call of the constructor this queue was made for. */
  site: CallFact;
  /** The object that call made, holding the queue. */
  object: Value;
  /** Made by a method of the object's type (its Register), not by the constructor. */
  inMethod?: boolean;
}

export abstract class PerCallQueueLinker extends ReceiverObjectLinker {
  /** Queues made per call of a shared constructor, by id. */
  protected readonly perCallQueues = new Map<string, PerCallQueue>();
  /** A queue a shared constructor makes → the queues made per call of it, which stand for it. */
  private readonly splitQueues = new Map<string, string[]>();

  /**
   * After the objects per call are known: a queue the constructor makes and stores into the object it returns is made
   * again for each call, in that call's object. The queue made in the constructor's code then is no controller of its
   * own; its calls (Get, Add, Done) are each object's.
   */
  protected perCallQueueConstraints(): Constraint[] {
    const found = new Map<string, { id: string; field: Slot; call: PerCallQueue }[]>();
    const makers = this.objectMakers();
    for (const [type, objects] of this.instances) {
      const fields = this.types.get(type)?.fields ?? [];
      for (const object of objects) {
        const site = this.calls.get(madeAt(object) ?? "");
        const from = copiedFrom(object);
        const maker = from && makers.get(from);
        if (site && from && maker)
          for (const q of this.queuesForCall(object, from, fields, maker, site)) push(found, q.call.made, q);
      }
    }
    return this.splitPerCall(found);
  }

  /** Each queue found made for two or more calls stands for the constructor's queue: one queue per call. */
  private splitPerCall(found: Map<string, { id: string; field: Slot; call: PerCallQueue }[]>): Constraint[] {
    const out: Constraint[] = [];
    for (const [made, queues] of found) {
      // (One call's queue is the constructor's queue itself.)
      if (new Set(queues.map((q) => q.id)).size < 2) continue;
      const ctor = this.queueCalls.get(made)!;
      this.queueCalls.delete(made);
      for (const { id, field, call } of queues) {
        out.push({ c: "alloc", dst: field, v: `q|${id}` });
        this.perCallQueues.set(id, call);
        this.queueCalls.set(id, ctor);
        push(this.splitQueues, made, id);
      }
    }
    return out;
  }

  /**
   * Once the objects' fields are solved: a queue a method makes and keeps in its receiver (`c.queue =
   * workqueue.New…` in Register) is one queue per object its calls run on, when those are several objects made per
   * call (`requests.New(issuer)` called by each issuer's package): each object's field holds its own. Returns what to
   * solve again with (nothing when no method makes such a queue).
   */
  protected methodQueueConstraints(): Constraint[] {
    const found = new Map<string, { id: string; field: Slot; call: PerCallQueue }[]>();
    for (const k of this.facts.constraints) {
      if (k.c !== "store" || !k.base.endsWith("#this")) continue;
      const method = k.base.slice(0, -"#this".length);
      const type = this.fns.get(method)?.owner;
      const made = keysOf(this.pts.valuesOf(k.src), "q").filter((q) => {
        const ctor = this.queueCalls.get(q);
        return ctor && !this.perCallQueues.has(q) && !this.splitQueues.has(q) && this.isWithin(ctor.fn, method);
      });
      if (!type || made.length === 0) continue;
      for (const object of this.objectsRunning(method, type)) {
        const site = this.calls.get(madeAt(object) ?? "");
        if (!site) continue;
        const field = fieldSlot(object, k.field)!;
        for (const q of made)
          push(found, q, { id: `${q}${AT}${site.id}`, field, call: { made: q, site, object, inMethod: true } });
      }
    }
    return this.splitPerCall(found);
  }

  /** The objects of a type made per call that calls of one of its methods run on (none unless two or more). */
  private objectsRunning(method: string, type: string): Value[] {
    const objects = new Set(this.objectsOf(type));
    if (objects.size < 2) return [];
    const running = new Set<Value>();
    for (const c of this.callersOf(method))
      if (c.recv) for (const v of this.precise(c.recv)) if (objects.has(v) && copiedFrom(v)) running.add(v);
    return running.size >= 2 ? [...running] : [];
  }

  /** The function that made each object made in place (`&T{...}` in a constructor). */
  private objectMakers(): Map<Value, string> {
    const makers = new Map<Value, string>();
    for (const k of this.facts.constraints)
      if (k.c === "alloc" && instanceType(k.v)) {
        const maker = fnOfLocal(k.dst);
        if (maker) makers.set(k.v, maker);
      }
    return makers;
  }

  /** One call's copy of an object: a queue of its own in each field holding a queue the constructor makes. */
  private queuesForCall(
    object: Value,
    from: Value,
    fields: string[],
    maker: string,
    site: CallFact,
  ): { id: string; field: Slot; call: PerCallQueue }[] {
    const out: { id: string; field: Slot; call: PerCallQueue }[] = [];
    for (const field of fields)
      for (const made of keysOf(this.pts.valuesOf(fieldSlot(from, field)), "q")) {
        const ctor = this.queueCalls.get(made);
        if (!ctor || !this.isWithin(ctor.fn, maker)) continue;
        out.push({ id: `${made}${AT}${site.id}`, field: fieldSlot(object, field)!, call: { made, site, object } });
      }
    return out;
  }

  /**
   * The queues a queue call works on: a queue made per call stands for the constructor's own; read in a method of the
   * type (`r.queue.Get()`), it is each object's queue, or with `receivers` only those objects'.
   */
  protected queuesOfCall(call: CallFact, receivers?: Receivers): string[] {
    return this.perCallOnly(call.recv, this.queuesOf(call.recv, receivers), call.fn);
  }

  /**
   * Queues in `queues` replaced by the per-call queues standing for them: those the slot holds, else those it holds
   * read with the receivers `along` gives (the objects a handler's path called methods on), else every object's.
   */
  protected perCallOnly(
    slot: Slot | undefined,
    queues: string[],
    fnId: string,
    along?: () => Receivers | undefined,
  ): string[] {
    const split = queues.filter((q) => this.splitQueues.has(q));
    if (split.length === 0) return queues;
    const out = new Set(queues.filter((q) => !this.splitQueues.has(q)));
    const held = (q: string) => this.perCallQueues.get(q)?.made;
    let viaPath: string[] | undefined;
    for (const made of split) {
      let mine = queues.filter((q) => held(q) === made);
      if (mine.length === 0 && along) {
        viaPath ??= keysOf(this.precise(slot, along()), "q");
        mine = viaPath.filter((q) => held(q) === made);
      }
      for (const q of mine.length ? mine : this.eachObjectsQueue(slot, fnId, made)) out.add(q);
    }
    return [...out];
  }

  /**
   * The objects the calls on a path (from `start`, through the functions `path` names) run methods of: a call on a
   * value that is some of its type's objects makes them the receivers of the method it calls, and of what follows.
   */
  protected receiversAlong(start: string, path: string[], base?: Receivers): Receivers | undefined {
    const receivers = new Map<string, readonly Value[]>(base ?? []);
    let from = start;
    for (const fn of path) {
      const type = this.fns.get(fn)?.owner;
      const all = type ? this.objectsOf(type).length : 0;
      if (type && all >= 2) {
        const objects = new Set<Value>();
        for (const c of this.callsIn(this.region(from)))
          if (c.recv && this.callees(c).includes(fn))
            for (const v of this.precise(c.recv, receivers)) if (instanceType(v) === type) objects.add(v);
        if (objects.size && objects.size < all) receivers.set(type, [...objects]);
      }
      from = fn;
    }
    return receivers.size ? receivers : undefined;
  }

  /** In a method of the type holding the queue: each object's queue, read with that object as the receiver. */
  private eachObjectsQueue(slot: Slot | undefined, fnId: string, made: string): string[] {
    const type = this.methodOwner(fnId);
    const out: string[] = [];
    for (const o of type ? this.objectsOf(type) : [])
      for (const q of keysOf(this.precise(slot, new Map([[type!, [o]]])), "q"))
        if (this.perCallQueues.get(q)?.made === made) out.push(q);
    if (!out.length && !type) out.push(...this.queuesViaCallers(slot, made));
    return out.length ? out : (this.splitQueues.get(made) ?? []);
  }

  /**
   * A helper's parameter holding a queue made per object (`queue` of a function an issuer stored in its controller's
   * `registerExtraInformers`): what the calls from the holding type's methods pass, through helpers passing it on, each
   * read for one object, a call through a field counted only for the objects whose field holds the function called.
   */
  private queuesViaCallers(slot: Slot | undefined, made: string): string[] {
    const split = this.splitQueues.get(made) ?? [];
    const objects = split.map((q) => this.perCallQueues.get(q)!.object);
    const type = objects.length ? instanceType(objects[0]!) : undefined;
    if (!slot || !type || !PARAM.test(slot)) return [];
    const out = new Set<string>();
    for (const chain of this.callChains(PARAM.exec(slot)![1]!)) {
      const from = this.passedInMethodOf(type, chain, slot);
      for (const o of from ? objects : []) {
        const receivers = new Map([[type, [o]]]);
        if (from!.site.dynamic && !keysOf(this.precise(from!.site.callee, receivers), "f").includes(from!.called))
          continue;
        for (const q of keysOf(this.precise(from!.arg, receivers), "q")) if (split.includes(q)) out.add(q);
      }
    }
    return [...out];
  }

  /**
   * Back along a chain of calls passing a parameter on, to the call made in a method of `type`: that call, the slot it
   * passes and the function it calls with it. Undefined when the chain passes something else or has no such call.
   */
  private passedInMethodOf(
    type: string,
    chain: CallFact[],
    slot: Slot,
  ): { site: CallFact; arg: Slot; called: string } | undefined {
    let arg: Slot | undefined = slot;
    for (let i = chain.length - 1; i >= 0 && arg; i--) {
      const m = PARAM.exec(arg);
      const called = m?.[1] ?? "";
      arg = m && this.callees(chain[i]!).includes(called) ? chain[i]!.args[Number(m[2])] : undefined;
      if (arg && this.methodOwner(chain[i]!.fn) === type) return { site: chain[i]!, arg, called };
    }
    return undefined;
  }

  /** Per-call queue → the type (in its call's file) keeping the object the call made: the controller's name. */
  private perCallHolders: Map<Value, string[]> | undefined;
  protected perCallHolder(queueId: string): string | undefined {
    const pc = this.perCallQueues.get(queueId);
    if (!pc) return undefined;
    if (!this.perCallHolders) {
      const objects = new Set([...this.perCallQueues.values()].map((q) => q.object));
      this.perCallHolders = new Map();
      for (const k of this.facts.constraints) {
        if (k.c !== "store") continue;
        const kept = [...this.pts.valuesOf(k.src)].filter((v) => objects.has(v));
        if (kept.length === 0) continue;
        for (const t of keysOf(this.pts.valuesOf(k.base), "o")) for (const v of kept) push(this.perCallHolders, v, t);
      }
    }
    const holder = (this.perCallHolders.get(pc.object) ?? []).find(
      (t) => this.types.get(t)?.loc.file === pc.site.loc.file,
    );
    if (holder) return this.typeLabel(holder);
    // (One type's objects made in several packages, each its own controller: named by the package that made it.)
    const type = pc.inMethod ? instanceType(pc.object) : undefined;
    const pkg = pc.site.loc.file.split("/").at(-2);
    return type && pkg ? `${this.typeLabel(type)} in ${pkg}` : this.fnName(this.fns.get(pc.site.fn)!);
  }
}

/** The object a per-call copy was made from (`l|T@@place@@call` → `l|T@@place`); undefined for one made in place. */
function copiedFrom(v: Value): Value | undefined {
  const last = v.lastIndexOf(AT);
  return last > v.indexOf(AT) ? (v.slice(0, last) as Value) : undefined;
}
