// The member Leases of one sharding group on the API server: one coordination.k8s.io/v1 Lease per member, labelled with
// the group, carrying the buckets it holds and claims in annotations.
import type { KubeClient } from "../client/kube-client.js";
import { builtinResources } from "../client/builtin-resources.js";
import { resourcePath } from "../client/resource-client.js";
import { isNotFound } from "../client/api-error.js";

/** The label every member Lease of a group carries: its value is the group's name (--sharding). */
export const SHARDING_GROUP_LABEL = "sharding.crdgen.io/group";
/** The buckets the member reconciles (a hex bitmap, see bucket-set.ts). */
export const HELD_ANNOTATION = "sharding.crdgen.io/held";
/** The buckets the member asks for; it starts them once no other member holds or claims them. */
export const CLAIMED_ANNOTATION = "sharding.crdgen.io/claimed";
/** The group's bucket count, so that members configured differently notice. */
export const BUCKETS_ANNOTATION = "sharding.crdgen.io/buckets";

/** A member Lease, as much of coordination.k8s.io/v1 Lease as sharding reads and writes. */
export interface MemberLease {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string };
}

/** Reads and writes a group's member Leases; list() must be a consistent (quorum) read. */
export interface MemberLeaseStore {
  readonly description: string;
  list(signal?: AbortSignal): Promise<MemberLease[]>;
  /** Rejects with 409 when the name is taken. */
  create(lease: MemberLease, signal?: AbortSignal): Promise<MemberLease>;
  /** Sends metadata.resourceVersion: rejects with 409 when the Lease changed since. */
  update(lease: MemberLease, signal?: AbortSignal): Promise<MemberLease>;
  /** Deletes name if its resourceVersion is still resourceVersion (any version when undefined); gone already is fine. */
  delete(name: string, resourceVersion?: string, signal?: AbortSignal): Promise<void>;
}

export function kubeMemberLeaseStore(kube: KubeClient, namespace: string, group: string): MemberLeaseStore {
  const collection = resourcePath(builtinResources.leases, namespace);
  const item = (name: string) => resourcePath(builtinResources.leases, namespace, name);
  const sig = (signal: AbortSignal | undefined) => (signal ? { signal } : {});
  const typed = (lease: MemberLease) => ({ ...lease, apiVersion: "coordination.k8s.io/v1", kind: "Lease" });
  return {
    description: `${namespace}/${SHARDING_GROUP_LABEL}=${group}`,
    async list(signal) {
      // No resourceVersion: a quorum read, so it sees every write that finished before it (the claim protocol needs it).
      const list = await kube.request<{ items?: MemberLease[] | null }>({
        method: "GET",
        path: collection,
        query: { labelSelector: `${SHARDING_GROUP_LABEL}=${group}` },
        ...sig(signal),
      });
      return list.items ?? [];
    },
    create: (lease, signal) =>
      kube.request<MemberLease>({ method: "POST", path: collection, body: typed(lease), ...sig(signal) }),
    update: (lease, signal) =>
      kube.request<MemberLease>({ method: "PUT", path: item(lease.metadata.name), body: typed(lease), ...sig(signal) }),
    async delete(name, resourceVersion, signal) {
      try {
        await kube.request({
          method: "DELETE",
          path: item(name),
          body: {
            apiVersion: "v1",
            kind: "DeleteOptions",
            ...(resourceVersion ? { preconditions: { resourceVersion } } : {}),
          },
          ...sig(signal),
        });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
  };
}
