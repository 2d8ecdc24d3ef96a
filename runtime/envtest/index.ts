// @crdgen/runtime/envtest: a local etcd + kube-apiserver (plus controllers, and kwok or a real node) for tests,
// benchmarks and the demo.
export * from "./binaries.js";
export * from "./control-plane.js";
export { localPathStorageClass } from "./local-path-provisioner.js";
export { realNodeGateway } from "./real-node.js";
export * from "./webhooks.js";
export { retryOnPortClash } from "./util.js";
