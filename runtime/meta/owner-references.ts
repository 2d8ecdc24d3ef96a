// Owner references (controller-runtime's controllerutil.SetControllerReference): children point at the object that
// manages them.
import type { V1OwnerReference } from "@kubernetes/client-node";
import type { KubernetesObject } from "../client/types.js";

/**
 * The controller ownerReference of `owner`: garbage collection deletes the child with its owner, and watches on
 * owned kinds map a child's events back to the owner's key through it.
 */
export function controllerOwnerReference(owner: KubernetesObject): V1OwnerReference {
  const { apiVersion, kind, metadata } = owner;
  if (!apiVersion || !kind || !metadata?.name || !metadata.uid) {
    throw new Error(
      `an owner needs apiVersion, kind, metadata.name and metadata.uid (got ${apiVersion ?? "?"} ${kind ?? "?"} ${metadata?.name ?? "?"})`,
    );
  }
  return { apiVersion, kind, name: metadata.name, uid: metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** The owner's ownerReference on `child` marked controller: true, if any. */
export function controllerOf(child: KubernetesObject): V1OwnerReference | undefined {
  return child.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}
