// The admissionregistration.k8s.io/v1 objects and the CRD conversion stanza that point the API server at the
// registrations: used by envtest (a URL on loopback and a caBundle) and by deploy manifests (a Service).
import type { KubernetesObject } from "../client/types.js";
import type { WebhookRegistration } from "./registration.js";

/** Where the API server sends a webhook's requests: a URL, or a Service (path appended by the function). */
export type WebhookClientConfig =
  | { url: string; caBundle?: string }
  | { service: { name: string; namespace: string; port?: number; path?: string }; caBundle?: string };

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }>;
}

export interface WebhookConfigurationOptions {
  /** metadata.name of both configuration objects. */
  name: string;
  /** The client config for one path, e.g. `(path) => ({ url: "https://127.0.0.1:9443" + path, caBundle })`. */
  clientConfig: (path: string) => WebhookClientConfig;
  /** Default "Fail" (the API server's default for v1). */
  failurePolicy?: "Fail" | "Ignore";
  /** Default "None": the hooks have no side effects outside the object (required for dry-run requests). */
  sideEffects?: "None" | "NoneOnDryRun";
  /** Default 10 (the API server's maximum is 30). */
  timeoutSeconds?: number;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  /** metadata.annotations, e.g. cert-manager's `cert-manager.io/inject-ca-from: <namespace>/<certificate>`. */
  annotations?: Record<string, string>;
}

/** Webhook names must be qualified (three segments or more): kubebuilder's `m<kind>-<version>.kb.io` style. */
function webhookName(w: WebhookRegistration): string {
  const prefix = `${w.type === "mutating" ? "m" : "v"}${w.resource.kind.toLowerCase()}-${w.resource.version}`;
  return w.resource.group.includes(".")
    ? `${prefix}.${w.resource.group}`
    : `${prefix}.${w.resource.group || "core"}.crdgen.io`;
}

/**
 * A MutatingWebhookConfiguration and a ValidatingWebhookConfiguration (each only when some registration needs it)
 * with one webhook per admission registration: its operations on the resource's group, version and plural,
 * admissionReviewVersions ["v1"], matchPolicy Equivalent (requests in other versions are converted to this one).
 */
export function webhookConfigurationsFor(
  webhooks: readonly WebhookRegistration[],
  options: WebhookConfigurationOptions,
): KubernetesObject[] {
  const entry = (w: WebhookRegistration) => ({
    name: webhookName(w),
    admissionReviewVersions: ["v1"],
    clientConfig: options.clientConfig(w.path),
    failurePolicy: options.failurePolicy ?? "Fail",
    matchPolicy: "Equivalent",
    sideEffects: options.sideEffects ?? "None",
    timeoutSeconds: options.timeoutSeconds ?? 10,
    rules: [
      {
        operations: [...w.operations],
        apiGroups: [w.resource.group],
        apiVersions: [w.resource.version],
        resources: [w.resource.plural],
        scope: w.resource.namespaced ? "Namespaced" : "Cluster",
      },
    ],
    ...(options.namespaceSelector ? { namespaceSelector: options.namespaceSelector } : {}),
    ...(options.objectSelector ? { objectSelector: options.objectSelector } : {}),
  });
  const metadata = { name: options.name, ...(options.annotations ? { annotations: { ...options.annotations } } : {}) };
  const out: KubernetesObject[] = [];
  const mutating = webhooks.filter((w) => w.type === "mutating");
  const validating = webhooks.filter((w) => w.type === "validating");
  if (mutating.length > 0)
    out.push({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata,
      webhooks: mutating.map((w) => ({ ...entry(w), reinvocationPolicy: "Never" })),
    } as KubernetesObject);
  if (validating.length > 0)
    out.push({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: structuredClone(metadata),
      webhooks: validating.map(entry),
    } as KubernetesObject);
  return out;
}

/** The CRD's spec.conversion for a conversion webhook: strategy Webhook, ConversionReview v1 only. */
export function crdConversionFor(clientConfig: WebhookClientConfig): {
  strategy: "Webhook";
  webhook: { clientConfig: WebhookClientConfig; conversionReviewVersions: string[] };
} {
  return { strategy: "Webhook", webhook: { clientConfig, conversionReviewVersions: ["v1"] } };
}
