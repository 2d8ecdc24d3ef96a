// Event handlers that turn informer events into workqueue keys (controller-runtime pkg/handler):
// EnqueueRequestForObject
// for the primary resource, EnqueueRequestForOwner for owned kinds, EnqueueRequestsFromMapFunc for watched kinds.
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import type { ResourceEventHandler } from "../cache/informer.js";
import { metaNamespaceKeyFunc, objectKey, unwrapDeleted } from "../cache/keys.js";
import { controllerOf } from "../meta/owner-references.js";
import type { Predicate } from "./predicates.js";

/** Something keys can be added to (a workqueue). */
export interface KeyQueue {
  /** opts.priority: what a priority queue serves first (higher first); other queues ignore it. */
  add(key: string, opts?: { priority?: number }): void;
}

/** controller-runtime handler.LowPriority, equal to workqueue's LOW_PRIORITY (a test holds them equal). */
const LOW_PRIORITY = -100;

/**
 * controller-runtime's addToQueueCreate: an add from the initial list (or a late handler's replay of the cache) is
 * low priority on a priority queue, so that live events overtake the startup backlog.
 */
function createPriority(isInInitialList: boolean): { priority: number } {
  return { priority: isInInitialList ? LOW_PRIORITY : 0 };
}

/** controller-runtime's addToQueueUpdate: an update that leaves resourceVersion alone is a resync: low priority. */
function updatePriority(oldObj: KubernetesObject, newObj: KubernetesObject): { priority: number } {
  return { priority: oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion ? LOW_PRIORITY : 0 };
}

/**
 * controller-runtime's EnqueueRequestForObject: each event that passes `predicates` puts the object's namespace/name
 * key on the queue. The queue dedups keys, so a burst of events is one reconcile.
 */
export function enqueueRequestForObject<T extends KubernetesObject>(
  queue: KeyQueue,
  predicates: Predicate<T>[] = [],
): ResourceEventHandler<T> {
  return {
    addFunc: (obj, isInInitialList) => {
      if (predicates.every((p) => p.create?.(obj) ?? true))
        queue.add(metaNamespaceKeyFunc(obj), createPriority(isInInitialList));
    },
    updateFunc: (oldObj, newObj) => {
      if (predicates.every((p) => p.update?.(oldObj, newObj) ?? true))
        queue.add(metaNamespaceKeyFunc(newObj), updatePriority(oldObj, newObj));
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
export function controllerOwnerKey(
  child: KubernetesObject,
  ownerType: Pick<ResourceDescriptor, "group" | "kind" | "namespaced">,
): string | undefined {
  const ref = controllerOf(child);
  if (!ref || ref.kind !== ownerType.kind || groupOf(ref.apiVersion) !== ownerType.group) return undefined;
  return objectKey(ownerType.namespaced ? child.metadata?.namespace : undefined, ref.name);
}

/**
 * controller-runtime's EnqueueRequestForOwner with OnlyControllerOwner: each event of an owned object enqueues the key
 * of its controller owner of `ownerType`. Updates enqueue the owners of both the old and the new object, so moving a
 * child to another owner reconciles both.
 */
export function enqueueRequestForOwner<T extends KubernetesObject>(
  queue: KeyQueue,
  ownerType: Pick<ResourceDescriptor, "group" | "kind" | "namespaced">,
): ResourceEventHandler<T> {
  const enqueue = (child: KubernetesObject, opts?: { priority: number }): string | undefined => {
    const key = controllerOwnerKey(child, ownerType);
    if (key !== undefined) queue.add(key, opts);
    return key;
  };
  return {
    addFunc: (obj, isInInitialList) => void enqueue(obj, createPriority(isInInitialList)),
    updateFunc: (oldObj, newObj) => {
      const newKey = enqueue(newObj, updatePriority(oldObj, newObj));
      const oldKey = controllerOwnerKey(oldObj, ownerType);
      if (oldKey !== undefined && oldKey !== newKey) queue.add(oldKey, updatePriority(oldObj, newObj));
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
export function enqueueRequestsFromMapFunc<T extends KubernetesObject>(
  queue: KeyQueue,
  mapToKeys: (obj: T) => string[],
): ResourceEventHandler<T> {
  return {
    addFunc: (obj, isInInitialList) => mapToKeys(obj).forEach((k) => queue.add(k, createPriority(isInInitialList))),
    updateFunc: (oldObj, newObj) => {
      const opts = updatePriority(oldObj, newObj);
      new Set([...mapToKeys(oldObj), ...mapToKeys(newObj)]).forEach((k) => queue.add(k, opts));
    },
    deleteFunc: (obj) => mapToKeys(unwrapDeleted(obj)).forEach((k) => queue.add(k)),
  };
}
