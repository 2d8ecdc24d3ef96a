// What the webhook server serves: one registration per URL path, built by admissionWebhooksFor and
// conversionWebhookFor, and what envtest and deploy manifests read to point the API server at it.
import type { ResourceDescriptor } from "../client/types.js";
import type { Logger } from "../log/logger.js";

export type WebhookType = "mutating" | "validating" | "conversion";

/** admissionregistration.k8s.io/v1 operations. */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** What the server hands a registration for one request. */
export interface WebhookRequestContext {
  /** Aborted when the request outlives the server's per-request timeout or the client goes away. */
  signal: AbortSignal;
  /** The server's logger with the request's uid and the webhook's path bound. */
  log: Logger;
  /**
   * Called when a hook panicked (an engine error such as a TypeError, or a thrown non-Error: see runtime/panic) and
   * the registration recovered it into a refusal, `panic: <value> [recovered]`: the server counts it in
   * controller_runtime_webhook_panics_total (conversion: controller_runtime_conversion_webhook_panics_total) and logs
   * it with its stack.
   */
  onPanic?: (value: unknown) => void;
}

export interface WebhookRegistration {
  /** The URL path: `/mutate-<group with - for .>-<version>-<kind lowercase>`, `/validate-...`, or `/convert`. */
  readonly path: string;
  readonly type: WebhookType;
  /** The resource served (for admission, the version the hooks are typed on; for conversion, the hub). */
  readonly resource: ResourceDescriptor;
  /** Admission only: the operations a webhook configuration's rule should list for this path. */
  readonly operations: readonly AdmissionOperation[];
  /**
   * Answers one decoded review (AdmissionReview or ConversionReview, v1) with the review to send back. Throws a
   * BadRequest (HTTP 400) when the body is not a review this webhook understands; a hook's own error becomes a
   * refusal inside the review, never a throw.
   */
  handle(review: unknown, context: WebhookRequestContext): Promise<unknown>;
}

/** The body is not a review the webhook can answer: the server replies 400 with this message. */
export class BadRequest extends Error {
  override name = "BadRequest";
}

/** kubebuilder's path convention (controller-runtime's generateMutatePath / generateValidatePath). */
export function admissionPath(
  type: "mutate" | "validate",
  resource: Pick<ResourceDescriptor, "group" | "version" | "kind">,
) {
  return `/${type}-${resource.group.replaceAll(".", "-")}-${resource.version}-${resource.kind.toLowerCase()}`;
}

/** controller-runtime serves every kind's conversion at one path. */
export const conversionPath = "/convert";
