// Bridges the REST client to the reflector: a ListerWatcher over one ResourceClient, scoped by namespace and selectors.
import { apiVersionOf, type ResourceClient } from "../client/resource-client.js";
import type { KubernetesObject } from "../client/types.js";
import type { SharedIndexInformerOptions } from "./informer.js";
import type { ListerWatcher } from "./listerwatcher.js";

/** Where an informer looks (client-go's WithNamespace / WithTweakListOptions) plus the informer's own options. */
export interface InformerScope {
  /** Watch one namespace; all namespaces when absent. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export type InformerOptions<T extends KubernetesObject> = InformerScope &
  Omit<SharedIndexInformerOptions<T>, "listerWatcher">;

export function listerWatcherFor<T extends KubernetesObject>(
  resource: ResourceClient<T>,
  scope: InformerScope = {},
): ListerWatcher<T> {
  const selectors = {
    ...(scope.labelSelector ? { labelSelector: scope.labelSelector } : {}),
    ...(scope.fieldSelector ? { fieldSelector: scope.fieldSelector } : {}),
  };
  return {
    objectType: { apiVersion: apiVersionOf(resource.resource), kind: resource.resource.kind },
    list: (options, signal) => resource.list(scope.namespace, { ...options, ...selectors }, signal),
    watch: (options, signal) => resource.watch(scope.namespace, { ...options, ...selectors }, signal),
  };
}

/** The informer factory key of a resource and scope: one informer per resource, namespace and selectors. */
export function informerKey(apiVersion: string, plural: string, scope: InformerScope = {}): string {
  return `${apiVersion}/${plural}?namespace=${scope.namespace ?? ""}&labelSelector=${scope.labelSelector ?? ""}&fieldSelector=${scope.fieldSelector ?? ""}`;
}
