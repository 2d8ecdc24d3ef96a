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

/** What a generic client needs to know to build a resource's URL. */
export interface ResourceDescriptor {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

/** x-kubernetes-int-or-string: a plain number or string (a port number or name, a count or a percentage). */
export type IntOrString = number | string;
