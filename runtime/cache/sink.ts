// Where the reflector writes: applies changes and relists to an Indexer, then reports each change in order (DeltaFIFO +
// processDeltas).
// With one thread there is no need for client-go's queue between reflector and informer: each watch event is stored
// and fanned out before the next one is read, so nothing can be reordered or coalesced.
import type { KubernetesObject } from "../client/types.js";
import type { Indexer } from "./indexer.js";
import { DeletedFinalStateUnknown } from "./keys.js";

/** What the reflector needs from a store (client-go's Store as the Reflector sees it). */
export interface DeltaSink<T extends KubernetesObject> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  /** The full state after a LIST; objects missing from items were deleted while nobody was watching. */
  replace(items: T[], resourceVersion: string): void;
  /**
   * Removes every stored object keep() refuses, reporting each as deleted (a sharded reflector's shard shrank: those
   * objects are now another member's). Optional: a sink without it keeps them.
   */
  retain?(keep: (obj: T) => boolean): void;
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

  replace(items: T[], resourceVersion: string): void {
    const isInitial = !this.replacedOnce;
    const next = items.map((o) => this.transform(o));
    const old = new Map<string, T>();
    for (const key of this.indexer.listKeys()) old.set(key, this.indexer.getByKey(key) as T);
    this.indexer.replace(next, resourceVersion);
    this.replacedOnce = true;
    // Like client-go's atomic ReplacedAll: store swapped first, then every delete, then adds/updates in list order.
    const seen = new Set<string>();
    const keys = next.map((o) => this.indexer.keyOf(o));
    for (const k of keys) seen.add(k);
    for (const [key, obj] of old) {
      if (!seen.has(key)) this.notify({ type: "delete", obj: new DeletedFinalStateUnknown(key, obj) });
    }
    const reported = new Set<string>();
    for (let i = keys.length - 1; i >= 0; i--) {
      // A key listed twice: only its last occurrence is stored, so only that one is reported.
      const key = keys[i] as string;
      if (reported.has(key)) keys[i] = "";
      reported.add(key);
    }
    for (let i = 0; i < next.length; i++) {
      const key = keys[i] as string;
      if (key === "") continue;
      const obj = next[i] as T;
      const before = old.get(key);
      if (before === undefined) this.notify({ type: "add", obj, isInInitialList: isInitial });
      else this.notify({ type: "update", oldObj: before, newObj: obj, isSync: sameResourceVersion(before, obj) });
    }
  }

  retain(keep: (obj: T) => boolean): void {
    for (const obj of this.indexer.list()) {
      if (keep(obj)) continue;
      this.indexer.deleteByKey(this.indexer.keyOf(obj));
      this.notify({ type: "delete", obj });
    }
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
