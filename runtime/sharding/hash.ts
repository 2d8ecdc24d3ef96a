// The hash the API server shards by (KEP-5866, k8s.io/apimachinery/pkg/sharding HashField): 64-bit FNV-1a over the
// UTF-8 bytes of the field's value (the uid, or the namespace), compared as a 16-digit lowercase hex number.

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const encoder = new TextEncoder();

/** Go's hash/fnv New64a over value's UTF-8 bytes. */
export function fnv1a64(value: string): bigint {
  let hash = FNV64_OFFSET;
  for (const byte of encoder.encode(value)) {
    hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * FNV64_PRIME);
  }
  return hash;
}

/** The field a shard selector hashes: the object's uid, or (namespace mode) its namespace. */
export type ShardField = "uid" | "namespace";

/** The selector's name for a field ("object.metadata.uid"). */
export function shardFieldPath(field: ShardField): string {
  return `object.metadata.${field}`;
}

/** The hash of an object's shard field, as the API server computes it ("" for a cluster-scoped object's namespace). */
export function shardHashOf(obj: { metadata?: { uid?: string; namespace?: string } }, field: ShardField): bigint {
  return fnv1a64((field === "uid" ? obj.metadata?.uid : obj.metadata?.namespace) ?? "");
}
