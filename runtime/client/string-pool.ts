// Shares the strings that repeat across every object of a resource, so a cache of 10,000 objects holds one copy.
// JSON.parse allocates a new string for each value longer than a few characters; apiVersion ("example.com/v1"),
// kind and namespace are the same for thousands of cached objects (about 80 bytes per object saved).

/** A bounded pool of strings: past maxSize distinct values strings are returned as they are. */
export class StringPool {
  private readonly pool = new Map<string, string>();

  constructor(private readonly maxSize = 4096) {}

  /** The pooled copy of s (the first one seen), or s itself. */
  share<S extends string | undefined>(s: S): S {
    if (typeof s !== "string") return s;
    const pooled = this.pool.get(s);
    if (pooled !== undefined) return pooled as S;
    if (this.pool.size < this.maxSize) this.pool.set(s, s);
    return s;
  }

  get size(): number {
    return this.pool.size;
  }
}

/** The process-wide pool the client's decoder uses. */
export const identityStrings = new StringPool();

/** Replaces obj's apiVersion, kind and metadata.namespace with their pooled copies (in place). */
export function shareIdentityStrings<T>(obj: T, pool: StringPool = identityStrings): T {
  const o = obj as { apiVersion?: unknown; kind?: unknown; metadata?: { namespace?: unknown } } | null | undefined;
  if (!o || typeof o !== "object") return obj;
  if (typeof o.apiVersion === "string") o.apiVersion = pool.share(o.apiVersion);
  if (typeof o.kind === "string") o.kind = pool.share(o.kind);
  const meta = o.metadata;
  if (meta && typeof meta === "object" && typeof meta.namespace === "string")
    meta.namespace = pool.share(meta.namespace);
  return obj;
}
