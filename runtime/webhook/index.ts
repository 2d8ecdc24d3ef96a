// @crdgen/runtime/webhook: admission (defaulting, validating) and conversion webhooks, and the HTTPS server for them.
//
// The contract, for generated code and `<kind>.webhooks.ts` / `<kind>.conversion.ts`:
//
// - admissionWebhooksFor(resource, hooks) → registrations at kubebuilder's paths, `/mutate-<group with - for .>-
//   <version>-<kind lowercase>` (when hooks.default exists; operations CREATE, UPDATE) and `/validate-...` (when a
//   validate hook exists; CREATE, UPDATE, plus DELETE with validateDelete). Hooks get typed objects and an
//   AdmissionHookRequest (uid, operation, userInfo, dryRun, namespace, name, signal). `default` changes the object in
//   place and the runtime answers with the JSON patch; validate hooks return Warnings (string[]) or nothing. To
//   refuse, throw `new Invalid({ group, kind }, name, [field.invalid("spec.replicas", 5, "must be at most 3")])`
//   (422, reason Invalid, Status.details.causes, worded as the API server's), `Forbidden` (403) or any StatusError;
//   any other error refuses with 403 and its message (controller-runtime's admission.Denied); a panic (runtime/panic:
//   a TypeError and the like) with 500 `panic: <value> [recovered]`, counted and logged by the server.
// - conversionWebhookFor(resource, { hub, spokes: { v1alpha1: { toHub, fromHub } } }) → the registration at
//   `/convert` (ConversionReview v1). Every pair converts through the hub. The runtime sets apiVersion, kind and
//   metadata, and keeps the hub fields a spoke cannot hold in the `<group>/conversion-data` annotation
//   (conversionDataAnnotation), so hub → spoke → hub loses nothing without code in the spoke's functions.
// - startWebhookServer({ webhooks, port: 9443, certDir, ... }) → an HTTPS server (tls.crt / tls.key in certDir,
//   reloaded when they change), 10 s per request, 7 MiB bodies, controller-runtime's 32 s for the TLS handshake and
//   headers and 90 s idle keep-alive, at most 1024 open connections (server-limits.ts), one debug log line per request
//   with its uid, controller_runtime_webhook_{requests_total,latency_seconds,requests_in_flight,panics_total} and
//   controller_runtime_conversion_webhook_panics_total. A malformed admission request is answered HTTP 200 with a
//   review that is not allowed (as controller-runtime: failurePolicy Ignore must not admit it). The manager runs one
//   beside the controllers with ManagerConfig.webhooks (its /readyz/webhook passes once a TLS handshake completes).
export {
  admissionWebhooksFor,
  type AdmissionHooks,
  type AdmissionHookRequest,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReview,
  type UserInfo,
  type Warnings,
} from "./admission.js";
export {
  conversionWebhookFor,
  conversionDataAnnotation,
  type ConversionReview,
  type HubAndSpokes,
  type SpokeConversion,
} from "./conversion.js";
export {
  field,
  Forbidden,
  Invalid,
  StatusError,
  type FieldError,
  type FieldErrorType,
  type GroupKind,
} from "./errors.js";
export {
  admissionPath,
  BadRequest,
  conversionPath,
  type AdmissionOperation,
  type WebhookRegistration,
  type WebhookRequestContext,
  type WebhookType,
} from "./registration.js";
export {
  DEFAULT_CERT_POLL_INTERVAL_MS,
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_WEBHOOK_PORT,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  defaultWebhookCertDir,
  startWebhookServer,
  type WebhookServer,
  type WebhookServerOptions,
} from "./server.js";
export {
  crdConversionFor,
  webhookConfigurationsFor,
  type LabelSelector,
  type WebhookClientConfig,
  type WebhookConfigurationOptions,
} from "./configuration.js";
