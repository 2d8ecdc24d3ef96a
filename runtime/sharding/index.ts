// @crdgen/runtime/sharding: one controller sharded across replicas (membership by Leases, the API server's shard
// selector, KEP-5866). runManager wires it from --sharding; this is for callers who build the pieces themselves.
export { type ShardField, fnv1a64, shardHashOf } from "./hash.js";
export { type HashRange, HASH_SPACE, rangesContain, shardSelector } from "./ranges.js";
export { DEFAULT_BUCKETS, assignBuckets } from "./assignment.js";
export { type MemberLease, type MemberLeaseStore, SHARDING_GROUP_LABEL, kubeMemberLeaseStore } from "./lease-store.js";
export {
  type ShardListener,
  type ShardMemberOptions,
  type ShardWorkload,
  type Sharding,
  ShardMember,
} from "./member.js";
