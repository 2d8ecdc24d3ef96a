// The objects a reconcile keeps in line with its primary object (children): read from the owned kinds' informer caches,
// written with server-side apply only when something would change, deleted only when the cache shows them.
import type { KubeClient } from "../client/kube-client.js";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import { ResourceClient } from "../client/resource-client.js";
import type { ApplyConfiguration } from "../client/patch.js";
import { isNotFound } from "../client/api-error.js";
import type { SharedIndexInformer } from "../cache/informer.js";
import { objectKey } from "../cache/keys.js";
import { appliedFieldsOf, extractApplied, sameAppliedFields } from "./managed-fields.js";

/** What apply() did. */
export interface ApplyOutcome<C> {
  /** The live object: the server's answer when a request was made, else the cached one. */
  object: C;
  /** True when an apply request was sent (the cache showed a difference or no object). */
  changed: boolean;
}

/** Children access for one controller; the hooks reach it as `ctx.children`. */
export interface ChildObjects {
  /** The cached object (owned or watched kinds only), or undefined. Read-only. */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the cache is untyped: C names the kind the descriptor stands for (callers write get<V1Secret>)
  get<C extends KubernetesObject>(
    resource: ResourceDescriptor,
    namespace: string | undefined,
    name: string,
  ): C | undefined;
  /** Cached objects of a kind, optionally in one namespace. Read-only. */
  list<C extends KubernetesObject>(resource: ResourceDescriptor, namespace?: string): C[];
  /**
   * Server-side apply of `desired` with the controller's field manager (force: the operator owns these fields).
   * Skipped when the cached object already holds exactly these fields under this manager, so a steady-state
   * reconcile sends no request. `desired` must carry apiVersion, kind, metadata.name (and namespace).
   */
  apply<C extends KubernetesObject>(
    resource: ResourceDescriptor,
    desired: ApplyConfiguration<C>,
  ): Promise<ApplyOutcome<C>>;
  /** Deletes the object if the cache holds it (no request otherwise); true when a delete was sent. Gone already is fine. */
  delete(resource: ResourceDescriptor, namespace: string | undefined, name: string): Promise<boolean>;
}

/** Resolves the informer that caches a kind; undefined when the controller neither owns nor watches it. */
export type InformerLookup = (resource: ResourceDescriptor) => SharedIndexInformer<KubernetesObject> | undefined;

export function newChildObjects(
  kube: KubeClient,
  fieldManager: string,
  informerOf: InformerLookup,
  controllerName: string,
): ChildObjects {
  const cacheOf = (resource: ResourceDescriptor) => {
    const informer = informerOf(resource);
    if (!informer) {
      throw new Error(
        `controller ${controllerName}: ${resource.kind} is not cached; add it to the hooks' owns (or watches) so its informer exists`,
      );
    }
    return informer.getIndexer();
  };
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- implements ChildObjects.get: the cache is untyped, C is the caller's kind
  const get = <C extends KubernetesObject>(
    resource: ResourceDescriptor,
    namespace: string | undefined,
    name: string,
  ): C | undefined =>
    cacheOf(resource).getByKey(objectKey(resource.namespaced ? namespace : undefined, name)) as C | undefined;
  return {
    get,
    list: <C extends KubernetesObject>(resource: ResourceDescriptor, namespace?: string) => {
      const cache = cacheOf(resource);
      return (namespace === undefined ? cache.list() : cache.byIndex("namespace", namespace)) as C[];
    },
    async apply<C extends KubernetesObject>(
      resource: ResourceDescriptor,
      desired: ApplyConfiguration<C>,
    ): Promise<ApplyOutcome<C>> {
      const name = desired.metadata.name;
      if (!name) throw new Error(`apply ${resource.kind}: desired object has no metadata.name`);
      const namespace = resource.namespaced ? desired.metadata.namespace : undefined;
      const cached = get<C>(resource, namespace, name);
      if (cached && sameAppliedFields(appliedFieldsOf(desired), extractApplied(cached, fieldManager))) {
        return { object: cached, changed: false };
      }
      const client = new ResourceClient<C>(kube, resource);
      const object = await client.patch(namespace, name, { type: "apply", body: desired, fieldManager, force: true });
      return { object, changed: true };
    },
    async delete(resource, namespace, name) {
      if (!get(resource, namespace, name)) return false;
      try {
        await new ResourceClient<KubernetesObject>(kube, resource).delete(
          resource.namespaced ? namespace : undefined,
          name,
        );
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      return true;
    },
  };
}

/** Keeps only `fieldManager`'s Apply entries of metadata.managedFields: enough for apply() to compare, a fraction of the size. */
export function keepManagedFieldsOf<T extends KubernetesObject>(fieldManager: string): (obj: T) => T {
  return (obj) => {
    const entries = obj.metadata?.managedFields;
    if (entries === undefined) return obj;
    const kept = entries.filter((e) => e.manager === fieldManager && e.operation === "Apply");
    const { managedFields: _all, ...metadata } = obj.metadata!;
    return { ...obj, metadata: kept.length > 0 ? { ...metadata, managedFields: kept } : metadata };
  };
}
