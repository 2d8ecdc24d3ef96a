// What `crdgen explore` reports, for either language: per controller (one workqueue), the kinds it watches, the
// handlers
// that put keys on the queue, the calls that do it, and the workers that take keys off and process them.
import type { Loc } from "./facts.js";
import { at } from "./loc.js";

/** A function in the explored sources, or (no loc) one in a library such as controller-runtime. */
export interface Place {
  name: string;
  loc?: Loc;
}

export interface Producer {
  /** Add, AddAfter, AddRateLimited, add, ... */
  method: string;
  /** The call as written (`c.workqueue.Add`). */
  text: string;
  loc: Loc;
  /** Helper functions between the handler and this call, outermost first. */
  via: Place[];
}

export interface Handler {
  /** add, update, delete (client-go's AddFunc/UpdateFunc/DeleteFunc), watch (a raw Watch loop), map (controller-runtime Watches). */
  events: string[];
  fn: Place;
  /**
   * Handlers registered with this one that run first and call it (a shard's filter around it): one flow, shown once,
   * with these named.
   */
  wrappedBy?: Place[];
  /** Calls that put keys on this controller's queue, reached from the handler. Empty for controller-runtime's own handlers. */
  producers: Producer[];
}

export interface Source {
  /** The watched resource kind. */
  kind: string;
  /** How it is watched: `fooInformer.Informer()`, `cache.NewSharedIndexInformer`, `Watch`, `For`, `Owns`, ... */
  via: string;
  loc?: Loc;
  /** Where the handlers were registered (AddEventHandler), when that is not the informer's own line. */
  registeredAt?: Loc;
  /** Other informers the same registration may get, one chosen at run time (`sharded ? a : b`): the same watch. */
  alternatives?: { via: string; loc?: Loc }[];
  handlers: Handler[];
}

export interface Queue {
  /** The queue's name as given to its constructor, if any. */
  name?: string;
  /** How the code refers to it (`c.workqueue`). */
  ref?: string;
  /** Constructor or type (`workqueue.NewTypedRateLimitingQueueWithConfig`, `Queue (own type, channel)`). */
  type: string;
  rateLimiter: string;
  loc?: Loc;
}

export interface Worker {
  /** The function with the loop that keeps taking keys. */
  loop: Place;
  /** The function that calls Get (the loop itself, or the function the loop calls). */
  getter?: Place;
  get?: Loc;
  /** The Get call as written (`c.workqueue.Get`). */
  getText?: string;
  /** The function the key is handed to. */
  process?: Place;
  /** Further functions the same call may run (an interface or a field several controllers set): chosen at run time. */
  processAlso?: Place[];
  /** Other functions the worker hands the item to (predicates, key helpers, error handlers): not the work itself. */
  alsoCalled?: Place[];
  /** Where the processing function hands the object on to code chosen at run time (crdgen's hooks), outermost first. */
  then: Place[][];
  done: Loc[];
  forget: Loc[];
  requeues: { method: string; loc: Loc }[];
  /** Keys the worker puts on another controller's queue (cross-queue edges): the call, and the queue it adds to. */
  enqueues?: { method: string; text: string; loc: Loc; queue?: Loc }[];
}

export interface Controller {
  name: string;
  loc?: Loc;
  queue: Queue;
  sources: Source[];
  workers: Worker[];
}

export interface ExploreResult {
  /** The explored folders as given. */
  roots: string[];
  files: { go: number; ts: number };
  /** How Go was read when Go's type checker was asked for: with its types, or by syntax only and why. */
  goFrontEnd?: string;
  /** Source files found in languages explore does not read (`.java`, `.py`, ...), by extension, most first. */
  notRead?: { extension: string; files: number }[];
  controllers: Controller[];
  /** What was found but could not be linked into a flow, one sentence each. */
  unlinked: string[];
  /**
   * Files the parsers could only partly read (syntax errors, with the first error's line), and files and links skipped
   * (over the size cap, binary, nested too deeply, symbolic links), each with the reason.
   */
  warnings: string[];
  /** Set when the result was narrowed to one watched kind (`--kind`): that kind and how many kinds were found. */
  onlyKind?: { kind: string; kindsFound: number };
}

/** One flow per (watched kind, handler, worker): what precision and recall are counted on. */
export function flowKeys(result: ExploreResult): string[] {
  const keys: string[] = [];
  for (const c of result.controllers) {
    for (const s of c.sources) {
      for (const h of s.handlers) {
        for (const w of c.workers) {
          for (const p of [w.process, ...(w.processAlso ?? [])]) {
            keys.push(
              `${s.kind} | handler ${at(h.fn.loc)} | queue ${at(c.queue.loc)} | loop ${at(w.loop.loc)} | process ${at(p?.loc)}`,
            );
          }
        }
      }
    }
  }
  return [...new Set(keys)].sort();
}

/** "12 .java files and 3 .py files": what was found but not read. */
export function notReadSummary(notRead: { extension: string; files: number }[]): string {
  const parts = notRead.map((n) => `${n.files} ${n.extension} file${n.files === 1 ? "" : "s"}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)!}` : (parts[0] ?? "");
}

/** When no Go or TypeScript file was read but files of other languages were found: the sentence that says so. */
export function unsupportedLanguages(result: ExploreResult): string | undefined {
  if (result.files.go + result.files.ts > 0 || !result.notRead?.length) return undefined;
  return `found ${notReadSummary(result.notRead)}: explore reads Go and TypeScript`;
}
