// The cache's store: objects by key with secondary indices (client-go ThreadSafeStore + Indexer).
import type { KubernetesObject } from "../client/types.js";
import { type KeyFunc, metaNamespaceKeyFunc } from "./keys.js";

/** Returns the index values of an object; several values put it in several buckets, none leaves it out. */
export type IndexFunc<T> = (obj: T) => string[];

/** Index functions by index name. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** Name of the namespace index every informer gets by default (client-go cache.NamespaceIndex). */
export const NamespaceIndex = "namespace";

/** Indexes an object by its namespace ("" for cluster-scoped), like client-go MetaNamespaceIndexFunc. */
export function metaNamespaceIndexFunc(obj: KubernetesObject): string[] {
  return [obj.metadata?.namespace ?? ""];
}

interface IndexState {
  fn: (obj: never) => string[];
  /** index value → keys of the objects having it. Empty sets are deleted (kubernetes/kubernetes#84959). */
  buckets: Map<string, Set<string>>;
  /**
   * key → the values computed when the object was stored. Removal uses these rather than recomputing from the
   * old object, so an object mutated by a careless caller cannot leave stale index entries behind.
   */
  valuesByKey: Map<string, readonly string[]>;
}

/**
 * Objects by key plus named indices. Cached objects are shared with every reader: treat them as read-only.
 * Every method completes synchronously, so readers never see a half-applied change (JavaScript's
 * single thread plays the role of ThreadSafeStore's lock).
 */
export class Indexer<T extends KubernetesObject> {
  private items = new Map<string, T>();
  private indices = new Map<string, IndexState>();
  private readonly keyFunc: KeyFunc<T>;

  constructor(options: { indexers?: Indexers<T>; keyFunc?: KeyFunc<T> } = {}) {
    this.keyFunc = options.keyFunc ?? metaNamespaceKeyFunc;
    if (options.indexers) this.addIndexers(options.indexers);
  }

  /** The key this store uses for obj. */
  keyOf(obj: T): string {
    return this.keyFunc(obj);
  }

  /** Adds or replaces obj (client-go Add and Update are the same operation). */
  add(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  /** Adds or replaces obj. */
  update(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  /** Removes the object with obj's key; unknown keys are ignored. */
  delete(obj: T): void {
    this.deleteByKey(this.keyFunc(obj));
  }

  /** Removes the object stored under key; unknown keys are ignored. */
  deleteByKey(key: string): void {
    if (!this.items.has(key)) return;
    for (const idx of this.indices.values()) {
      const old = idx.valuesByKey.get(key);
      if (old) removeKey(idx.buckets, old, key);
      idx.valuesByKey.delete(key);
    }
    this.items.delete(key);
  }

  /** The stored object with obj's key. */
  get(obj: T): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  /** The stored object under key (O(1)). */
  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  /** Number of stored objects. */
  get size(): number {
    return this.items.size;
  }

  /** All stored objects (a new array of the shared, read-only objects). */
  list(): T[] {
    return Array.from(this.items.values());
  }

  listKeys(): string[] {
    return Array.from(this.items.keys());
  }

  /**
   * Replaces the whole content with items and rebuilds every index, atomically: the new maps are built aside and
   * swapped in, so if an index function throws nothing changes. resourceVersion is accepted for parity with
   * client-go's Store.Replace; the reflector tracks it.
   */
  replace(items: readonly T[], _resourceVersion?: string): void {
    const next = new Map<string, T>();
    for (const obj of items) next.set(this.keyFunc(obj), obj);
    const nextIndices = new Map<string, IndexState>();
    for (const [name, idx] of this.indices) nextIndices.set(name, buildIndex(idx.fn as IndexFunc<T>, next, name));
    this.items = next;
    this.indices = nextIndices;
  }

  /**
   * Adds indices; allowed before or after objects exist (existing objects are indexed right away, as client-go
   * does since v0.30). A name that is already registered is an error.
   */
  addIndexers(indexers: Indexers<T>): void {
    const built = new Map<string, IndexState>();
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indices.has(name) || built.has(name)) throw new Error(`indexer conflict: index "${name}" already exists`);
      built.set(name, buildIndex(fn, this.items, name));
    }
    for (const [name, idx] of built) this.indices.set(name, idx);
  }

  /** The index functions by name. */
  getIndexers(): Indexers<T> {
    const out: Indexers<T> = {};
    for (const [name, idx] of this.indices) out[name] = idx.fn as IndexFunc<T>;
    return out;
  }

  /** Objects sharing at least one value of index indexName with obj (client-go Index). */
  index(indexName: string, obj: T): T[] {
    const idx = this.indexState(indexName);
    const values = computeValues(idx.fn as IndexFunc<T>, obj, indexName);
    const keys = new Set<string>();
    for (const v of values) for (const k of idx.buckets.get(v) ?? []) keys.add(k);
    return this.objectsFor(keys);
  }

  /** Objects whose index indexName contains value. */
  byIndex(indexName: string, value: string): T[] {
    return this.objectsFor(this.indexState(indexName).buckets.get(value) ?? []);
  }

  /** Keys of the objects whose index indexName contains value. */
  indexKeys(indexName: string, value: string): string[] {
    return Array.from(this.indexState(indexName).buckets.get(value) ?? []);
  }

  /** Every value present in index indexName (an unknown index has none). */
  listIndexFuncValues(indexName: string): string[] {
    return Array.from(this.indices.get(indexName)?.buckets.keys() ?? []);
  }

  private put(key: string, obj: T): void {
    // Compute every new value before touching anything, so a throwing index function leaves the store unchanged.
    const computed: Array<[IndexState, string[]]> = [];
    for (const [name, idx] of this.indices) computed.push([idx, computeValues(idx.fn as IndexFunc<T>, obj, name)]);
    this.items.set(key, obj);
    for (const [idx, values] of computed) {
      const old = idx.valuesByKey.get(key);
      // Fast path of client-go updateIndices: same single value before and after.
      if (old && old.length === 1 && values.length === 1 && old[0] === values[0]) continue;
      if (old) removeKey(idx.buckets, old, key);
      addKey(idx.buckets, values, key);
      idx.valuesByKey.set(key, values);
    }
  }

  private indexState(indexName: string): IndexState {
    const idx = this.indices.get(indexName);
    if (!idx) throw new Error(`index with name "${indexName}" does not exist`);
    return idx;
  }

  private objectsFor(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const k of keys) {
      const obj = this.items.get(k);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }
}

function computeValues<T>(fn: IndexFunc<T>, obj: T, name: string): string[] {
  let values: string[];
  try {
    values = fn(obj);
  } catch (err) {
    // client-go panics here ("unable to calculate an index entry"); we throw and leave the store unchanged.
    throw new Error(`unable to calculate an index entry for index "${name}": ${String(err)}`, { cause: err });
  }
  // Dedupe so that a value listed twice does not need removing twice.
  return values.length > 1 ? Array.from(new Set(values)) : values;
}

function buildIndex<T>(fn: IndexFunc<T>, items: ReadonlyMap<string, T>, name: string): IndexState {
  const idx: IndexState = { fn: fn as (obj: never) => string[], buckets: new Map(), valuesByKey: new Map() };
  for (const [key, obj] of items) {
    const values = computeValues(fn, obj, name);
    addKey(idx.buckets, values, key);
    idx.valuesByKey.set(key, values);
  }
  return idx;
}

function addKey(buckets: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const v of values) {
    let set = buckets.get(v);
    if (!set) buckets.set(v, (set = new Set()));
    set.add(key);
  }
}

function removeKey(buckets: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const v of values) {
    const set = buckets.get(v);
    if (!set) continue;
    set.delete(key);
    if (set.size === 0) buckets.delete(v);
  }
}
