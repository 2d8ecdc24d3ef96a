// AdmissionReviews as the API server sends them, for unit tests of admission hooks through the generated webhooks:
// the same path a request takes in the webhook server, without HTTPS.
import { randomUUID } from "node:crypto";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import { newLogger } from "../log/logger.js";
import type { AdmissionResponse, AdmissionReview, UserInfo } from "../webhook/admission.js";
import type { AdmissionOperation, WebhookRegistration } from "../webhook/registration.js";

export interface AdmissionReviewOptions<T extends KubernetesObject> {
  /** Default: UPDATE with both objects, CREATE with object only, DELETE with oldObject only. */
  operation?: AdmissionOperation;
  /** The object to be stored (absent on DELETE). */
  object?: T;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: T;
  /** Default: kubectl's user with a kubeadm cluster's admin certificate. */
  userInfo?: UserInfo;
  dryRun?: boolean;
  /** Default: a random UUID, as the API server's. */
  uid?: string;
}

/**
 * An admission.k8s.io/v1 AdmissionReview of `resource` (kind, resource, requestKind and requestResource all this
 * version's; name and namespace from the objects), with the objects as JSON on the wire (dates as strings).
 */
export function admissionReview<T extends KubernetesObject>(
  resource: ResourceDescriptor<T>,
  options: AdmissionReviewOptions<T>,
): AdmissionReview {
  const { object, oldObject } = options;
  const operation = options.operation ?? operationOf(object, oldObject);
  const kind = { group: resource.group, version: resource.version, kind: resource.kind };
  const gvr = { group: resource.group, version: resource.version, resource: resource.plural };
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: options.uid ?? randomUUID(),
      kind,
      resource: gvr,
      requestKind: kind,
      requestResource: gvr,
      ...nameAndNamespace(resource, (object ?? oldObject)?.metadata),
      operation,
      userInfo: options.userInfo ?? kubectlAdmin,
      ...(object ? { object: wire(object) } : {}),
      ...(oldObject ? { oldObject: wire(oldObject) } : {}),
      dryRun: options.dryRun ?? false,
      options: { apiVersion: "meta.k8s.io/v1", kind: `${operation[0]}${operation.slice(1).toLowerCase()}Options` },
    },
  };
}

const kubectlAdmin: UserInfo = {
  username: "kubernetes-admin",
  groups: ["kubeadm:cluster-admins", "system:authenticated"],
};

function operationOf(object: unknown, oldObject: unknown): AdmissionOperation {
  if (object && oldObject) return "UPDATE";
  if (object) return "CREATE";
  if (oldObject) return "DELETE";
  throw new Error("admissionReview: give object, oldObject or both");
}

function nameAndNamespace(
  resource: ResourceDescriptor,
  metadata: KubernetesObject["metadata"],
): { name?: string; namespace?: string } {
  return {
    ...(metadata?.name ? { name: metadata.name } : {}),
    ...(resource.namespaced && metadata?.namespace ? { namespace: metadata.namespace } : {}),
  };
}

/**
 * Sends `review` to one registration (an element of a generated new<Kind>AdmissionWebhooks) as the webhook server
 * does, and returns its response; throws when the answer is not an AdmissionReview response to this request.
 */
export async function admit(webhook: WebhookRegistration, review: AdmissionReview): Promise<AdmissionResponse> {
  const context = { signal: new AbortController().signal, log: newLogger({ write: () => undefined }) };
  const answer = (await webhook.handle(review, context)) as Partial<AdmissionReview> | undefined;
  const response = answer?.response;
  if (answer?.kind !== "AdmissionReview" || !response || response.uid !== review.request?.uid)
    throw new Error(`${webhook.path} did not answer the AdmissionReview ${review.request?.uid ?? ""}`);
  return response;
}

// A JSON round trip: what the API server sends (Dates become RFC 3339 strings).
const wire = (obj: KubernetesObject): unknown => JSON.parse(JSON.stringify(obj)) as unknown;
