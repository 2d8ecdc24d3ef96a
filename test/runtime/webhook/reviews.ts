// Test helper (not a test): AdmissionReview and ConversionReview v1 requests shaped as kube-apiserver sends them, for a
// small test kind Widget (webhook.example.com) served as v1 (storage) and v1alpha1.
import type { AdmissionOperation, AdmissionReview, ConversionReview } from "@crdgen/runtime/webhook";
import type { KubernetesObject, ResourceDescriptor } from "@crdgen/runtime";

export const widgets: ResourceDescriptor = {
  group: "webhook.example.com",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

export interface Widget extends KubernetesObject {
  spec: { replicas?: number; version?: string; engine?: string };
}

export interface WidgetV1alpha1 extends KubernetesObject {
  spec: { size?: number; image?: string };
}

export function widget(name: string, spec: Widget["spec"], extra: Partial<Widget["metadata"]> = {}): Widget {
  return {
    apiVersion: "webhook.example.com/v1",
    kind: "Widget",
    metadata: {
      name,
      namespace: "default",
      uid: "6f1c2a8e-0000-4000-8000-000000000001",
      creationTimestamp: "2026-01-02T03:04:05Z" as unknown as Date,
      ...extra,
    },
    spec,
  };
}

let serial = 0;

/** The review the API server sends for operation on obj (UPDATE: oldObj → obj; DELETE: oldObj only). */
export function admissionReview(
  operation: AdmissionOperation,
  obj: Widget | undefined,
  oldObj?: Widget,
  extra: { dryRun?: boolean; username?: string } = {},
): AdmissionReview {
  const named = obj ?? oldObj;
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `0d4d3f1e-1111-4000-8000-${String(++serial).padStart(12, "0")}`,
      kind: { group: "webhook.example.com", version: "v1", kind: "Widget" },
      resource: { group: "webhook.example.com", version: "v1", resource: "widgets" },
      requestKind: { group: "webhook.example.com", version: "v1", kind: "Widget" },
      requestResource: { group: "webhook.example.com", version: "v1", resource: "widgets" },
      name: named?.metadata?.name ?? "",
      namespace: "default",
      operation,
      userInfo: { username: extra.username ?? "admin", groups: ["system:masters", "system:authenticated"] },
      object: operation === "DELETE" ? null : structuredClone(obj),
      oldObject: operation === "CREATE" ? null : structuredClone(oldObj),
      dryRun: extra.dryRun ?? false,
      options: { apiVersion: "meta.k8s.io/v1", kind: operation === "DELETE" ? "DeleteOptions" : "CreateOptions" },
    },
  };
}

export function conversionReview(desiredAPIVersion: string, objects: unknown[]): ConversionReview {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: { uid: `7a1b0c2d-2222-4000-8000-${String(++serial).padStart(12, "0")}`, desiredAPIVersion, objects },
  };
}

/** The JSON patch an admission response carries, decoded. */
export function decodedPatch(review: unknown): unknown {
  const patch = (review as AdmissionReview).response?.patch;
  return patch === undefined ? undefined : JSON.parse(Buffer.from(patch, "base64").toString("utf8"));
}
