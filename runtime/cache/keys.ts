// Cache keys ("namespace/name", client-go MetaNamespaceKeyFunc) and the tombstone for deletes missed while
// disconnected.
import type { KubernetesObject } from "../client/types.js";

/**
 * Delivered to delete handlers instead of the object when a relist shows that an object vanished while the watch
 * was down (client-go DeltaFIFO's DeletedFinalStateUnknown). `obj` is the last state the cache knew; it may be stale.
 */
export class DeletedFinalStateUnknown<T extends KubernetesObject = KubernetesObject> {
  /** Structural marker, so the check also works across duplicated copies of this module. */
  readonly finalStateUnknown = true as const;
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

/** True for a DeletedFinalStateUnknown tombstone. */
export function isDeletedFinalStateUnknown<T extends KubernetesObject>(x: unknown): x is DeletedFinalStateUnknown<T> {
  if (x instanceof DeletedFinalStateUnknown) return true;
  const t = x as { finalStateUnknown?: unknown; key?: unknown } | null | undefined;
  return typeof t === "object" && t !== null && t.finalStateUnknown === true && typeof t.key === "string";
}

/** The object a delete handler received, tombstone or not (its `obj` may be stale). */
export function unwrapDeleted<T extends KubernetesObject>(x: T | DeletedFinalStateUnknown<T>): T {
  return isDeletedFinalStateUnknown<T>(x) ? x.obj : x;
}

/** Computes the cache key of an object. */
export type KeyFunc<T> = (obj: T) => string;

/** `namespace/name`, or `name` for cluster-scoped objects; a tombstone yields its key (DeletionHandlingMetaNamespaceKeyFunc). */
export function metaNamespaceKeyFunc(obj: KubernetesObject | DeletedFinalStateUnknown): string {
  if (isDeletedFinalStateUnknown(obj)) return obj.key;
  const name = obj.metadata?.name;
  if (!name) throw new Error(`cannot compute a cache key: object ${obj.kind ?? ""} has no metadata.name`);
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

/** The key for a namespace and name; an empty namespace means cluster-scoped. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Inverse of metaNamespaceKeyFunc: `ns/name` → { namespace: "ns", name }, `name` → { namespace: "", name }. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split("/");
  if (parts.length === 1 && parts[0]) return { namespace: "", name: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { namespace: parts[0], name: parts[1] };
  throw new Error(`unexpected cache key format: ${JSON.stringify(key)}`);
}
