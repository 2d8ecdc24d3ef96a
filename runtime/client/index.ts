// @crdgen/runtime/client: the REST client (KubeClient and its HTTP implementation), ResourceClient, bound verbs,
// patches, API errors and retries. The root re-exports what an operator author uses.
export * from "./types.js";
export * from "./api-error.js";
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
export * from "./retry.js";
export * from "./resource-client.js";
export * from "./bound-verbs.js";
export * from "./builtin-resources.js";
// Exported for the runtime's own tests: the streaming decoders and the identity-string pool behind list and watch.
export { LineSplitter, LineTooLongError } from "./ndjson.js";
export { ListDecoder } from "./list-decoder.js";
export { StringPool, shareIdentityStrings } from "./string-pool.js";
export { reviveObjectMeta, reviveListMeta } from "./object-meta-dates.js";
