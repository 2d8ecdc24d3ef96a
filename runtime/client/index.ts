// @crdgen/runtime/client: the REST client (KubeClient and its HTTP implementation), ResourceClient, bound verbs,
// patches, API errors and retries. The root re-exports what an operator author uses. The streaming decoders and the
// identity-string pool behind list and watch are internals (their tests import #runtime/client/...).
export type {
  KubernetesObject,
  KubernetesList,
  ListOptions,
  WatchEventType,
  WatchEvent,
  Status,
  ResourceDescriptor,
  IntOrString,
} from "./types.js";
export {
  ApiError,
  type ApiErrorInit,
  type StatusReason,
  TransportError,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isGone,
  isInvalid,
  isForbidden,
  ignoreNotFound,
} from "./api-error.js";
export {
  type KubeClient,
  HttpKubeClient,
  type KubeClientOptions,
  type LoadKubeClientOptions,
  type RequestOptions,
  type WatchOptions,
  type ResponseInfo,
  type Impersonation,
  type HttpMethod,
  type Query,
  type QueryValue,
  loadKubeClient,
  serviceAccountUser,
} from "./kube-client.js";
export { KubeconfigError } from "./kubeconfig-error.js";
export { type RequestMetrics, registerRequestMetrics } from "./request-metrics.js";
export { CREDENTIALS_OVER_HTTP_EXTENSION, kubeconfigCredentialsOverHttp } from "./plain-http.js";
// What HttpKubeClient.fromKubeConfig takes and HttpKubeClient.kubeConfig is: client-node's KubeConfig has it.
export type { KubeConfigView } from "./light-kube-config.js";
export {
  type DeepPartial,
  type MergePatch,
  type ApplyConfiguration,
  type JsonPatchOperation,
  type Patch,
  type PatchType,
  jsonPointer,
} from "./patch.js";
export { type RetryBackoff, defaultRetry, retryOnConflict, retryOnError } from "./retry.js";
export {
  ResourceClient,
  type Subresource,
  type WriteOptions,
  type PatchOptions,
  type PropagationPolicy,
  type DeleteOptions,
  type DeleteCollectionOptions,
  type WatchResourceOptions,
  apiVersionOf,
  groupResource,
  resourcePath,
} from "./resource-client.js";
export {
  bindResourceVerbs,
  type BoundVerbs,
  type ObjectVerbs,
  type StatusVerbs,
  type ScaleVerbs,
  type SubresourceFeatures,
  type NamespaceFirstVerbs,
} from "./bound-verbs.js";
export { builtinResources } from "./builtin-resources.js";
