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
  /** The namespace index over namespaced keys: answered by the store's namespace → name layout, buckets unused. */
  byNamespace: boolean;
}

/** The content a store held before a replace: read-only once replaced. */
export interface ReplacedContent<T> {
  get(bucket: string, name: string): T | undefined;
  locate(key: string): [string, string];
  entries(): Iterable<[string, T]>;
  readonly size: number;
}

/** A replace being built aside (Indexer.beginReplace). */
export interface StagedReplace<T> {
  /** Adds obj to the new content (a later object with the same key replaces an earlier one); returns its key. */
  add(obj: T): string;
  /** Swaps the new content in, in one step; returns the old one. */
  commit(): ReplacedContent<T>;
}

/**
 * Where objects live: namespace → name → object for the default `namespace/name` keys, so the cache holds no key
 * strings of its own and the namespace index is this map itself (about 100 bytes per object less than a key map plus
 * a namespace index). A custom key function stores every object under the bucket "" by its whole key.
 */
class ObjectsByNamespace<T> implements ReplacedContent<T> {
  private buckets = new Map<string, Map<string, T>>();
  private count = 0;

  constructor(private readonly namespaced: boolean) {}

  /** Splits a key into its bucket and the name within it. */
  locate(key: string): [string, string] {
    if (!this.namespaced) return ["", key];
    const slash = key.indexOf("/");
    return slash < 0 ? ["", key] : [key.slice(0, slash), key.slice(slash + 1)];
  }

  get(bucket: string, name: string): T | undefined {
    return this.buckets.get(bucket)?.get(name);
  }

  set(bucket: string, name: string, obj: T): void {
    let names = this.buckets.get(bucket);
    if (!names) this.buckets.set(bucket, (names = new Map<string, T>()));
    if (!names.has(name)) this.count++;
    names.set(name, obj);
  }

  delete(bucket: string, name: string): void {
    const names = this.buckets.get(bucket);
    if (!names?.delete(name)) return;
    this.count--;
    // Empty buckets are dropped so that namespaces that were deleted do not linger (kubernetes/kubernetes#84959).
    if (names.size === 0) this.buckets.delete(bucket);
  }

  get size(): number {
    return this.count;
  }

  /** Objects of one bucket (one namespace). */
  inBucket(bucket: string): Iterable<T> {
    return this.buckets.get(bucket)?.values() ?? [];
  }

  bucketNames(): Iterable<string> {
    return this.buckets.keys();
  }

  keyOf(bucket: string, name: string): string {
    return bucket ? `${bucket}/${name}` : name;
  }

  *entries(): Iterable<[string, T]> {
    for (const [bucket, names] of this.buckets) for (const [name, obj] of names) yield [this.keyOf(bucket, name), obj];
  }

  *values(): Iterable<T> {
    for (const names of this.buckets.values()) yield* names.values();
  }
}

/**
 * Objects by key plus named indices. Cached objects are shared with every reader: treat them as read-only.
 * Every method completes synchronously, so readers never see a half-applied change (JavaScript's
 * single thread plays the role of ThreadSafeStore's lock).
 */
export class Indexer<T extends KubernetesObject> {
  private items: ObjectsByNamespace<T>;
  private indices = new Map<string, IndexState>();
  private readonly keyFunc: KeyFunc<T>;
  private readonly namespaced: boolean;

  constructor(options: { indexers?: Indexers<T>; keyFunc?: KeyFunc<T> } = {}) {
    this.keyFunc = options.keyFunc ?? metaNamespaceKeyFunc;
    this.namespaced = this.keyFunc === metaNamespaceKeyFunc;
    this.items = new ObjectsByNamespace<T>(this.namespaced);
    if (options.indexers) this.addIndexers(options.indexers);
  }

  /** The key this store uses for obj. */
  keyOf(obj: T): string {
    return this.keyFunc(obj);
  }

  /** Adds or replaces obj (client-go Add and Update are the same operation). */
  add(obj: T): void {
    this.put(obj);
  }

  /** Adds or replaces obj. */
  update(obj: T): void {
    this.put(obj);
  }

  /** Removes the object with obj's key; unknown keys are ignored. */
  delete(obj: T): void {
    this.deleteByKey(this.keyFunc(obj));
  }

  /** Removes the object stored under key; unknown keys are ignored. */
  deleteByKey(key: string): void {
    const [bucket, name] = this.items.locate(key);
    const old = this.items.get(bucket, name);
    if (old === undefined) return;
    // The old values come from the stored object, as in client-go: no per-key copy of them is kept (it cost
    // about 90 bytes per object), which is sound because cached objects are never mutated.
    const oldValues: Array<[IndexState, string[]]> = [];
    for (const [indexName, idx] of this.materialIndices())
      oldValues.push([idx, computeValues(idx.fn as IndexFunc<T>, old, indexName)]);
    for (const [idx, values] of oldValues) removeKey(idx.buckets, values, key);
    this.items.delete(bucket, name);
  }

  /** The stored object with obj's key. */
  get(obj: T): T | undefined {
    return this.getByKey(this.keyFunc(obj));
  }

  /** The stored object under key (O(1)). */
  getByKey(key: string): T | undefined {
    const [bucket, name] = this.items.locate(key);
    return this.items.get(bucket, name);
  }

  has(key: string): boolean {
    return this.getByKey(key) !== undefined;
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
    return Array.from(this.items.entries(), ([key]) => key);
  }

  /**
   * Replaces the whole content with items and rebuilds every index, atomically: the new maps are built aside and
   * swapped in, so if an index function throws nothing changes. resourceVersion is accepted for parity with
   * client-go's Store.Replace; the reflector tracks it.
   */
  replace(items: readonly T[], _resourceVersion?: string): void {
    const staged = this.beginReplace();
    for (const obj of items) staged.add(obj);
    staged.commit();
  }

  /**
   * A replace built aside one object at a time (so a caller can pause between objects): readers see the current
   * content until commit() swaps the new one in, in one step. An index function that throws in add() leaves the store
   * as it is (drop the StagedReplace). Nothing but the reflector may write the store before commit().
   */
  beginReplace(): StagedReplace<T> {
    const next = new ObjectsByNamespace<T>(this.namespaced);
    const nextIndices = new Map<string, IndexState>();
    for (const [name, idx] of this.indices) nextIndices.set(name, this.buildIndex(idx.fn as IndexFunc<T>, next, name));
    return {
      add: (obj) => {
        const [bucket, name] = this.locateObject(obj);
        const key = next.keyOf(bucket, name);
        const earlier = next.get(bucket, name);
        const values: Array<[IndexState, string[]]> = [];
        for (const [indexName, idx] of nextIndices)
          if (!idx.byNamespace) values.push([idx, computeValues(idx.fn as IndexFunc<T>, obj, indexName)]);
        // A key listed twice: the later object wins, and the earlier one's index entries go.
        if (earlier !== undefined)
          for (const [indexName, idx] of nextIndices)
            if (!idx.byNamespace)
              removeKey(idx.buckets, computeValues(idx.fn as IndexFunc<T>, earlier, indexName), key);
        next.set(bucket, name, obj);
        for (const [idx, v] of values) addKey(idx.buckets, v, key);
        return key;
      },
      commit: () => {
        // Indices added meanwhile (addIndexers) are built over the new content now.
        for (const [name, idx] of this.indices)
          if (!nextIndices.has(name)) nextIndices.set(name, this.buildIndex(idx.fn as IndexFunc<T>, next, name));
        const previous = this.items;
        this.items = next;
        this.indices = nextIndices;
        return previous;
      },
    };
  }

  /**
   * Adds indices; allowed before or after objects exist (existing objects are indexed right away, as client-go
   * does since v0.30). A name that is already registered is an error.
   */
  addIndexers(indexers: Indexers<T>): void {
    const built = new Map<string, IndexState>();
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indices.has(name) || built.has(name))
        throw new Error(`indexer conflict: index "${name}" already exists`);
      built.set(name, this.buildIndex(fn, this.items, name));
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
    if (idx.byNamespace) return values.flatMap((v) => Array.from(this.items.inBucket(v)));
    const keys = new Set<string>();
    for (const v of values) for (const k of idx.buckets.get(v) ?? []) keys.add(k);
    return this.objectsFor(keys);
  }

  /** Objects whose index indexName contains value. */
  byIndex(indexName: string, value: string): T[] {
    const idx = this.indexState(indexName);
    if (idx.byNamespace) return Array.from(this.items.inBucket(value));
    return this.objectsFor(idx.buckets.get(value) ?? []);
  }

  /** Keys of the objects whose index indexName contains value. */
  indexKeys(indexName: string, value: string): string[] {
    const idx = this.indexState(indexName);
    if (idx.byNamespace) return Array.from(this.items.inBucket(value), (obj) => this.keyFunc(obj));
    return Array.from(idx.buckets.get(value) ?? []);
  }

  /** Every value present in index indexName (an unknown index has none). */
  listIndexFuncValues(indexName: string): string[] {
    const idx = this.indices.get(indexName);
    if (idx?.byNamespace) return Array.from(this.items.bucketNames());
    return Array.from(idx?.buckets.keys() ?? []);
  }

  private put(obj: T): void {
    const [bucket, name] = this.locateObject(obj);
    const previous = this.items.get(bucket, name);
    // Compute every new value before touching anything, so a throwing index function leaves the store unchanged.
    const computed: Array<[IndexState, string[], string[] | undefined]> = [];
    for (const [indexName, idx] of this.materialIndices()) {
      const fn = idx.fn as IndexFunc<T>;
      computed.push([
        idx,
        computeValues(fn, obj, indexName),
        previous === undefined ? undefined : computeValues(fn, previous, indexName),
      ]);
    }
    this.items.set(bucket, name, obj);
    if (computed.length === 0) return;
    const key = this.items.keyOf(bucket, name);
    for (const [idx, values, old] of computed) {
      // Fast path of client-go updateIndices: same single value before and after.
      if (old && old.length === 1 && values.length === 1 && old[0] === values[0]) continue;
      if (old) removeKey(idx.buckets, old, key);
      addKey(idx.buckets, values, key);
    }
  }

  /** Bucket and name of obj, without building its key string when the key is the default one. */
  private locateObject(obj: T): [string, string] {
    if (!this.namespaced) return ["", this.keyFunc(obj)];
    const name = obj.metadata?.name;
    if (!name) this.keyFunc(obj); // throws the key function's error
    return [obj.metadata?.namespace ?? "", name!];
  }

  /** Indices that keep buckets of keys (all but the namespace index, which the store's layout answers). */
  private *materialIndices(): Iterable<[string, IndexState]> {
    for (const entry of this.indices) if (!entry[1].byNamespace) yield entry;
  }

  private buildIndex(fn: IndexFunc<T>, items: ObjectsByNamespace<T>, name: string): IndexState {
    const byNamespace = this.namespaced && fn === metaNamespaceIndexFunc;
    const idx: IndexState = { fn, buckets: new Map(), byNamespace };
    if (!byNamespace) for (const [key, obj] of items.entries()) addKey(idx.buckets, computeValues(fn, obj, name), key);
    return idx;
  }

  private indexState(indexName: string): IndexState {
    const idx = this.indices.get(indexName);
    if (!idx) throw new Error(`index with name "${indexName}" does not exist`);
    return idx;
  }

  private objectsFor(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const k of keys) {
      const obj = this.getByKey(k);
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
