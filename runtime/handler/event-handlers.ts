// Event handlers that turn informer events into workqueue keys (controller-runtime pkg/handler):
// EnqueueRequestForObject
// for the primary resource, EnqueueRequestForOwner for owned kinds, EnqueueRequestsFromMapFunc for watched kinds.
import type { V1OwnerReference } from "@kubernetes/client-node";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import type { ResourceEventHandler } from "../cache/informer.js";
import { metaNamespaceKeyFunc, objectKey, unwrapDeleted } from "../cache/keys.js";
import { controllerOf } from "../meta/owner-references.js";
import type { Predicate } from "./predicates.js";
import { createPriority, updatePriority, withDefaultPriority, type KeyQueue } from "./queue-priority.js";

/**
 * controller-runtime's EnqueueRequestForObject: each event that passes `predicates` puts the object's namespace/name
 * key on the queue. The queue dedups keys, so a burst of events is one reconcile.
 */
export function enqueueRequestForObject<T extends KubernetesObject>(
  workqueue: KeyQueue,
  predicates: Predicate<T>[] = [],
): ResourceEventHandler<T> {
  // Each event sees the queue at its priority: low for the initial list and resyncs, the default otherwise.
  return {
    addFunc: (obj, isInInitialList) => {
      const queue = withDefaultPriority(workqueue, createPriority(isInInitialList));
      if (predicates.every((p) => p.create?.(obj) ?? true)) queue.add(metaNamespaceKeyFunc(obj));
    },
    updateFunc: (oldObj, newObj) => {
      const queue = withDefaultPriority(workqueue, updatePriority(oldObj, newObj));
      if (predicates.every((p) => p.update?.(oldObj, newObj) ?? true)) queue.add(metaNamespaceKeyFunc(newObj));
    },
    deleteFunc: (obj) => {
      const queue = withDefaultPriority(workqueue, undefined);
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
  const ref = controllerOwnerRef(child, ownerType);
  return ref && objectKey(ownerType.namespaced ? child.metadata?.namespace : undefined, ref.name);
}

/** The child's controller ownerReference when it points at `ownerType`; undefined otherwise. */
export function controllerOwnerRef(
  child: KubernetesObject,
  ownerType: Pick<ResourceDescriptor, "group" | "kind">,
): V1OwnerReference | undefined {
  const ref = controllerOf(child);
  return ref && ref.kind === ownerType.kind && groupOf(ref.apiVersion) === ownerType.group ? ref : undefined;
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
  const enqueue = (to: KeyQueue, children: KubernetesObject[]): void => {
    const keys = children.map((child) => controllerOwnerKey(child, ownerType)).filter((k) => k !== undefined);
    new Set(keys).forEach((key) => to.add(key));
  };
  return {
    addFunc: (obj, isInInitialList) => enqueue(withDefaultPriority(queue, createPriority(isInInitialList)), [obj]),
    updateFunc: (oldObj, newObj) =>
      enqueue(withDefaultPriority(queue, updatePriority(oldObj, newObj)), [newObj, oldObj]),
    deleteFunc: (obj) => enqueue(queue, [unwrapDeleted(obj)]),
  };
}

/** A kind watched for its effect on objects of the controller's kind (controller-runtime's Watches()). */
export interface WatchSpec<C extends KubernetesObject = KubernetesObject> {
  /** The watched kind; a typed descriptor (builtinResources.secrets) types mapToKeys' object. */
  resource: ResourceDescriptor<C>;
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
    addFunc: (obj, isInInitialList) => {
      const to = withDefaultPriority(queue, createPriority(isInInitialList));
      mapToKeys(obj).forEach((k) => to.add(k));
    },
    updateFunc: (oldObj, newObj) => {
      const to = withDefaultPriority(queue, updatePriority(oldObj, newObj));
      new Set([...mapToKeys(oldObj), ...mapToKeys(newObj)]).forEach((k) => to.add(k));
    },
    deleteFunc: (obj) => mapToKeys(unwrapDeleted(obj)).forEach((k) => queue.add(k)),
  };
}
