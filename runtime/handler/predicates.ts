// Event filters (controller-runtime pkg/predicate): which informer events of the primary resource enqueue a reconcile.
import type { KubernetesObject } from "../client/types.js";
import type { DeletedFinalStateUnknown } from "../cache/keys.js";

/**
 * An event filter (controller-runtime predicate.Funcs): a missing function lets that kind of event through.
 * Every predicate of a list must pass for the event to enqueue.
 */
export interface Predicate<T extends KubernetesObject = KubernetesObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T | DeletedFinalStateUnknown<T>): boolean;
}

/**
 * controller-runtime's GenerationChangedPredicate: an update passes only when metadata.generation changed, so writes
 * to status (and to labels, annotations, finalizers) do not enqueue. Creates and deletes always pass. Caveats: the
 * informer's periodic resync (update(obj, obj)) is filtered out too, and kinds without a generation-bumping spec
 * never pass updates.
 */
export const generationChangedPredicate: Predicate = {
  update: (oldObj, newObj) => oldObj.metadata?.generation !== newObj.metadata?.generation,
};

/**
 * Passes updates that change what the runtime's finalizer handling depends on: metadata.finalizers or
 * metadata.deletionTimestamp. The controller adds its finalizer and relies on the resulting update event to
 * reconcile, so `generationChangedOnly` combines this with generationChangedPredicate.
 */
export const finalizersOrDeletionChangedPredicate: Predicate = {
  update: (oldObj, newObj) =>
    oldObj.metadata?.deletionTimestamp !== newObj.metadata?.deletionTimestamp ||
    JSON.stringify(oldObj.metadata?.finalizers ?? []) !== JSON.stringify(newObj.metadata?.finalizers ?? []),
};

/** A predicate passing an event when any of `predicates` passes it (predicate.Or). */
export function or<T extends KubernetesObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => predicates.some((p) => p.create?.(obj) ?? true),
    update: (oldObj, newObj) => predicates.some((p) => p.update?.(oldObj, newObj) ?? true),
    delete: (obj) => predicates.some((p) => p.delete?.(obj) ?? true),
  };
}

/** Options of the primary resource's event handler (part of ControllerOptions). */
export interface PrimaryWatchOptions<T extends KubernetesObject = KubernetesObject> {
  /**
   * Enqueue updates of the primary resource only when metadata.generation changed (or its finalizers or
   * deletionTimestamp did), so the operator's own status writes do not reconcile it again. Creates and deletes always
   * enqueue. Default false: every update enqueues. Watch owned kinds (`owns`) when a reconcile depends on their status.
   */
  generationChangedOnly?: boolean;
  /** Further filters on the primary resource's events; all must pass. */
  predicates?: Predicate<T>[];
}

/** The predicates options ask for on the primary resource. */
export function primaryPredicates<T extends KubernetesObject>(options: PrimaryWatchOptions<T>): Predicate<T>[] {
  const generation = options.generationChangedOnly
    ? [or(generationChangedPredicate, finalizersOrDeletionChangedPredicate) as Predicate<T>]
    : [];
  return [...generation, ...(options.predicates ?? [])];
}
