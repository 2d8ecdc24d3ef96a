// @crdgen/runtime/envtest: a local etcd + kube-apiserver (plus controllers, and kwok or a real node) for tests,
// benchmarks and the demo.
export {
  type ControlPlaneBinary,
  MissingBinaryError,
  controlPlaneCacheDir,
  defaultKubeVersion,
  findBinary,
} from "./binaries.js";
export { type ControlPlane, type ControlPlaneOptions, startControlPlane } from "./control-plane.js";
export { localPathStorageClass } from "./local-path-provisioner.js";
export {
  type WebhookCertificateOptions,
  type WebhookCertificates,
  type WebhookEnvironment,
  type WebhookEnvironmentOptions,
  makeWebhookCertificates,
  startWebhookEnvironment,
} from "./webhooks.js";
