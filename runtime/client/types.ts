// Wire types shared by the client, the cache and generated code: objects, lists, list options, watch events.
import type { V1ObjectMeta, V1ListMeta } from "@kubernetes/client-node";

/** Any Kubernetes object as it travels on the wire. */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
}

/** A `<Kind>List` as the API server returns it from LIST. */
export interface KubernetesList<T extends KubernetesObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ListMeta;
  items: T[];
}

/** Query parameters of LIST and WATCH (meta/v1 ListOptions). */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  /**
   * Server-side sharding (KEP-5866, alpha gate ShardedListAndWatch): `shardRange(object.metadata.uid, '0x…', '0x…')`
   * joined by `||`. A server without the gate ignores it and sends everything.
   */
  shardSelector?: string;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** One line of a WATCH stream. For ERROR the object is a meta/v1 Status. */
export type WatchEvent<T extends KubernetesObject> =
  { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T } | { type: "ERROR"; object: Status };

/** meta/v1 Status: the body of every API error and of watch ERROR events. */
export interface Status {
  kind?: "Status";
  apiVersion?: string;
  status?: "Success" | "Failure";
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: Array<{ reason?: string; message?: string; field?: string }>;
    retryAfterSeconds?: number;
  };
}

// Type-only key of ResourceDescriptor's object type: declared, never defined, so no descriptor carries it at run time.
declare const objectType: unique symbol;

/**
 * What a generic client needs to know to build a resource's URL, and (in its type only) the object type T the resource
 * serves: the verbs that take a descriptor infer T from it, so `new ResourceClient(kube, builtinResources.deployments)`
 * is a client of V1Deployment. A descriptor declared without T (a plain object literal, or one typed
 * `ResourceDescriptor`) stands for KubernetesObject and fits every T, as before descriptors were typed.
 */
export interface ResourceDescriptor<T extends KubernetesObject = KubernetesObject> {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /**
   * Never present: carries T for inference. A method, so that a descriptor typed only `ResourceDescriptor` (T is
   * KubernetesObject) still fits every T, while the descriptors of unrelated kinds (Deployment, Service) do not mix.
   */
  [objectType]?(object: T): void;
}

/** x-kubernetes-int-or-string: a plain number or string (a port number or name, a count or a percentage). */
export type IntOrString = number | string;
