// A ResourceClient with its namespace fixed: the verb sets generated per-kind clients expose.
import type { V1Scale } from "@kubernetes/client-node";
import type { Patch } from "./patch.js";
import type {
  DeleteCollectionOptions,
  DeleteOptions,
  PatchOptions,
  ResourceClient,
  WatchResourceOptions,
  WriteOptions,
} from "./resource-client.js";
import type { KubernetesList, KubernetesObject, ListOptions, Status, WatchEvent } from "./types.js";

/** The verbs of every resource, bound to one namespace (or to none for cluster-scoped kinds). */
export interface ObjectVerbs<T extends KubernetesObject, TList extends KubernetesList<T> = KubernetesList<T>> {
  get(name: string, signal?: AbortSignal): Promise<T>;
  list(options?: ListOptions, signal?: AbortSignal): Promise<TList>;
  create(obj: T, options?: WriteOptions): Promise<T>;
  update(obj: T, options?: WriteOptions): Promise<T>;
  patch(name: string, patch: Patch<T>, options?: PatchOptions): Promise<T>;
  delete(name: string, options?: DeleteOptions): Promise<T | Status>;
  deleteCollection(options?: DeleteCollectionOptions): Promise<TList | Status>;
  watch(options?: WatchResourceOptions, signal?: AbortSignal): AsyncIterable<WatchEvent<T>>;
}

/** Verbs of the status subresource (kinds whose CRD enables subresources.status). */
export interface StatusVerbs<T extends KubernetesObject> {
  updateStatus(obj: T, options?: WriteOptions): Promise<T>;
  patchStatus(name: string, patch: Patch<T>, options?: PatchOptions): Promise<T>;
}

/** Verbs of the scale subresource (kinds whose CRD enables subresources.scale). */
export interface ScaleVerbs {
  getScale(name: string): Promise<V1Scale>;
  updateScale(name: string, scale: V1Scale, options?: WriteOptions): Promise<V1Scale>;
}

export interface SubresourceFeatures {
  status: boolean;
  scale: boolean;
}

export type BoundVerbs<
  T extends KubernetesObject,
  TList extends KubernetesList<T>,
  F extends SubresourceFeatures,
> = ObjectVerbs<T, TList> &
  (F["status"] extends true ? StatusVerbs<T> : unknown) &
  (F["scale"] extends true ? ScaleVerbs : unknown);

/**
 * Fixes the namespace of a ResourceClient. Subresource verbs are attached only when the CRD enables them,
 * so calling a missing one is a type error instead of a 404 at runtime.
 */
/** The namespace-first verbs bindResourceVerbs needs: a ResourceClient, or the testing package's fake of one. */
export type NamespaceFirstVerbs<T extends KubernetesObject, TList extends KubernetesList<T>> = Pick<
  ResourceClient<T, TList>,
  | "get"
  | "list"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "deleteCollection"
  | "watch"
  | "updateStatus"
  | "patchStatus"
> &
  Partial<Pick<ResourceClient<T, TList>, "getScale" | "updateScale">>;

export function bindResourceVerbs<
  T extends KubernetesObject,
  TList extends KubernetesList<T>,
  F extends SubresourceFeatures,
>(rc: NamespaceFirstVerbs<T, TList>, namespace: string | undefined, features: F): BoundVerbs<T, TList, F> {
  const verbs: ObjectVerbs<T, TList> & Partial<StatusVerbs<T> & ScaleVerbs> = {
    get: (name, signal) => rc.get(namespace, name, signal),
    list: (options, signal) => rc.list(namespace, options, signal),
    create: (obj, options) => rc.create(namespace, obj, options),
    update: (obj, options) => rc.update(namespace, obj, options),
    patch: (name, patch, options) => rc.patch(namespace, name, patch, options),
    delete: (name, options) => rc.delete(namespace, name, options),
    deleteCollection: (options) => rc.deleteCollection(namespace, options),
    watch: (options, signal) => rc.watch(namespace, options, signal),
  };
  if (features.status) {
    verbs.updateStatus = (obj, options) => rc.updateStatus(namespace, obj, options);
    verbs.patchStatus = (name, patch, options) => rc.patchStatus(namespace, name, patch, options);
  }
  if (features.scale) {
    const { getScale, updateScale } = rc;
    if (!getScale || !updateScale)
      throw new Error(
        "bindResourceVerbs: the scale subresource was requested from a client without getScale/updateScale",
      );
    verbs.getScale = (name) => getScale.call(rc, namespace, name);
    verbs.updateScale = (name, scale, options) => updateScale.call(rc, namespace, name, scale, options);
  }
  return verbs as BoundVerbs<T, TList, F>;
}
