// Event handlers that turn informer events into workqueue keys (controller-runtime pkg/handler), and event filters
// (pkg/predicate): EnqueueRequestForObject for the primary resource, EnqueueRequestForOwner for owned kinds.
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import type { ResourceEventHandler } from "../cache/informer.js";
import { type DeletedFinalStateUnknown, metaNamespaceKeyFunc, objectKey, unwrapDeleted } from "../cache/keys.js";
import { controllerOf } from "./owner-references.js";

/** Something keys can be added to (a workqueue). */
export interface KeyQueue {
  add(key: string): void;
}

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
  const generation = options.generationChangedOnly ? [or(generationChangedPredicate, finalizersOrDeletionChangedPredicate) as Predicate<T>] : [];
  return [...generation, ...(options.predicates ?? [])];
}

/**
 * controller-runtime's EnqueueRequestForObject: each event that passes `predicates` puts the object's namespace/name
 * key on the queue. The queue dedups keys, so a burst of events is one reconcile.
 */
export function enqueueRequestForObject<T extends KubernetesObject>(queue: KeyQueue, predicates: Predicate<T>[] = []): ResourceEventHandler<T> {
  return {
    addFunc: (obj) => {
      if (predicates.every((p) => p.create?.(obj) ?? true)) queue.add(metaNamespaceKeyFunc(obj));
    },
    updateFunc: (oldObj, newObj) => {
      if (predicates.every((p) => p.update?.(oldObj, newObj) ?? true)) queue.add(metaNamespaceKeyFunc(newObj));
    },
    deleteFunc: (obj) => {
      if (predicates.every((p) => p.delete?.(obj) ?? true)) queue.add(metaNamespaceKeyFunc(obj));
    },
  };
}

/** The group of an apiVersion: "apps/v1" -> "apps", "v1" -> "" (core). */
export function groupOf(apiVersion: string | undefined): string {
  if (!apiVersion) return "";
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/**
 * The workqueue key of `child`'s controller owner when that owner is of `ownerType` (group and kind compared, version
 * ignored, as controller-runtime): the child's namespace and the owner's name, or the bare name for a cluster-scoped
 * owner. Undefined when the child has no controller ownerReference or it points at another kind.
 */
export function controllerOwnerKey(child: KubernetesObject, ownerType: Pick<ResourceDescriptor, "group" | "kind" | "namespaced">): string | undefined {
  const ref = controllerOf(child);
  if (!ref || ref.kind !== ownerType.kind || groupOf(ref.apiVersion) !== ownerType.group) return undefined;
  return objectKey(ownerType.namespaced ? child.metadata?.namespace : undefined, ref.name);
}

/**
 * controller-runtime's EnqueueRequestForOwner with OnlyControllerOwner: each event of an owned object enqueues the key
 * of its controller owner of `ownerType`. Updates enqueue the owners of both the old and the new object, so moving a
 * child to another owner reconciles both.
 */
export function enqueueRequestForOwner<T extends KubernetesObject>(queue: KeyQueue, ownerType: Pick<ResourceDescriptor, "group" | "kind" | "namespaced">): ResourceEventHandler<T> {
  const enqueue = (child: KubernetesObject): string | undefined => {
    const key = controllerOwnerKey(child, ownerType);
    if (key !== undefined) queue.add(key);
    return key;
  };
  return {
    addFunc: (obj) => void enqueue(obj),
    updateFunc: (oldObj, newObj) => {
      const newKey = enqueue(newObj);
      const oldKey = controllerOwnerKey(oldObj, ownerType);
      if (oldKey !== undefined && oldKey !== newKey) queue.add(oldKey);
    },
    deleteFunc: (obj) => void enqueue(unwrapDeleted(obj)),
  };
}

/** A kind watched for its effect on objects of the controller's kind (controller-runtime's Watches()). */
export interface WatchSpec<C extends KubernetesObject = KubernetesObject> {
  resource: ResourceDescriptor;
  /** Only objects with these labels are watched and cached, e.g. "app.kubernetes.io/managed-by=mysql-operator". */
  labelSelector?: string;
  /** The keys (`namespace/name` of the controller's kind) an event of obj enqueues. */
  mapToKeys(obj: C): string[];
}

/**
 * controller-runtime's EnqueueRequestsFromMapFunc: each event enqueues the keys mapToKeys returns for the object
 * (for an update, for the old and the new object, so a changed mapping reconciles both sides).
 */
export function enqueueRequestsFromMapFunc<T extends KubernetesObject>(queue: KeyQueue, mapToKeys: (obj: T) => string[]): ResourceEventHandler<T> {
  return {
    addFunc: (obj) => mapToKeys(obj).forEach((k) => queue.add(k)),
    updateFunc: (oldObj, newObj) => new Set([...mapToKeys(oldObj), ...mapToKeys(newObj)]).forEach((k) => queue.add(k)),
    deleteFunc: (obj) => mapToKeys(unwrapDeleted(obj)).forEach((k) => queue.add(k)),
  };
}
