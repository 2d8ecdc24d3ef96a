// @crdgen/runtime: everything crdgen-generated operators import. The data path, in order:
// client (REST over a KubeConfig) -> cache (reflector, store/indexer, informer, lister)
// -> workqueue (dedup, delays, rate limits) -> controller (workers calling reconcile).
export * from "./client/index.js";
export * from "./cache/index.js";
export * from "./workqueue/index.js";
export * from "./controller/index.js";
export * from "./manager/index.js";
