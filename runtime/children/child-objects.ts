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

/**
 * What apply() takes for a descriptor of T, but for kind (which SameKind checks): T's apply configuration. A
 * descriptor without an object type (T is KubernetesObject) takes any fields, as before descriptors were typed.
 */
export type ChildApplyBody<T extends KubernetesObject> = Omit<ApplyConfiguration<T>, "kind"> &
  (KubernetesObject extends T ? Record<string, unknown> : unknown);

/**
 * When the kind expected (the descriptor's, else T's) and the body's are both literals, they must be the same: a
 * ConfigMap body fits a Secret's fields but is refused for builtinResources.secrets. A body whose kind is typed only
 * `string` (a function returning ApplyConfiguration<V1Secret>) is checked by its fields alone.
 */
export type SameKind<Kind extends string, BodyKind extends string> = string extends Kind
  ? unknown
  : string extends BodyKind
    ? unknown
    : [BodyKind] extends [Kind]
      ? unknown
      : { "the body's kind must be": Kind };

/** The kind a descriptor of T whose `kind` is Kind expects: the descriptor's literal, else T's. */
type ExpectedKind<T extends KubernetesObject, Kind extends string> = string extends Kind
  ? NonNullable<T["kind"]>
  : Kind;

/**
 * Children access for one controller; the hooks reach it as `ctx.children`. Each method takes the kind's descriptor
 * and is typed by it: get(builtinResources.deployments, ...) is a V1Deployment, apply(builtinResources.services, ...)
 * takes a Service's apply configuration.
 */
export interface ChildObjects {
  /** The cached object (owned or watched kinds only), or undefined. Read-only. */
  get<T extends KubernetesObject>(
    resource: ResourceDescriptor<T>,
    namespace: string | undefined,
    name: string,
  ): T | undefined;
  /** Cached objects of a kind, optionally in one namespace. Read-only. */
  list<T extends KubernetesObject>(resource: ResourceDescriptor<T>, namespace?: string): T[];
  /**
   * Server-side apply of `desired` with the controller's field manager (force: the operator owns these fields).
   * Skipped when the cached object already holds exactly these fields under this manager, so a steady-state
   * reconcile sends no request. `desired` must carry apiVersion, kind, metadata.name (and namespace).
   * T, Kind and BodyKind are inferred (from the descriptor, and the body's kind); `apply<T>(...)` checks fields only.
   */
  apply<T extends KubernetesObject, Kind extends string = string, BodyKind extends string = string>(
    resource: ResourceDescriptor<T> & { readonly kind: Kind },
    desired: NoInfer<ChildApplyBody<T>> & { kind: BodyKind } & NoInfer<SameKind<ExpectedKind<T, Kind>, BodyKind>>,
  ): Promise<ApplyOutcome<T>>;
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
  // The informers' caches hold KubernetesObject: the descriptor's T is what the caller's kind is.
  const get = <T extends KubernetesObject>(
    resource: ResourceDescriptor<T>,
    namespace: string | undefined,
    name: string,
  ): T | undefined =>
    cacheOf(resource).getByKey(objectKey(resource.namespaced ? namespace : undefined, name)) as T | undefined;
  return {
    get,
    list: <T extends KubernetesObject>(resource: ResourceDescriptor<T>, namespace?: string) => {
      const cache = cacheOf(resource);
      return (namespace === undefined ? cache.list() : cache.byIndex("namespace", namespace)) as T[];
    },
    async apply<T extends KubernetesObject>(
      resource: ResourceDescriptor<T>,
      body: ChildApplyBody<T> & { kind: string },
    ): Promise<ApplyOutcome<T>> {
      const desired = body as ApplyConfiguration<T>; // its kind was checked apart (SameKind)
      const name = desired.metadata.name;
      if (!name) throw new Error(`apply ${resource.kind}: desired object has no metadata.name`);
      const namespace = resource.namespaced ? desired.metadata.namespace : undefined;
      const cached = get(resource, namespace, name);
      if (cached && sameAppliedFields(appliedFieldsOf(desired), extractApplied(cached, fieldManager))) {
        return { object: cached, changed: false };
      }
      const client = new ResourceClient(kube, resource);
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
