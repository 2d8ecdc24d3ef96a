// TypeScript operator libraries: task queues that run a worker function themselves (`async.queue(worker)`,
// `fastq(worker)`, p-queue's `queue.add(task)`), raw watches whose callback is the handler (client-node's
// `watch.watch(path, query, callback)`, kubernetes-fluent-client's `K8s(Kind).Watch(callback)`), and Pepr's bindings
// (`When(Kind).IsCreatedOrUpdated().Reconcile(callback)`), whose watch and queue live in Pepr.
import { type BindingFact, type CallFact, keysOf } from "../facts.js";
import { at, locOrder } from "../loc.js";
import type { Controller, Place, Worker } from "../model.js";
import { ControllerForLinker } from "./controller-for.js";
import type { Registration } from "./registrations.js";
import type { Candidate, Candidates } from "./workers.js";
import { CLIENT_NODE_EVENTS } from "./vocabulary.js";

/** A queue library that runs the work itself: how the report names it and which argument is the worker function. */
export interface TaskQueue {
  type: string;
  /** The constructor's argument holding the worker; none for p-queue, whose tasks are the functions added. */
  workerArg?: number;
}

export abstract class TsOperatorLinker extends ControllerForLinker {
  /** async.queue / fastq / p-queue constructors: their keys are taken by the library, which calls the worker. */
  protected taskQueue(call: CallFact): TaskQueue | undefined {
    const from = call.qualifier ?? "";
    if (/^async(-es)?(\/queue|\/priorityQueue)?$/.test(from) && /^(queue|priorityQueue)$/.test(call.method))
      return { type: `async.${call.method}`, workerArg: 0 };
    // fastq(worker, n), fastq(context, worker, n), fastq.promise(...) likewise.
    if (from === "fastq" && !call.method.startsWith("new "))
      return { type: call.method === "promise" ? "fastq.promise" : "fastq", workerArg: call.args.length >= 3 ? 1 : 0 };
    if (from === "p-queue" && call.method.startsWith("new ")) return { type: "p-queue" };
    return undefined;
  }

  private registrationMemo: Registration[] | undefined;
  /** The base's registrations and the raw watches' callbacks; computed once (finding them notes what is unlinked). */
  protected override registrations(): Registration[] {
    this.registrationMemo ??= this.typedRegistrations([...super.registrations(), ...this.watchCallbacks()]);
    return this.registrationMemo;
  }

  /**
   * Handlers added to an informer known only by its declared type (`pods: Informer<V1Pod>`, made where explore cannot
   * see): the kind its type argument names, the source where that value is declared. A kind the informer's creation
   * left unknown (`?`) is told by the type too.
   */
  private typedRegistrations(found: Registration[]): Registration[] {
    const out = [...found];
    for (const call of this.facts.calls) {
      const typed = call.typedInformer;
      if (!typed || !call.recv || this.isInternal(call.fn)) continue;
      const here = out.filter((r) => r.registeredAt && at(r.registeredAt) === at(call.loc));
      if (keysOf(this.pts.valuesOf(call.recv), "i").length) {
        for (const r of here) if (r.kind === "?" && !typed.kind.startsWith("(")) r.kind = typed.kind;
        continue;
      }
      const registration = { kind: typed.kind, via: typed.via, loc: typed.loc, registeredAt: call.loc };
      if (call.method === "on") {
        const event = CLIENT_NODE_EVENTS[call.strings[0] ?? ""];
        const fns = event ? this.fnsAt(call.args[1]) : [];
        if (fns.length) out.push({ ...registration, handlers: fns.map((fn) => ({ fn, events: [event!] })) });
        continue;
      }
      // addEventHandler on an informer of no known creation: the base reported it with kind `?`.
      for (const r of here) Object.assign(r, registration);
      if (here.length) this.dropUnlinked(`${call.text} at ${at(call.loc)}: could not tell which informer`);
    }
    return out;
  }

  /** `watch.watch(path, query, callback, done)` and `K8s(Kind).Watch(callback)`: the callback is the handler. */
  private watchCallbacks(): Registration[] {
    const out: Registration[] = [];
    for (const call of this.informerCalls.values()) {
      const via = call.informer!.via;
      const callback = via === "Watch.watch" ? call.args[2] : via === "K8s().Watch" ? call.args[0] : undefined;
      if (callback === undefined) continue;
      const fns = this.fnsAt(callback);
      if (fns.length === 0) {
        this.unlinked.push(`${call.text} at ${at(call.loc)}: its callback is not in the explored sources`);
        continue;
      }
      out.push({
        kind: call.informer!.kind,
        via,
        loc: call.loc,
        handlers: fns.map((fn) => ({ fn, events: ["watch"] })),
      });
    }
    return out;
  }

  /**
   * A TypeScript worker's calls whose result it tests (`if (!this.shard.begin(key))`) answer a question about the item:
   * the work is among the others.
   */
  protected override doesTheWork(region: string[], found: Candidates): Candidate | undefined {
    if (this.fns.get(region[0] ?? "")?.lang !== "ts") return super.doesTheWork(region, found);
    const answers = found.candidates.filter((c) => !c.call.condition);
    return super.doesTheWork(region, answers.length ? { ...found, candidates: answers } : found);
  }

  /** The base's controllers, with each task queue's worker being the function the library runs. */
  protected override queueControllers(): Controller[] {
    // Each controller's queue constructor, by where the queue is made (the call the base linked it from).
    const ctors = new Map<string, CallFact>();
    for (const q of this.queueCalls.values()) if (!ctors.has(at(q.loc))) ctors.set(at(q.loc), q); // the first made there
    const ctorOf = (c: Controller) => ctors.get(at(c.queue.loc));
    const controllers = this.withoutUnfedOwnQueues(super.queueControllers(), ctorOf).map((c) =>
      this.libraryQueueNamed(c, ctorOf(c)),
    );
    const tasks = new Map<string, { call: CallFact; queue: TaskQueue }>();
    for (const call of this.queueCalls.values()) {
      const queue = this.taskQueue(call);
      if (queue) tasks.set(at(call.loc), { call, queue });
    }
    if (tasks.size === 0) return controllers;
    return controllers.map((c) => {
      const task = tasks.get(at(c.queue.loc));
      if (!task) return c;
      const { call, queue } = task;
      // No Get: the library's own loop takes the items, so the base's "no worker" note does not apply.
      this.dropUnlinked(`created at ${at(call.loc)}: no worker found`);
      const worker = this.taskWorker(call, queue);
      for (const r of worker.requeues) this.dropUnlinked(`at ${at(r.loc)}: not reached from any event handler`);
      return { ...c, queue: { ...c.queue, type: queue.type, rateLimiter: "none" }, workers: [worker] };
    });
  }

  /**
   * A TypeScript class of the tree that is a queue by its shape (add and get(), or wrapping a library queue) but that
   * no informer or watch feeds is not a controller: a print queue or a job list is no Kubernetes flow.
   */
  private withoutUnfedOwnQueues(
    controllers: Controller[],
    ctorOf: (c: Controller) => CallFact | undefined,
  ): Controller[] {
    return controllers.filter((c) => {
      const ctor = ctorOf(c);
      if (c.sources.length || !ctor?.typedQueue?.startsWith("new ")) return true;
      this.dropUnlinked(`created at ${at(ctor.loc)}:`);
      for (const call of this.facts.calls)
        if (call.recv && this.queuesAt(call.recv).includes(ctor.id))
          this.dropUnlinked(` at ${at(call.loc)}: not reached`);
      return false;
    });
  }

  /** A library queue's factory imported under another name (`makeWork`) is described by the library's name for it. */
  private libraryQueueNamed(c: Controller, ctor: CallFact | undefined): Controller {
    const library = /^(\w+) \(/.exec(ctor?.typedQueue ?? "")?.[1];
    if (!ctor || !library || library === ctor.method) return c;
    const limited = c.queue.rateLimiter === "none" && /RateLimiting/.test(library);
    return { ...c, queue: { ...c.queue, type: library, ...(limited ? { rateLimiter: "default" } : {}) } };
  }

  /** The function each item is handed to: the worker given at construction (p-queue: the tasks added). */
  private taskWorker(ctor: CallFact, queue: TaskQueue): Worker {
    const adds = this.facts.calls.filter(
      (c) =>
        c.recv &&
        !this.isInternal(c.fn) &&
        this.queuesAt(c.recv).includes(ctor.id) &&
        /^(add|push|unshift)/.test(c.method),
    );
    const given =
      queue.workerArg !== undefined
        ? this.fnsAt(ctor.args[queue.workerArg])
        : adds.flatMap((c) => this.fnsAt(c.args[0]));
    const processes = [...new Set(given.map((fn) => this.handedTo(fn)))].sort((a, b) =>
      locOrder(this.fns.get(a)!.loc, this.fns.get(b)!.loc),
    );
    // An add made while the worker runs (a retry) is a requeue.
    const working = new Set([...given, ...processes].flatMap((fn) => [...this.reach(fn).keys()]));
    const [process, ...also] = processes;
    return {
      loop: { name: `${queue.type} worker (in the library)` },
      ...(process ? { process: this.place(process) } : {}),
      ...(also.length ? { processAlso: also.map((fn) => this.place(fn)) } : {}),
      then: [],
      done: [],
      forget: [],
      requeues: adds.filter((c) => working.has(c.fn)).map((c) => ({ method: c.method, loc: c.loc })),
    };
  }

  /** A lambda that only hands its item on (`async (key) => sync(kc, key)`) stands for the function it calls. */
  private handedTo(fn: string): string {
    const f = this.fns.get(fn)!;
    if (!isLambda(f.name)) return fn;
    // Only a lambda whose one call is its tail (returned or awaited as the statement) hands over; one that does the
    // work itself, calling helpers or libraries on the way, is the processing function.
    const region = this.region(fn);
    const calls = this.callsIn(region).filter((c) => !/^(bind|then|catch|finally)$/.test(c.method));
    const known = calls.filter((c) => this.callees(c).some((id) => !region.includes(id)));
    const [only] = known;
    if (calls.length !== 1 || known.length !== 1 || !only!.tail) return fn;
    const targets = this.callees(only!).filter((id) => !region.includes(id));
    return targets.length === 1 ? targets[0]! : fn;
  }

  private dropUnlinked(fragment: string): void {
    for (let i = this.unlinked.length - 1; i >= 0; i--)
      if (this.unlinked[i]!.includes(fragment)) this.unlinked.splice(i, 1);
  }

  /** Pepr's bindings, one controller each: the watch (and for Reconcile the queue) are Pepr's, the callback is ours. */
  protected bindingControllers(): Controller[] {
    return this.facts.bindings.filter((b) => !this.isInternal(b.fn)).map((b) => this.bindingController(b));
  }

  private bindingController(b: BindingFact): Controller {
    const callbacks = this.fnsAt(b.callback);
    if (callbacks.length === 0)
      this.unlinked.push(
        `${b.framework} ${b.text}.${b.action} at ${at(b.loc)}: its callback is not in the explored sources`,
      );
    const processes = [...new Set(callbacks.map((fn) => this.handedTo(fn)))];
    const admission = b.action === "Mutate" || b.action === "Validate";
    const [process, ...also] = processes;
    const handler: Place = {
      name: admission ? `${b.framework} admission webhook (library)` : `${b.framework} watch (library)`,
    };
    return {
      name: `${b.action} ${b.kind} (${b.framework})`,
      loc: b.loc,
      queue: {
        type: bindingQueue(b),
        rateLimiter: "none",
        loc: b.loc,
      },
      sources: [
        { kind: b.kind, via: b.text, loc: b.watchLoc, handlers: [{ events: b.events, fn: handler, producers: [] }] },
      ],
      workers: [
        {
          loop: { name: `${b.framework} ${b.action} (in the library)` },
          ...(process ? { process: this.place(process) } : {}),
          ...(also.length ? { processAlso: also.map((fn) => this.place(fn)) } : {}),
          then: [],
          done: [],
          forget: [],
          requeues: [],
        },
      ],
    };
  }
}

/** What stands between a framework's watch and the callback: its queue, its webhook, or nothing. */
function bindingQueue(b: BindingFact): string {
  const byAction: Record<string, string> = {
    Reconcile: `${b.framework}'s reconcile queue (in the library)`,
    watchResource: `${b.framework}'s event queue (async.queue in the library: one event at a time)`,
    Mutate: `none: the API server calls ${b.framework}'s admission webhook`,
    Validate: `none: the API server calls ${b.framework}'s admission webhook`,
    Finalize: `none: ${b.framework} calls the callback when the object is being deleted (its finalizer)`,
  };
  return byAction[b.action] ?? `none: ${b.framework} calls the callback for each event`;
}

function isLambda(name: string): boolean {
  return name === "arrow function" || name.endsWith(" (arrow)") || name.startsWith("arrow function in");
}
