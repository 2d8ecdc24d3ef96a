// Where the reflector writes: applies changes and relists to an Indexer, then reports each change in order (DeltaFIFO +
// processDeltas).
// With one thread there is no need for client-go's queue between reflector and informer: each watch event is stored
// and fanned out before the next one is read, so nothing can be reordered or coalesced.
import type { KubernetesObject } from "../client/types.js";
import type { Indexer } from "./indexer.js";
import { DeletedFinalStateUnknown } from "./keys.js";
import { Pacer, type Steps, forEachSteps, runSteps } from "./paced.js";

/** What the reflector needs from a store (client-go's Store as the Reflector sees it). */
export interface DeltaSink<T extends KubernetesObject> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  /**
   * The full state after a LIST; objects missing from items were deleted while nobody was watching. A sink may do a
   * large replace in steps and return a promise: the reflector waits for it before it watches.
   */
  replace(items: T[], resourceVersion: string): void | Promise<void>;
  /**
   * Removes every stored object keep() refuses, reporting each as deleted (a sharded reflector's shard shrank: those
   * objects are now another member's). Optional: a sink without it keeps them. May return a promise, as replace.
   */
  retain?(keep: (obj: T) => boolean): void | Promise<void>;
}

/** One change to the cache, reported after the Indexer already holds it. */
export type CacheNotification<T extends KubernetesObject> =
  | { type: "add"; obj: T; isInInitialList: boolean }
  /** isSync: old and new have the same resourceVersion (client-go treats such updates as resyncs). */
  | { type: "update"; oldObj: T; newObj: T; isSync: boolean }
  | { type: "delete"; obj: T | DeletedFinalStateUnknown<T> }
  /** Periodic resync of a cached object. */
  | { type: "sync"; obj: T };

/**
 * A DeltaSink over an Indexer. Every call updates the Indexer first and then reports the change(s), so a listener
 * that reads the cache while handling a notification sees at least that state.
 */
export class IndexerSink<T extends KubernetesObject> implements DeltaSink<T> {
  private replacedOnce = false;

  constructor(
    private readonly indexer: Indexer<T>,
    private readonly notify: (n: CacheNotification<T>) => void,
    /** Applied to every object entering the cache (not to tombstones); client-go SharedIndexInformer.SetTransform. */
    private readonly transform: (obj: T) => T = (o) => o,
    /** Called when a replace swaps the new content in, before it reports the first change. */
    private readonly onSwap: () => void = () => undefined,
  ) {}

  /** True once replace() ran, i.e. the first LIST has been stored and reported. */
  hasReplaced(): boolean {
    return this.replacedOnce;
  }

  add(obj: T): void {
    this.upsert(this.transform(obj), false);
  }

  update(obj: T): void {
    this.upsert(this.transform(obj), false);
  }

  delete(obj: T): void {
    const t = this.transform(obj);
    const key = this.indexer.keyOf(t);
    // Unknown key: a relist already reported it as deleted (DeltaFIFO.Delete ignores it the same way).
    if (!this.indexer.has(key)) return;
    this.indexer.deleteByKey(key);
    this.notify({ type: "delete", obj: t });
  }

  /**
   * Stores items as the whole content, then reports the changes: synchronously for a list of up to CHUNK_ITEMS,
   * otherwise in chunks with a turn of the event loop between them (a promise then tells when it is done). Readers
   * never see a half-replaced store: the new content is built aside and swapped in at once (client-go's atomic
   * Replace); then every delete is reported, then adds and updates in list order. hasReplaced() turns true only once
   * every change of the first replace was handed on. The reflector writes nothing else meanwhile.
   */
  replace(items: T[], _resourceVersion: string): void | Promise<void> {
    return runSteps(this.replaceSteps(items));
  }

  private *replaceSteps(items: T[]): Steps<void> {
    const isInitial = !this.replacedOnce;
    const pacer = new Pacer();
    const staged = this.indexer.beginReplace();
    const next: T[] = new Array<T>(items.length);
    const keys: string[] = new Array<string>(items.length);
    for (let i = 0; i < items.length; i++) {
      const obj = this.transform(items[i] as T);
      next[i] = obj;
      keys[i] = staged.add(obj);
      if (pacer.due()) yield;
    }
    const old = staged.commit();
    this.onSwap();
    for (const [key, obj] of old.entries()) {
      if (!this.indexer.has(key)) this.notify({ type: "delete", obj: new DeletedFinalStateUnknown(key, obj) });
      if (pacer.due()) yield;
    }
    for (let i = 0; i < next.length; i++) {
      const key = keys[i] as string;
      const obj = next[i] as T;
      // A key listed twice: only its last occurrence is stored, so only that one is reported.
      if (this.indexer.getByKey(key) === obj) {
        const before = old.get(...old.locate(key));
        if (before === undefined) this.notify({ type: "add", obj, isInInitialList: isInitial });
        else this.notify({ type: "update", oldObj: before, newObj: obj, isSync: sameResourceVersion(before, obj) });
      }
      if (pacer.due()) yield;
    }
    this.replacedOnce = true;
  }

  /**
   * Removes every stored object keep() refuses, reporting each as deleted, in chunks like replace (each removal is a
   * step of its own, as a watch's delete is).
   */
  retain(keep: (obj: T) => boolean): void | Promise<void> {
    return runSteps(
      forEachSteps(this.indexer.list(), (obj) => {
        if (keep(obj)) return;
        this.indexer.deleteByKey(this.indexer.keyOf(obj));
        this.notify({ type: "delete", obj });
      }),
    );
  }

  /** Reports every cached object as a sync (client-go Resync → OnUpdate(obj, obj)). */
  resync(): void {
    for (const obj of this.indexer.list()) this.notify({ type: "sync", obj });
  }

  private upsert(obj: T, isInInitialList: boolean): void {
    const key = this.indexer.keyOf(obj);
    const before = this.indexer.getByKey(key);
    this.indexer.update(obj);
    // processDeltas: an add for a known key is an update, an update for an unknown key is an add.
    if (before === undefined) this.notify({ type: "add", obj, isInInitialList });
    else this.notify({ type: "update", oldObj: before, newObj: obj, isSync: sameResourceVersion(before, obj) });
  }
}

function sameResourceVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  const ra = a.metadata?.resourceVersion;
  return ra !== undefined && ra !== "" && ra === b.metadata?.resourceVersion;
}
