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
  add(key: string): void;
}

/** A KeyQueue with priorities (workqueue's PriorityQueue; handler may not import workqueue). */
interface PriorityKeyQueue extends KeyQueue {
  addWithOpts(opts: { priority?: number }, ...keys: string[]): void;
}

/** controller-runtime handler.LowPriority, equal to workqueue's LOW_PRIORITY (a test holds them equal). */
const LOW_PRIORITY = -100;

function isPriorityQueue(queue: KeyQueue): queue is PriorityKeyQueue {
  return typeof (queue as Partial<PriorityKeyQueue>).addWithOpts === "function";
}

/**
 * controller-runtime's addToQueueCreate: on a priority queue, an add from the initial list (or a late handler's
 * replay of the cache) goes in with low priority, so that live events overtake the startup backlog.
 */
function enqueueCreate(queue: KeyQueue, key: string, isInInitialList: boolean): void {
  if (isPriorityQueue(queue)) queue.addWithOpts({ priority: isInInitialList ? LOW_PRIORITY : 0 }, key);
  else queue.add(key);
}

/** controller-runtime's addToQueueUpdate: an update that leaves resourceVersion alone is a resync: low priority. */
function enqueueUpdate(queue: KeyQueue, key: string, oldObj: KubernetesObject, newObj: KubernetesObject): void {
  if (!isPriorityQueue(queue)) {
    queue.add(key);
    return;
  }
  const resync = oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion;
  queue.addWithOpts({ priority: resync ? LOW_PRIORITY : 0 }, key);
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
        enqueueCreate(queue, metaNamespaceKeyFunc(obj), isInInitialList);
    },
    updateFunc: (oldObj, newObj) => {
      if (predicates.every((p) => p.update?.(oldObj, newObj) ?? true))
        enqueueUpdate(queue, metaNamespaceKeyFunc(newObj), oldObj, newObj);
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
  const enqueue = (child: KubernetesObject): string | undefined => {
    const key = controllerOwnerKey(child, ownerType);
    if (key !== undefined) queue.add(key);
    return key;
  };
  return {
    addFunc: (obj, isInInitialList) => {
      const key = controllerOwnerKey(obj, ownerType);
      if (key !== undefined) enqueueCreate(queue, key, isInInitialList);
    },
    updateFunc: (oldObj, newObj) => {
      const newKey = controllerOwnerKey(newObj, ownerType);
      const oldKey = controllerOwnerKey(oldObj, ownerType);
      if (newKey !== undefined) enqueueUpdate(queue, newKey, oldObj, newObj);
      if (oldKey !== undefined && oldKey !== newKey) enqueueUpdate(queue, oldKey, oldObj, newObj);
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
    addFunc: (obj, isInInitialList) => mapToKeys(obj).forEach((k) => enqueueCreate(queue, k, isInInitialList)),
    updateFunc: (oldObj, newObj) =>
      new Set([...mapToKeys(oldObj), ...mapToKeys(newObj)]).forEach((k) => enqueueUpdate(queue, k, oldObj, newObj)),
    deleteFunc: (obj) => mapToKeys(unwrapDeleted(obj)).forEach((k) => queue.add(k)),
  };
}
