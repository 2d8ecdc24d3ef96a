// The envtest package: a local etcd + kube-apiserver for tests, benchmarks and the demo.
export * from "./binaries.js";
export * from "./control-plane.js";
export { retryOnPortClash } from "./util.js";
