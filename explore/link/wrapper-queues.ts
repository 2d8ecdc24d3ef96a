// Wrapper queues: a repository's own type holding a client-go workqueue in a field and the function its workers hand
// keys to (a WorkerQueue built by NewWorkerQueueWithRateLimiter(handler, logger, name, limiter)). Each construction
// site is one queue: the handler passed there is its processing function, and the wrapper's Get is its worker loop.
import { type CallFact, type Constraint, type FnFact, type Slot, type TypeFact, keyOf, keysOf } from "../facts.js";
import type { Worker } from "../model.js";
import type { Receivers } from "./instances.js";
import { PARAM } from "./contexts.js";
import { appendAll } from "./lists.js";
import { WorkerLinker } from "./workers.js";
import { ADD_METHODS, GET_METHODS } from "./vocabulary.js";

export interface WrapperType {
  type: TypeFact;
  /** The field holding the wrapped workqueue. */
  field: string;
  /** Get calls on that field in the wrapper's methods: one worker each. */
  gets: CallFact[];
}

/** The wrapper's own methods that put a key on its queue (Enqueue, EnqueueRateLimited, AddAfter, ...). */
export const WRAPPER_ADD = /^(add|enqueue)\w*$/i;

export abstract class WrapperQueueLinker extends WorkerLinker {
  protected readonly wrapperTypes = new Map<string, WrapperType>();
  /** Construction sites (queue ids) of wrapper queues, with the wrapper type built there. */
  protected readonly wrapperSites = new Map<string, WrapperType>();
  /** Sites of wrappers given their queue (no queue of their own): the wrapper, and its constructor's queue parameter. */
  protected readonly givenQueueSites = new Map<string, { wrapper: WrapperType; param: number }>();

  /**
   * Types named ...Queue whose methods call Get on one of the type's own fields and that have an Enqueue/Add-like method:
   * read from the facts alone, before points-to (their internals must be known as such before queues are looked for).
   */
  protected findWrapperTypes(): void {
    for (const call of this.facts.calls) {
      if (!GET_METHODS.has(call.method)) continue;
      const owner = this.methodOwner(call.fn);
      const t = owner ? this.types.get(owner) : undefined;
      const field = /^\w+\.(\w+)\.\w+$/.exec(call.text)?.[1];
      if (!t || !field || !this.wrapsField(t, field, call) || this.fns.get(call.fn)?.library) continue;
      const known = this.wrapperTypes.get(t.key);
      if (known) known.gets.push(call);
      else this.wrapperTypes.set(t.key, { type: t, field, gets: [call] });
    }
  }

  /**
   * With types: the checker found the type holding a queue in that field and the handler a parameter sets, whatever
   * its name. Without: a type named ...Queue with an Enqueue/Add-like method, or one whose getter calls a function
   * field that a constructor sets from its parameter (any other type holding a queue and its sync function is a
   * controller).
   */
  private wrapsField(t: TypeFact, field: string, get: CallFact): boolean {
    if (!(t.fields ?? []).includes(field) || this.queueTypes.has(t.key)) return false;
    if (this.goTypes) return this.goTypes.wrappers.get(t.key)?.queueField === field;
    if (/queue$/i.test(t.name) && t.methods.some((m) => WRAPPER_ADD.test(m))) return true;
    const called = (this.callsByFn.get(get.fn) ?? []).map((c) => /^\w+\.(\w+)$/.exec(c.text)?.[1]);
    return called.some((h) => h !== undefined && h !== field && this.setFromParameter(t.key, h));
  }

  /** A free function builds the type with that field set from one of its parameters (`&T{sync: sync}`). */
  private setFromParameter(typeKey: string, field: string): boolean {
    for (const ctor of this.paramIndexes().makersOf.get(typeKey) ?? [])
      if (!this.fns.get(ctor)?.owner && this.fieldsFromParams(ctor).has(field)) return true;
    return false;
  }

  /**
   * Read once from the constraints: the functions making a value of each type, and the fields each function's stores
   * set from its own parameters (field → parameter index).
   */
  private paramIndex: { makersOf: Map<string, Set<string>>; fromParams: Map<string, Map<string, number>> } | undefined;
  private paramIndexes(): NonNullable<typeof this.paramIndex> {
    if (this.paramIndex) return this.paramIndex;
    const makersOf = new Map<string, Set<string>>();
    const fromParams = new Map<string, Map<string, number>>();
    for (const k of this.facts.constraints) {
      if (k.c === "alloc" && k.v[0] === "o") {
        const maker = /^(.*)[~$][^~$]*$/.exec(k.dst)?.[1];
        if (!maker) continue;
        const makers = makersOf.get(k.v.slice(2)) ?? new Set<string>();
        makersOf.set(k.v.slice(2), makers.add(maker));
      } else if (k.c === "store") {
        const fn = /^(.*)[~$][^~$]*$/.exec(k.base)?.[1];
        const index = fn && k.src.startsWith(`${fn}#p`) ? Number(k.src.slice(fn.length + 2)) : NaN;
        if (!fn || !Number.isInteger(index)) continue;
        const fields = fromParams.get(fn) ?? new Map<string, number>();
        fromParams.set(fn, fields.set(k.field, index));
      }
    }
    return (this.paramIndex = { makersOf, fromParams });
  }

  /** Free functions that build a wrapper (a composite literal of the type in their own body): its constructors. */
  private wrapperBuilders: Set<string> | undefined;
  protected isWrapperConstructor(f: FnFact): boolean {
    if (f.owner || this.wrapperTypes.size === 0) return false;
    if (!this.wrapperBuilders) {
      // One pass over the constraints: the function whose temporary or local receives a wrapper value.
      this.wrapperBuilders = new Set();
      const queueFields = new Set([...this.wrapperTypes.values()].map((w) => w.field));
      for (const k of this.facts.constraints)
        if (k.c === "alloc" && this.wrapperTypes.has(keyOf(k.v, "o") ?? "")) {
          const owner = /^(.*)[~$][^~$]*$/.exec(k.dst)?.[1];
          if (owner) this.wrapperBuilders.add(owner);
        } else if (k.c === "store" && queueFields.has(k.field) && this.isQueueOption(k.base)) {
          this.wrapperBuilders.add(PARAM.exec(k.base)![1]!);
        }
    }
    return this.wrapperBuilders.has(f.id);
  }

  /**
   * A functional option making the wrapped queue (`func(q *Queue) { q.queue = workqueue.New…(r) }`, returned by
   * WithRateLimiter and applied in the constructor's `for _, o := range opts { o(&q) }`): a func literal of a free
   * function, with one parameter, storing into that parameter's queue field. Its queue is the wrapper's, no controller.
   */
  private isQueueOption(base: Slot): boolean {
    const m = PARAM.exec(base);
    const f = m && m[2] === "0" ? this.fns.get(m[1]!) : undefined;
    const parent = f?.parent ? this.fns.get(f.parent) : undefined;
    return !!f && f.params === 1 && f.name === "func literal" && !!parent && !parent.owner && !parent.parent;
  }

  /**
   * The functions a site's options stand for: an option closure (`WithReconciler(c.reconcile)` returning
   * `func(q *Queue) { q.workFn = func(k any) error { return f(k.(NamespacedName)) } }`) stores a literal that only calls
   * the option's parameter; at this site that literal is what was passed to the option here. Literal → those functions.
   */
  private optionFunctions(site: CallFact): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const arg of site.args) {
      const option = this.callFactsByRet().get(arg);
      if (!option) continue;
      for (const closure of this.fnsAt(arg)) {
        const maker = this.fns.get(closure)?.parent;
        if (!maker || !this.fnsAt(option.callee).includes(maker)) continue;
        for (const f of this.fns.values()) {
          if (!f.parent || !this.isWithin(f.id, closure) || f.id === closure) continue;
          const calls = this.callsIn([f.id]);
          const param = calls.length === 1 ? PARAM.exec(calls[0]!.callee) : null;
          if (!param || param[1] !== maker) continue;
          const passed = this.fnsAt(option.args[Number(param[2])]);
          if (passed.length) out.set(f.id, passed);
        }
      }
    }
    return out;
  }

  /** The wrapper constructors a call of callee may run. */
  private wrapperConstructorsAt(callee: Slot): string[] {
    return this.fnsAt(callee).filter((id) => this.isWrapperConstructor(this.fns.get(id)!));
  }

  /**
   * The wrapper type a call constructs (a call of a free function returning a wrapper it or its callees made), if any.
   * A method that returns what another call built (a builder's `Complete()` returning `NewController(...)`) hands a
   * wrapper on: not a site. A free function delegating to another constructor (`NewQueue(h)` calling
   * `NewQueueWithLimiter(h, l)`) is one: each of its calls is a queue of its own.
   */
  protected wrapperBuiltBy(call: CallFact): WrapperType | undefined {
    for (const fn of this.fnsAt(call.callee).filter((id) => !this.fns.get(id)!.owner))
      for (const t of keysOf(this.pts.valuesOf(`${fn}#ret`), "o")) {
        const w = this.wrapperTypes.get(t);
        if (w) return w;
      }
    return undefined;
  }

  /**
   * The object a wrapper constructor's call builds, keyed by that call (`o|<type>@<call id>`), so two controllers built
   * through one shared helper keep their fields apart: a field the constructor sets from a parameter holds what this
   * call passed, the queue field holds this site's queue, and the rest (methods too) what the type's own slot holds.
   */
  protected siteObject(call: CallFact, w: WrapperType): Constraint[] {
    const obj = `${w.type.key}@${call.id}`;
    const out: Constraint[] = [{ c: "alloc", dst: call.ret, v: `o|${obj}` }];
    const fromParam = new Map<string, number>();
    for (const ctor of this.wrapperConstructorsAt(call.callee))
      for (const [field, index] of this.fieldsFromParams(ctor)) fromParam.set(field, index);
    for (const name of new Set([...(w.type.fields ?? []), ...w.type.methods])) {
      const slot: Slot = `${obj}.${name}`;
      const arg = call.args[fromParam.get(name) ?? -1];
      if (name === w.field && !arg) out.push({ c: "alloc", dst: slot, v: `q|${call.id}` });
      else if (arg) out.push({ c: "copy", dst: slot, src: arg });
      else out.push({ c: "copy", dst: slot, src: `${w.type.key}.${name}` });
    }
    return out;
  }

  /** Fields a constructor's composite literal sets from its parameters (`sync: sync`): field → parameter index. */
  protected fieldsFromParams(ctor: string): Map<string, number> {
    return this.paramIndexes().fromParams.get(ctor) ?? new Map<string, number>();
  }

  /** The wrapper's workers for one construction site: the processing function is the handler passed there. */
  protected wrapperWorkers(siteId: string, producersByQueue?: Map<string, CallFact[]>): Worker[] {
    const w = this.wrapperSites.get(siteId);
    const site = this.queueCalls.get(siteId);
    if (!w || !site) return [];
    const passed = new Set(site.args.flatMap((a) => this.fnsAt(a)));
    return this.workersWith(w, passed, siteId, producersByQueue, this.optionFunctions(site));
  }

  /**
   * Workers of wrappers given this queue by their constructor's parameter (`NewController(name, sync, queue)`): at
   * each such site, read once per object of the type whose method it is in (a builder's Complete, per builder), the
   * queue passed there and, as the processing function, the handler passed with it.
   */
  protected givenQueueWorkers(queueId: string, producersByQueue?: Map<string, CallFact[]>): Worker[] {
    const out: Worker[] = [];
    for (const [siteId, { wrapper, param }] of this.givenQueueSites) {
      const site = this.calls.get(siteId)!;
      for (const receivers of this.contextsOf(site.fn)) {
        if (!keysOf(this.precise(site.args[param], receivers), "q").includes(queueId)) continue;
        const passed = new Set(site.args.flatMap((a) => keysOf(this.precise(a, receivers), "f")));
        appendAll(out, this.workersWith(wrapper, passed, queueId, producersByQueue));
      }
    }
    return out;
  }

  /**
   * A wrapper site given its queue by its constructor's parameter (`NewController(name, sync, queue)`) is no queue of
   * its own: recorded for the given queue's workers. False for a site whose constructor makes the queue.
   */
  protected givenQueue(call: CallFact, w: WrapperType): boolean {
    for (const ctor of this.wrapperConstructorsAt(call.callee)) {
      const param = this.fieldsFromParams(ctor).get(w.field);
      if (param === undefined || !call.args[param]) continue;
      this.givenQueueSites.set(call.id, { wrapper: w, param });
      return true;
    }
    return false;
  }

  /** The receivers a function runs with: each object of its method's type when it has several, else one run. */
  private contextsOf(fnId: string): (Receivers | undefined)[] {
    const type = this.methodOwner(fnId);
    const objects = type ? this.objectsOf(type) : [];
    return objects.length >= 2 ? objects.map((o) => new Map([[type!, [o]]])) : [undefined];
  }

  private workersWith(
    w: WrapperType,
    passed: Set<string>,
    queueId: string,
    producersByQueue?: Map<string, CallFact[]>,
    options?: Map<string, string[]>,
  ): Worker[] {
    const onField = (c: CallFact) => new RegExp(`\\.${w.field}\\.\\w+$`).test(c.text);
    return w.gets.map((get) => {
      const getter = get.fn;
      const loop = this.loopOf(get, () => this.wrapperCallers(w, getter));
      const region = this.region(getter);
      const regionCalls = this.callsIn(region);
      const called = this.processingIn(region, this.notReporting(regionCalls), (a) => a.rhsCall === get.id, get.id);
      // (A function an option stored: what this site passed to that option.)
      const found = [...new Set(called.flatMap((id) => options?.get(id) ?? [id]))];
      // The handler field holds every site's handler: this site's is the one passed to its constructor.
      const fromOptions = new Set(called.flatMap((id) => options?.get(id) ?? []));
      const mine = found.filter((id) => passed.has(id) || fromOptions.has(id));
      const [process, ...alternatives] = mine.length ? mine : found;
      const ops = regionCalls.filter(onField);
      const requeues = ops.filter((c) => ADD_METHODS.has(c.method));
      const worker = this.workerOf(get, loop, process, alternatives, ops, requeues);
      // The handler putting keys back through the wrapper (c.queue.EnqueueAfter) or on another controller's queue.
      if (producersByQueue) this.addReachedEdges(worker, queueId, producersByQueue, [], [process, ...alternatives]);
      return worker;
    });
  }

  /**
   * The calls less those whose result is only handed to a logger's or a metric's call (`formatKey(key)` in
   * `q.log.Debugf("handling %v", formatKey(key))`): they report on the item, they do no work.
   */
  private notReporting(calls: CallFact[]): CallFact[] {
    const reporting = (c: CallFact) => {
      const targets = this.callees(c);
      // (a call to code not read is judged by its name alone)
      return this.isHelper({ call: c, targets: targets.length ? targets : [""] });
    };
    const fedToReports = new Set(calls.filter(reporting).flatMap((c) => c.args));
    return calls.filter((c) => !fedToReports.has(c.ret));
  }

  /** Calls of a wrapper method from the wrapper's own methods (internal code, which callersOf leaves out). */
  private wrapperCallers(w: WrapperType, fnId: string): CallFact[] {
    const out: CallFact[] = [];
    for (const f of this.fns.values())
      if (f.owner === w.type.key)
        for (const c of this.callsIn(this.region(f.id))) if (this.fnsAt(c.callee).includes(fnId)) out.push(c);
    return out;
  }

  /** What the queue is, in the report: the wrapper type and the workqueue it wraps. */
  protected wrapperDescription(siteId: string): { type: string; rateLimiter: string } | undefined {
    const w = this.wrapperSites.get(siteId);
    const site = this.queueCalls.get(siteId);
    if (!w || !site) return undefined;
    const ctor = this.wrapperConstructorsAt(site.callee)[0];
    const inner = ctor
      ? this.callsIn(this.region(ctor)).find((c) => c.qualifier?.endsWith("/util/workqueue") && /Queue/.test(c.method))
      : undefined;
    const params = ctor ? this.fns.get(ctor)!.paramNames : [];
    // The limiter is a constructor parameter: what this site passes for it.
    const limiterParam = params.findIndex((p) => /limiter/i.test(p));
    const passed = limiterParam >= 0 ? site.argTexts[limiterParam] : undefined;
    const innerLimiter = inner ? this.rateLimiter(inner, false) : "none";
    return {
      type: `${w.type.name} (wraps ${inner ? `workqueue.${inner.method}` : "a workqueue"})`,
      rateLimiter: passed ?? innerLimiter,
    };
  }

  protected abstract rateLimiter(ctor: CallFact, own: boolean): string;
}
