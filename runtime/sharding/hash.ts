// The hash the API server shards by (KEP-5866, k8s.io/apimachinery/pkg/sharding HashField): 64-bit FNV-1a over the
// UTF-8 bytes of the field's value (the uid, or the namespace), compared as a 16-digit lowercase hex number.

const encoder = new TextEncoder();

/**
 * Go's hash/fnv New64a over value's UTF-8 bytes. Computed on four 16-bit limbs in plain numbers (BigInt arithmetic
 * per byte costs ~9 µs per uid, too much for 100,000 objects): offset basis 0xcbf29ce484222325, prime 2^40 + 0x1b3.
 */
export function fnv1a64(value: string): bigint {
  let v0 = 0x2325;
  let v1 = 0x8422;
  let v2 = 0x9ce4;
  let v3 = 0xcbf2;
  let bytes: Uint8Array | undefined;
  const length = value.length;
  for (let i = 0; i < length; i++) {
    if (value.charCodeAt(i) > 0x7f) {
      bytes = encoder.encode(value);
      break;
    }
  }
  const count = bytes ? bytes.length : length;
  for (let i = 0; i < count; i++) {
    v0 ^= bytes ? (bytes[i] as number) : value.charCodeAt(i);
    const t0 = v0 * 0x1b3;
    let t1 = v1 * 0x1b3;
    let t2 = v2 * 0x1b3 + (v0 << 8);
    const t3 = v3 * 0x1b3 + (v1 << 8);
    t1 += t0 >>> 16;
    v0 = t0 & 0xffff;
    t2 += t1 >>> 16;
    v1 = t1 & 0xffff;
    v3 = (t3 + (t2 >>> 16)) & 0xffff;
    v2 = t2 & 0xffff;
  }
  return (BigInt(v3 * 0x10000 + v2) << 32n) | BigInt(v1 * 0x10000 + v0);
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
