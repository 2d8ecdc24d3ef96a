// Which member of a sharding group holds an object, read from the group's member Leases as every member reads them:
// each Lease's sharding.crdgen.io/held annotation is a hex bitmap of hash-space buckets (bucket 0 the top bit of the
// first digit), a bucket the top bits of the object's 64-bit FNV-1a hash. For the demo's and the tests' tables.
import type { V1Lease } from "@kubernetes/client-node";
import { ResourceClient, builtinResources, type KubeClient, type KubernetesObject } from "@crdgen/runtime";
import { DEFAULT_BUCKETS, SHARDING_GROUP_LABEL, shardHashOf } from "@crdgen/runtime/sharding";

const HELD = "sharding.crdgen.io/held";
const BUCKETS = "sharding.crdgen.io/buckets";

/** One member as its Lease says: its name and the buckets it reconciles now. */
export interface MemberHolding {
  member: string;
  buckets: number;
  held: Set<number>;
}

/** The buckets a held annotation names; a malformed one is none. */
function decodeHeld(value: string | undefined, buckets: number): Set<number> {
  const held = new Set<number>();
  if (!value || !/^[0-9a-f]*$/.test(value)) return held;
  for (let b = 0; b < Math.min(buckets, value.length * 4); b++)
    if (parseInt(value[b >> 2]!, 16) & (8 >> (b & 3))) held.add(b);
  return held;
}

/** The group's members and what each holds, from its Leases in namespace. */
export async function memberHoldings(kube: KubeClient, namespace: string, group: string): Promise<MemberHolding[]> {
  const leases = await new ResourceClient<V1Lease>(kube, builtinResources.leases).list(namespace, {
    labelSelector: `${SHARDING_GROUP_LABEL}=${group}`,
  });
  return leases.items.map((lease) => {
    const annotations = lease.metadata?.annotations ?? {};
    const buckets = Number(annotations[BUCKETS] ?? DEFAULT_BUCKETS);
    return { member: lease.metadata?.name ?? "", buckets, held: decodeHeld(annotations[HELD], buckets) };
  });
}

/** The bucket of object (hashing its uid) in a space of `buckets` (a power of two). */
export function bucketOf(object: KubernetesObject, buckets: number): number {
  const bits = BigInt(Math.log2(buckets));
  return Number(shardHashOf(object, "uid") >> (64n - bits));
}

/** The members holding object's bucket: exactly one once the group is settled, none during a handover. */
export function holdersOf(object: KubernetesObject, holdings: readonly MemberHolding[]): string[] {
  return holdings.filter((h) => h.held.has(bucketOf(object, h.buckets))).map((h) => h.member);
}
