// @crdgen/runtime/envtest: a local etcd + kube-apiserver (plus controllers and kwok) for tests, benchmarks and the demo.
export * from "./binaries.js";
export * from "./control-plane.js";
export * from "./webhooks.js";
export { retryOnPortClash } from "./util.js";
