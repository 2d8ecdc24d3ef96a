// Controllers built around a queue: its producers from the handlers, its workers, its name, type and rate limiter.
import { type CallFact, type TypeFact, keyOf, keysOf } from "../facts.js";
import { at, locOrder } from "../loc.js";
import type { Controller, Handler, Producer, Source } from "../model.js";
import { push } from "./graph.js";
import type { Receivers } from "./instances.js";
import type { Registration } from "./registrations.js";
import { WRAPPER_ADD, WrapperQueueLinker } from "./wrapper-queues.js";
import { ADD_METHODS, GET_METHODS, OWN_ADD, OWN_GET } from "./vocabulary.js";

/** The kind of a source that is a listener's callback, not a watch. */
const LISTENER_KIND = "(callback)";

export abstract class QueueControllerLinker extends WrapperQueueLinker {
  protected queueControllers(): Controller[] {
    const producersByQueue = new Map<string, CallFact[]>();
    const consumersByQueue = new Map<string, CallFact[]>();
    const opsByQueue = new Map<string, CallFact[]>();
    for (const call of this.facts.calls) {
      if (!call.recv || this.isInternal(call.fn)) continue;
      const queues = this.queuesOfCall(call);
      if (queues.length === 0) continue;
      for (const q of queues) {
        const own = this.ownQueueType(q);
        const wrapper = this.wrapperSites.has(q);
        const isAdd = wrapper
          ? WRAPPER_ADD.test(call.method)
          : own
            ? OWN_ADD.test(call.method) || ADD_METHODS.has(call.method)
            : ADD_METHODS.has(call.method);
        const isGet = !wrapper && (own ? OWN_GET.test(call.method) : GET_METHODS.has(call.method));
        if (isAdd) push(producersByQueue, q, call);
        else if (isGet) push(consumersByQueue, q, call);
        else push(opsByQueue, q, call);
      }
    }
    const registrations = this.registrations();
    // Registration-driven: each handler's reachable producers, with the queue each one adds to *for this registration*
    // (a handler made by a helper such as enqueueRequestForObject(queue) adds to the queue passed at this call).
    const sourcesByQueue = new Map<string, Source[]>();
    /** The source of a registration on one of several informers, by queue and registering call. */
    const alternativesBy = new Map<string, Source>();
    const usedProducers = new Set<string>();
    const allProducers = [...new Set([...producersByQueue.values()].flat())];
    for (const reg of registrations) {
      const handlersByQueue = new Map<string, Handler[]>();
      const wrappers = this.wrappersOf(reg.handlers);
      for (const h of reg.handlers) {
        if (wrappers.wrapping.has(h.fn)) continue;
        const runs = this.runsFor(reg.kind);
        const reached = this.handlerReach(h.fn, reg) ?? this.reachOnce(h.fn, runs ? reg.kind : undefined);
        const reachedFns = new Set(reached.keys());
        const byQueue = new Map<string, Producer[]>();
        for (const p of allProducers) {
          const path = reached.get(p.fn);
          if (!path || this.notTakenFrom(p, reachedFns) || (runs && !runs(p))) continue;
          // (A queue made per call of a shared constructor: the one of the objects the handler's path runs methods of.)
          const along = () => this.receiversAlong(h.fn, path, objectsOf(reg));
          for (const q of this.producerQueues(p, this.factoryFor(p, reg), objectsOf(reg), along)) {
            if (!this.queueCalls.has(q)) continue;
            usedProducers.add(`${p.loc.file}:${p.loc.line}`);
            push(byQueue, q, { method: p.method, text: p.text, loc: p.loc, via: path.map((id) => this.place(id)) });
          }
        }
        for (const [q, found] of byQueue)
          push(handlersByQueue, q, {
            events: h.events,
            fn: this.place(h.fn),
            ...(wrappers.by.has(h.fn) ? { wrappedBy: wrappers.by.get(h.fn)!.map((id) => this.place(id)) } : {}),
            producers: found.sort((a, b) => locOrder(a.loc, b.loc)),
          });
      }
      for (const [q, handlers] of handlersByQueue) {
        const sources = sourcesByQueue.get(q) ?? [];
        const alternative = reg.alternativesAt && alternativesBy.get(`${q} ${reg.alternativesAt}`);
        if (alternative) {
          addAlternative(alternative, reg);
          continue;
        }
        // One informer with handlers added by several calls (client-node's on("add"), on("update"), ...) is one source.
        const same = sources.find((s) => s.kind === reg.kind && s.via === reg.via && at(s.loc) === at(reg.loc));
        if (same) {
          for (const h of handlers)
            if (!same.handlers.some((x) => at(x.fn.loc) === at(h.fn.loc))) same.handlers.push(h);
          continue;
        }
        const source: Source = { kind: reg.kind, via: reg.via, loc: reg.loc, registeredAt: reg.registeredAt, handlers };
        if (reg.alternativesAt) alternativesBy.set(`${q} ${reg.alternativesAt}`, source);
        push(sourcesByQueue, q, source);
      }
      if (handlersByQueue.size === 0) {
        for (const h of reg.handlers)
          this.unlinked.push(
            `handler ${this.place(h.fn).name} (${at(this.place(h.fn).loc)}) for ${reg.kind}: puts nothing on a queue found in the explored sources`,
          );
      }
    }
    const controllers: Controller[] = [];
    for (const [queueId, ctor] of this.queueCalls) {
      const producers = producersByQueue.get(queueId) ?? [];
      const consumers = consumersByQueue.get(queueId) ?? [];
      const workers = [
        ...consumers.map((get) =>
          this.worker(get, producers, opsByQueue.get(queueId) ?? [], queueId, producersByQueue),
        ),
        ...this.wrapperWorkers(queueId, producersByQueue),
        ...this.givenQueueWorkers(queueId, producersByQueue),
      ];
      for (const w of workers)
        for (const r of [...w.requeues, ...(w.enqueues ?? [])]) usedProducers.add(`${r.loc.file}:${r.loc.line}`);
      // The queue's own file first (the primary resource's wiring), then in source order.
      // (A queue made per call of a shared constructor: that call is where the controller is made.)
      const made = this.perCallQueues.get(queueId)?.site ?? ctor;
      const here = (s: Source) => ((s.registeredAt ?? s.loc)?.file === made.loc.file ? 0 : 1);
      const sources = (sourcesByQueue.get(queueId) ?? []).sort(
        (a, b) => here(a) - here(b) || locOrder(a.registeredAt ?? a.loc, b.registeredAt ?? b.loc),
      );
      const creator = this.fns.get(ctor.fn);
      const own = this.ownQueueType(queueId);
      const wrapped = this.wrapperDescription(queueId);
      // How the controller's own code refers to the queue (not a shared helper's parameter).
      const ref = [...consumers, ...producers].find((c) => !c.recvParam) ?? consumers[0] ?? producers[0];
      // Named after the type holding the queue in its file; a queue made in main() is named after whatever holds it.
      const holder =
        this.perCallHolder(queueId) ??
        this.holderType(queueId, ctor.loc.file, false) ??
        (creator?.name === "main" ? this.holderType(queueId, ctor.loc.file, true) : undefined);
      const controller: Controller = {
        name: holder ?? (creator && creator.name !== "module" ? this.fnName(creator) : ctor.loc.file),
        loc: made.loc,
        queue: {
          ...(this.queueName(ctor) ? { name: this.queueName(ctor)! } : {}),
          ...(ref ? { ref: ref.text.slice(0, Math.max(0, ref.text.length - ref.method.length - 1)) } : {}),
          type:
            wrapped?.type ??
            (own
              ? `${own.name} (own queue type${own.hasChannel ? " over a channel" : ""})`
              : ctor.qualifier?.endsWith("/util/workqueue")
                ? `workqueue.${ctor.method}`
                : ctor.method),
          rateLimiter: wrapped?.rateLimiter ?? this.rateLimiter(ctor, !!own),
          loc: ctor.loc,
        },
        sources,
        workers,
      };
      if (sources.length === 0)
        this.unlinked.push(`queue ${describeQueue(controller)}: no event handler found that adds to it`);
      if (workers.length === 0)
        this.unlinked.push(
          `queue ${describeQueue(controller)}: no worker found that takes keys from it (nothing calls Get on it in the explored sources)`,
        );
      controllers.push(controller);
    }
    for (const [, producers] of producersByQueue) {
      for (const p of producers) {
        const key = `${p.loc.file}:${p.loc.line}`;
        if (usedProducers.has(key)) continue;
        usedProducers.add(key);
        if (!this.addListenerSources(p, controllers))
          this.unlinked.push(`${p.text} at ${key}: not reached from any event handler or worker`);
      }
    }
    return controllers;
  }

  /**
   * A producer reached from a listener (a callback of an object passed to a subscribe-like call, not an informer's
   * handler): a source of its own on each queue it adds to, named after that call, the listener's property its event.
   * False when no listener reaches it.
   */
  private addListenerSources(p: CallFact, controllers: Controller[]): boolean {
    const listeners = this.listenersReaching(p.fn);
    let added = false;
    for (const q of this.producerQueues(p, undefined)) {
      const c = controllers.find((x) => at(x.queue.loc) === at(this.queueCalls.get(q)?.loc));
      if (!c) continue;
      for (const l of listeners) {
        const path = this.reachOnce(l.fn).get(p.fn) ?? [];
        const producer: Producer = {
          method: p.method,
          text: p.text,
          loc: p.loc,
          via: path.map((id) => this.place(id)),
        };
        let source = c.sources.find((s) => s.kind === LISTENER_KIND && at(s.loc) === at(l.call.loc));
        if (!source)
          c.sources.push((source = { kind: LISTENER_KIND, via: l.call.text, loc: l.call.loc, handlers: [] }));
        const fn = this.place(l.fn);
        const handler = source.handlers.find((h) => at(h.fn.loc) === at(fn.loc));
        if (handler) handler.producers.push(producer);
        else source.handlers.push({ events: [l.event], fn, producers: [producer] });
        added = true;
      }
    }
    return added;
  }

  /**
   * Handlers of one registration that call another of it for the same events (`mine(obj) ? handler.addFunc(obj) :
   * undefined`, registered as `sharded ? wrapper : handler`): the wrapped one is the flow, the wrappers are named with it.
   */
  protected wrappersOf(handlers: Registration["handlers"]): { wrapping: Set<string>; by: Map<string, string[]> } {
    const wrapping = new Set<string>();
    const by = new Map<string, string[]>();
    if (handlers.length < 2) return { wrapping, by };
    const reached = new Map(handlers.map((h) => [h.fn, this.reachOnce(h.fn)]));
    for (const w of handlers) {
      const inner = handlers.filter(
        (h) =>
          h.fn !== w.fn &&
          reached.get(w.fn)!.has(h.fn) &&
          !reached.get(h.fn)!.has(w.fn) &&
          h.events.every((e) => w.events.includes(e)),
      );
      if (inner.length === 0) continue;
      wrapping.add(w.fn);
      for (const h of inner) push(by, h.fn, w.fn);
    }
    return { wrapping, by };
  }

  /** What a handler or a listener reaches, computed once per function (wrappersOf, the producers, the listeners). */
  private readonly reachedFrom = new Map<string, Map<string, string[]>>();
  private reachOnce(fn: string, kind?: string): Map<string, string[]> {
    const key = kind ? `${fn} ${kind}` : fn;
    let reached = this.reachedFrom.get(key);
    if (!reached) this.reachedFrom.set(key, (reached = this.reach(fn, 8, kind ? this.runsFor(kind) : undefined)));
    return reached;
  }

  /** The type (declared in the queue's file) whose field holds the queue: the controller's own name for itself. */
  protected holders: Map<string, TypeFact[]> | undefined;
  protected holderType(queueId: string, file: string, anywhere: boolean): string | undefined {
    if (!this.holders) {
      // Built once: for each store of a queue into a field, the types whose field it is.
      this.holders = new Map();
      for (const k of this.facts.constraints) {
        if (k.c !== "store") continue;
        const queues = this.queuesAt(k.src);
        if (queues.length === 0) continue;
        for (const v of this.pts.valuesOf(k.base)) {
          const key = keyOf(v, "o");
          const t = key === undefined ? undefined : this.types.get(key);
          if (t) for (const q of queues) push(this.holders, q, t);
        }
      }
    }
    const holder = (this.holders.get(queueId) ?? []).find((t) => anywhere || t.loc.file === file);
    return holder && this.typeLabel(holder.key);
  }

  protected ownQueueType(queueId: string): TypeFact | undefined {
    const ctor = this.queueCalls.get(queueId);
    if (!ctor) return undefined;
    for (const fnId of this.fnsAt(ctor.callee)) {
      // The constructor's result: the own queue type whose value it returns, unless it may also return an object of
      // another type (a library-style constructor with an optional variant is described by its own name).
      const objects = keysOf(this.pts.valuesOf(`${fnId}#ret`), "o");
      const own = objects.filter((t) => this.queueTypes.has(t));
      if (own.length > 0 && own.length === objects.length) return this.queueTypes.get(own[0]!);
    }
    for (const t of keysOf(this.pts.valuesOf(ctor.callee), "c"))
      if (this.queueTypes.has(t)) return this.queueTypes.get(t);
    return undefined;
  }

  /** The name given to the queue's constructor as a string literal (a name held in a variable is not known here). */
  protected queueName(ctor: CallFact): string | undefined {
    const keyed = ctor.keyed["Name"] ?? ctor.keyed["name"];
    if (keyed !== undefined) return /^"(.*)"$/.exec(keyed)?.[1];
    return ctor.strings.at(-1);
  }

  protected override rateLimiter(ctor: CallFact, own: boolean): string {
    if (own) return "none";
    const keyed = ctor.keyed["RateLimiter"] ?? ctor.keyed["rateLimiter"];
    if (keyed) return keyed;
    if (/RateLimiting/i.test(ctor.method)) {
      const first = ctor.argTexts[0];
      if (ctor.qualifier?.endsWith("/util/workqueue") && first) return first;
      return "default";
    }
    return "none";
  }
}

/**
 * Another informer the source's registration may get: listed with it, the first in source order leading (a kind
 * the reader named wins over one known only at run time).
 */
function addAlternative(source: Source, reg: Registration): void {
  const all = [{ via: source.via, loc: source.loc }, ...(source.alternatives ?? []), { via: reg.via, loc: reg.loc }];
  all.sort((a, b) => locOrder(a.loc, b.loc));
  source.via = all[0]!.via;
  source.loc = all[0]!.loc;
  source.alternatives = all.slice(1);
  if (source.kind.startsWith("(") && !reg.kind.startsWith("(")) source.kind = reg.kind;
}

function describeQueue(c: Controller): string {
  return `${c.queue.name ? `"${c.queue.name}" ` : ""}created at ${at(c.queue.loc)}`;
}

/** What a registration's handlers read their receivers as: the registering method's objects and the handler's own. */
function objectsOf(reg: Registration): Receivers | undefined {
  if (!reg.handlerObjects) return reg.receivers;
  return new Map([...(reg.receivers ?? []), ...reg.handlerObjects]);
}
