// Worker loops: what takes keys from a queue, the function each key is handed to, Done/Forget/requeues, and later
// hand-overs.
import { type CallFact, type FnFact, type Slot, keysOf } from "../facts.js";
import { at, locOrder } from "../loc.js";
import type { Place, Worker } from "../model.js";
import { fieldSlot } from "../points-to.js";
import type { Receivers } from "./instances.js";
import { HelperWorkerLinker } from "./helper-workers.js";
import { DONE_METHODS, FORGET_METHODS } from "./vocabulary.js";

export abstract class WorkerLinker extends HelperWorkerLinker {
  /** The queues a producer adds to; through a handler factory's parameter, the one passed at that factory call. */
  protected producerQueues(
    p: CallFact,
    factoryCall: CallFact | undefined,
    receivers?: Receivers,
    along?: () => Receivers | undefined,
  ): string[] {
    if (factoryCall && p.recvParam && this.callees(factoryCall).includes(p.recvParam.fn)) {
      const arg = factoryCall.args[p.recvParam.index];
      let slots: Slot[] = arg ? [arg] : [];
      for (const field of p.recvParam.path)
        slots = slots.flatMap((s) =>
          [...this.pts.valuesOf(s)].map((v) => fieldSlot(v, field)).filter((x): x is Slot => !!x),
        );
      // (A queue made per object, passed as `c.queue` from a method of its type: each object's own.)
      const queues = [...new Set(slots.flatMap((s) => this.queuesAt(s)))];
      return this.perCallOnly(arg, queues, factoryCall.fn, along);
    }
    return this.perCallOnly(p.recv, this.queuesOf(p.recv, receivers), p.fn, along);
  }

  /** The loop a Get runs in: the getter itself, or a caller of it in a loop; said under "Not linked" when none. */
  protected loopOf(get: CallFact, callersOfGetter: () => CallFact[], queueId?: string): string | undefined {
    const loop = get.inLoop
      ? get.fn
      : (callersOfGetter().find((c) => c.inLoop)?.fn ?? this.loopAboveHelper(get, queueId));
    if (!loop)
      this.unlinked.push(
        `${get.text} at ${at(get.loc)}: ${this.place(get.fn).name} is not called from a loop in the explored sources`,
      );
    return loop;
  }

  /**
   * The report of one worker: its loop and Get, the processing function (`alternatives` may run instead), the
   * Done/Forget among `ops`, and the `requeues` (producers on its own queue).
   */
  protected workerOf(
    get: CallFact,
    loop: string | undefined,
    process: string | undefined,
    alternatives: string[],
    ops: CallFact[],
    requeues: CallFact[],
    alsoCalled: string[] = [],
  ): Worker {
    return {
      loop: this.place(loop ?? get.fn),
      getter: loop && loop !== get.fn ? this.place(get.fn) : undefined,
      get: get.loc,
      getText: get.text,
      process: process ? this.place(process) : undefined,
      ...(alternatives.length ? { processAlso: alternatives.map((id) => this.place(id)) } : {}),
      ...(alsoCalled.length ? { alsoCalled: alsoCalled.map((id) => this.place(id)) } : {}),
      then: process ? this.delegations(process, 0) : [],
      done: ops.filter((c) => DONE_METHODS.has(c.method)).map((c) => c.loc),
      forget: ops.filter((c) => FORGET_METHODS.has(c.method)).map((c) => c.loc),
      requeues: requeues.map((c) => ({ method: c.method, loc: c.loc })),
    };
  }

  protected worker(
    get: CallFact,
    producers: CallFact[],
    ops: CallFact[],
    queueId?: string,
    producersByQueue?: Map<string, CallFact[]>,
  ): Worker {
    const getter = get.fn;
    const loop = this.loopOf(get, () => this.callersOf(getter), queueId);
    const region = this.region(getter);
    const regionCalls = this.callsIn(region);
    // Direct helpers of the getter (a handleErr(err, key)) count for Done/Forget/requeues too.
    const helpers = regionCalls.flatMap((c) => this.callees(c)).filter((id) => !region.includes(id));
    const opRegion = new Set([...region, ...helpers]);
    const inRegion = (c: CallFact) => opRegion.has(c.fn);
    const handedOn = this.processing(get, region, regionCalls);
    // Nothing (or several calls) does the work on the item: the one call whose error decides the key's fate (the work,
    // done without the key: `err := n.run()`), else the function the loop calls, which took it, does it.
    const everyProcess =
      handedOn.length === 0 && loop && loop !== getter
        ? (this.workWithoutItem(region, regionCalls) ?? [getter])
        : handedOn;
    // A getter of a type several controllers are objects of: this queue's object, and the functions stored in it.
    const receivers = queueId
      ? this.withEmbedded(getter, this.receiversHolding(getter, get.recv, `q|${queueId}`))
      : undefined;
    const othersOnly = this.othersOnly(getter, receivers);
    const ownProcess = everyProcess.filter((id) => !othersOnly.has(id));
    const [process, ...alternatives] = this.inContextOf(
      get,
      queueId,
      ownProcess.length ? ownProcess : everyProcess,
    ).map((id) => this.throughDelegatingLiteral(id));
    // The other functions the getter hands the item to (predicates, key helpers, error handlers), for the report.
    const chosen = new Set([process, ...alternatives]);
    const alsoCalled = [
      ...new Set(
        this.processingCandidates(region, regionCalls, (a) => a.rhsCall === get.id, get.id)
          .candidates.filter((c) => !c.targets.some((id) => chosen.has(id) || this.reach(id, 3).has(process ?? "")))
          .filter((c) => !c.targets.every((id) => othersOnly.has(id)))
          .flatMap((c) => c.targets),
      ),
    ];
    const requeues = producers.filter((c) => inRegion(c) && (!process || !this.region(process).includes(c.fn)));
    const worker = this.workerOf(get, loop, process, alternatives, ops.filter(inRegion), requeues, alsoCalled);
    if (queueId && producersByQueue) {
      // What the worker reaches (its own code, its helpers, the processing function and what that calls), without
      // the functions passed to a shared helper by other controllers.
      const others = new Set(everyProcess.filter((id) => id !== process && !alternatives.includes(id)));
      const own = [...opRegion].filter((id) => !others.has(id) && !othersOnly.has(id));
      this.addReachedEdges(worker, queueId, producersByQueue, own, [process, ...alternatives], receivers);
    }
    return worker;
  }

  /**
   * Requeues onto the worker's own queue and cross-queue edges (keys put on another controller's queue), from what
   * the worker's own code and its processing functions reach.
   */
  protected addReachedEdges(
    worker: Worker,
    queueId: string,
    producersByQueue: Map<string, CallFact[]>,
    own: string[],
    processes: (string | undefined)[],
    receivers?: Receivers,
  ): void {
    const reached = new Set(own);
    for (const p of processes) if (p) for (const id of this.reach(p).keys()) reached.add(id);
    const enqueues: NonNullable<Worker["enqueues"]> = [];
    for (const [q, calls] of producersByQueue)
      for (const c of calls) {
        if (!reached.has(c.fn) || this.notTakenFrom(c, reached) || this.elsewhere(c, q, queueId, receivers)) continue;
        // A shared helper's queue parameter that holds this queue is this queue here (Run(name, queue, ...)).
        const sameParam =
          c.recvParam &&
          this.valuesAlong(c.recvParam.fn, c.recvParam.index, c.recvParam.path, []).includes(`q|${queueId}`);
        if (q !== queueId && !sameParam)
          enqueues.push({ method: c.method, text: c.text, loc: c.loc, queue: this.queueCalls.get(q)?.loc });
        else if (!worker.requeues.some((r) => at(r.loc) === at(c.loc)))
          worker.requeues.push({ method: c.method, loc: c.loc });
      }
    worker.requeues.sort((a, b) => locOrder(a.loc, b.loc));
    if (enqueues.length) worker.enqueues = enqueues.sort((a, b) => locOrder(a.loc, b.loc));
  }

  /** A method of this queue's object puts keys on another queue only if its object holds that queue. */
  private elsewhere(c: CallFact, q: string, queueId: string, receivers: Receivers | undefined): boolean {
    return q !== queueId && receivers !== undefined && !this.queuesOf(c.recv, receivers).includes(q);
  }

  /**
   * A call that uses a parameter every reaching call site passes as nil (requestAppRefresh(key, nil) reaching
   * `if after != nil { queue.AddAfter(key, *after) }`): that branch is not taken from there.
   */
  protected notTakenFrom(c: CallFact, reached: Set<string>): boolean {
    const f = this.fns.get(c.fn);
    if (!f) return false;
    const used = f.paramNames.flatMap((name, i) => (c.argIdents.includes(name) ? [i] : []));
    if (used.length === 0) return false;
    const sites = this.callersOf(c.fn).filter((s) => reached.has(s.fn));
    return sites.length > 0 && sites.every((s) => used.some((i) => s.nilArgs?.includes(i)));
  }

  /**
   * A Get inside a shared helper (Run(name, queue, workers, reconcile)): of the functions passed to the helper, only
   * those passed where this queue is.
   */
  protected inContextOf(get: CallFact, queueId: string | undefined, candidates: string[]): string[] {
    const helper = get.recvParam;
    if (!helper || !queueId || candidates.length < 2) return candidates;
    const chains = this.callChains(helper.fn).filter((chain) =>
      this.valuesAlong(helper.fn, helper.index, helper.path, chain).includes(`q|${queueId}`),
    );
    if (chains.length === 0) return candidates;
    const here = new Set(chains.flatMap((chain) => [...this.paramFnsIn(helper.fn, chain)]));
    const anywhere = this.paramFns(helper.fn);
    const mine = candidates.filter((id) => here.has(id) || !anywhere.has(id));
    return mine.length ? mine : candidates;
  }

  /**
   * A getter that hands the item to nobody but runs one function of the module, on its main path, whose error it keeps
   * (`err := n.run()`, then requeue or forget): that function does the work. Undefined when none or several do.
   */
  private workWithoutItem(region: string[], regionCalls: CallFact[]): string[] | undefined {
    const assigns = region.flatMap((id) => this.fns.get(id)!.assigns);
    const keepsError = (c: CallFact) =>
      assigns.some((a) => a.rhsCall === c.id && a.lhs.some((n) => ERROR_NAME.test(n)));
    const work = regionCalls
      .filter((c) => !c.conditional && !(c.recv && this.queuesAt(c.recv).length) && keepsError(c))
      .map((call) => ({ call, targets: this.callees(call).filter((id) => !region.includes(id)) }))
      .filter((c) => c.targets.length && !this.isHelper(c));
    return work.length === 1 ? work[0]!.targets : undefined;
  }

  /** The function the item from Get is handed to: the first call in the getter that passes it (or a name derived from it). */
  protected processing(get: CallFact, region: string[], regionCalls: CallFact[]): string[] {
    const found = this.processingIn(region, regionCalls, (a) => a.rhsCall === get.id, get.id);
    // Several functions behind one call (an interface or a field set by several controllers): all of them, as found.
    if (found.length !== 1) return found;
    const first = found[0]!;
    // A wrapper that itself marks the key Done/Forget or requeues it (handle(key)) is still queue plumbing: look
    // inside.
    let p = first;
    for (let depth = 0; depth < 2; depth++) {
      const inner = this.region(p);
      const innerCalls = this.callsIn(inner);
      if (!innerCalls.some((c) => c.recv && this.queuesAt(c.recv).length)) break;
      const params = new Set(this.fns.get(p)!.paramNames);
      const next = this.processingIn(inner, innerCalls, undefined, undefined, params);
      if (next.length === 0) break;
      if (next.length > 1) return next;
      p = next[0]!;
    }
    return [p];
  }

  protected processingIn(
    region: string[],
    regionCalls: CallFact[],
    seed: ((a: FnFact["assigns"][number]) => boolean) | undefined,
    skip: string | undefined,
    seedNames: Set<string> = new Set(),
  ): string[] {
    return (
      this.doesTheWork(region, this.processingCandidates(region, regionCalls, seed, skip, seedNames))?.targets ?? []
    );
  }

  /**
   * Of the calls the item is handed to, the one that does the work: not a predicate (needRefresh..., shouldProcess...),
   * a key helper whose results are passed on (toQualifiedName), an error handler, or a logging, tracing or metrics
   * helper, and one that runs on the function's main path. None when no call or several calls are left: the function
   * holding the calls does the work itself.
   */
  protected doesTheWork(region: string[], found: Candidates): Candidate | undefined {
    const { candidates, keyNames, itemNames } = found;
    const assigns = region.flatMap((id) => this.fns.get(id)!.assigns);
    const isKeyHelper = (c: Candidate, i: number) => {
      // (only a call handed the key itself: a call handed the object looked up by it, whose result is used, is work)
      if (!c.call.argIdents.some((id) => keyNames.has(id))) return false;
      // (an error passed on to an error handler or a predicate does not make the call that returned it a helper)
      const results = new Set(
        assigns.filter((a) => a.rhsCall === c.call.id).flatMap((a) => a.lhs.filter((n) => !ERROR_NAME.test(n))),
      );
      return candidates
        .slice(i + 1)
        .some((later) => !this.isHelper(later) && later.call.argIdents.some((id) => results.has(id)));
    };
    const work = candidates.filter((c, i) => !this.isHelper(c) && !isKeyHelper(c, i));
    // TypeScript keeps its rule (the first call that is no helper): its reader does not mark branches.
    if (this.fns.get(region[0] ?? "")?.lang !== "go") return work[0] ?? candidates[0];
    // (one call lowered twice, as a deref of a call is, is one call)
    const main = work.filter((c, i) => !c.call.conditional && work.findIndex((d) => d.call.id === c.call.id) === i);
    const [first, ...rest] = main;
    // A later call handed only what the first one returned (resultLabel(outcome)) reports on the work; it is no work.
    const results = this.resultsOf(first, assigns);
    return first && rest.every((c) => c.call.argIdents.every((id) => results.has(id) || !itemNames.has(id)))
      ? first
      : undefined;
  }

  /** The names holding what a call returned (written on its line), and the names made from them. */
  private resultsOf(c: Candidate | undefined, assigns: FnFact["assigns"]): Set<string> {
    const names = new Set<string>();
    if (!c) return names;
    for (const a of assigns)
      if (a.rhsCall === c.call.id || (!a.rhsCall && a.line === c.call.loc.line))
        for (const n of a.lhs) if (!ERROR_NAME.test(n)) names.add(n);
    return closeOver(names, assigns);
  }

  /** A call that answers a question about the item, reports on it or handles an error: never the work itself. */
  protected isHelper(c: Candidate): boolean {
    if (this.goTypes && c.targets.every((id) => this.goTypes!.helpers.has(id))) return true;
    const m = c.call.method;
    const receiver = c.call.text.slice(0, Math.max(0, c.call.text.length - m.length - 1));
    return (
      PREDICATE.test(m) ||
      ERROR_HANDLER.test(m) ||
      OBSERVER.test(m) ||
      KEY_HELPER.test(m) ||
      OBSERVER_HOLDER.test(receiver)
    );
  }

  /** Every call in the region that is handed the item (or a name derived from it), with the functions it may run. */
  protected processingCandidates(
    region: string[],
    regionCalls: CallFact[],
    seed: ((a: FnFact["assigns"][number]) => boolean) | undefined,
    skip: string | undefined,
    seedNames: Set<string> = new Set(),
  ): Candidates {
    const derived = new Set<string>(seedNames);
    const assigns = region.flatMap((id) => this.fns.get(id)!.assigns);
    if (seed) for (const a of assigns) if (seed(a)) for (const n of a.lhs) derived.add(n);
    this.seedInPlaceLiterals(region, regionCalls, derived);
    const keyNames = new Set(derived);
    const itemNames = closeOver(derived, assigns);
    const out: Candidate[] = [];
    for (const c of regionCalls) {
      if (c.id === skip || (c.recv && this.queuesAt(c.recv).length)) continue;
      if (!c.argIdents.some((i) => derived.has(i))) continue;
      const targets = this.callees(c).filter((id) => !region.includes(id));
      if (targets.length)
        out.push({ call: c, targets: targets.sort((a, b) => locOrder(this.fns.get(a)!.loc, this.fns.get(b)!.loc)) });
    }
    return { candidates: out, keyNames, itemNames };
  }

  /**
   * Where the processing function hands over to code chosen at run time in another file (crdgen's config.reconcile →
   * hooks.reconcile): calls through a field, parameter or variable whose result is returned or awaited. Lambdas are
   * followed through; a chain ends at the first named function, and chains that end in a lambda calling nothing known
   * (an optional hook the operator does not have) are dropped.
   */
  protected delegations(fnId: string, depth: number, receivers?: Receivers): Place[][] {
    if (depth > 5) return [];
    const file = this.fns.get(fnId)!.loc.file;
    const chains: Place[][] = [];
    const seen = new Set<string>();
    for (const c of this.callsIn(this.region(fnId))) {
      if (!c.dynamic || !c.tail) continue;
      for (const target of this.calleesOf(c, receivers)) {
        const t = this.fns.get(target)!;
        if ((depth === 0 && t.loc.file === file) || seen.has(target)) continue;
        if (t.owner && c.recv && this.pts.valuesOf(c.recv).has(`o|${t.owner}`) && !this.isFieldHolding(c)) continue;
        seen.add(target);
        const hop: Place = { name: `${c.text} → ${this.fnName(t)}`, loc: t.loc };
        if (!isLambda(t)) {
          chains.push([hop]);
          continue;
        }
        for (const f of this.delegations(target, depth + 1, receivers)) chains.push([hop, ...f]);
      }
    }
    return chains;
  }

  /** The functions a call may run; a method of one object of a shared type calls the function stored in that object. */
  private calleesOf(c: CallFact, receivers: Receivers | undefined): string[] {
    if (!receivers) return this.callees(c);
    const mine = new Set(keysOf(this.precise(c.callee, receivers), "f"));
    return this.callees(c).filter((id) => mine.has(id));
  }

  /** A call through a field that holds a function (`c.syncHandler(key)` with syncHandler set in the constructor). */
  protected storedFields: Set<string> | undefined;
  protected isFieldHolding(c: CallFact): boolean {
    this.storedFields ??= new Set(this.facts.constraints.flatMap((k) => (k.c === "store" ? [k.field] : [])));
    return this.storedFields.has(c.method);
  }
}

/** A call handed the queue item, and the functions it may run. */
export interface Candidate {
  call: CallFact;
  targets: string[];
}

/** The calls handed the item, in order, and the names the item is held in there. */
export interface Candidates {
  candidates: Candidate[];
  /** The names holding the item itself, as Get returned it. */
  keyNames: Set<string>;
  /** The names holding the item or a value made from it. */
  itemNames: Set<string>;
}

/** Functions that answer a question about the item (needRefreshStatus, shouldProcess, isDeleted): not the work. */
const PREDICATE = /^(need|needs|should|is|has|can|must|skip|want|allow)[A-Z_]/;
/** Functions that report or retry a failure (handleError, handleErr, logError, recordError). */
const ERROR_HANDLER = /^(handle|log|record|report)\w*Err(or)?s?$/i;
/** Logging, tracing and metrics helpers (logAppEvent, setAppTraceAttrs, GetAppLogFields, RecoverAndLog, observe...). */
const OBSERVER =
  /^(log|trace|span|metric|metrics|record|observe|emit|recover)([A-Z_]|$)|(Log|Trace|Span|Metric|Logging|Tracing)(s|Fields|Attrs|Attributes|Ctx)?([A-Z_]|$)/;
/** A logger, tracer, metrics or event recorder a method is called on (`this.metrics.reconciled`, `logCtx.Info`). */
const OBSERVER_HOLDER = /(^|\.)(log|logger|logCtx|metrics|tracer|span|recorder|eventRecorder)$/i;
/** Key helpers by name: splitting or naming a key (SplitMetaNamespaceKey, toAppQualifiedName, parseKey). */
const KEY_HELPER = /^(split|parse|to|get)\w*(Key|Name)$/i;
/** A variable holding an error (`err`, `syncErr`): what a call returns besides its results. */
const ERROR_NAME = /^(err|e)$|^err[A-Z]|Err(or)?$/;

/** A function literal or arrow function, not a named function. */
function isLambda(f: FnFact): boolean {
  return f.name === "func literal" || f.name === "arrow function" || f.name.endsWith(" (arrow)");
}

/** Adds to names every name assigned from one of them, until none is new (a loop, not recursion); returns names. */
function closeOver(names: Set<string>, assigns: FnFact["assigns"]): Set<string> {
  for (let changed = true; changed;) {
    changed = false;
    for (const a of assigns)
      if (a.rhsIdents.some((i) => names.has(i)))
        for (const n of a.lhs)
          if (!names.has(n)) {
            names.add(n);
            changed = true;
          }
  }
  return names;
}
