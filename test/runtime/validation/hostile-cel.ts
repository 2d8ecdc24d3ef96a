// Test helper (not a test): a kind whose CEL rules are legitimate on ordinary values and turn into unbounded work on
// hostile ones, and the validating webhook a generated operator serves for it (validateCreate calling
// validate<Kind>(), as templates/webhooks.ts.hbs writes it). Shared by the webhook test and bench/cel-cost.ts.
import { newLogger, type KubernetesObject, type ResourceDescriptor } from "@crdgen/runtime";
import { validateResource } from "@crdgen/runtime/validation";
import { admissionWebhooksFor, Invalid, type AdmissionReview, type WebhookRegistration } from "@crdgen/runtime/webhook";
import { versionValidation } from "./support.js";

export const hostiles: ResourceDescriptor = {
  group: "hostile.crdgen.dev",
  version: "v1",
  plural: "hostiles",
  kind: "Hostile",
  namespaced: true,
};

const rules = (...rule: string[]) => ({ "x-kubernetes-validations": rule.map((r) => ({ rule: r })) });
const text = { type: "string" };
const texts = { type: "array", items: text };
const numbers = { type: "array", items: { type: "integer" } };

/** One property per rule, so that each object below reaches exactly one of them. */
const hostileVersion = versionValidation({
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        squared: { ...text, ...rules("self.replace('', self).size() > 0") },
        doubled: { ...text, ...rules("self.replace('', self+self).size() > 0") },
        joined: {
          type: "object",
          properties: { text, words: texts },
          ...rules("self.words.map(w, self.text).join() != ''"),
        },
        concatenated: {
          type: "object",
          properties: { text, words: texts },
          ...rules("self.words.all(w, (self.text + self.text + w).size() > 0)"),
        },
        sized: {
          type: "object",
          properties: { text, numbers },
          ...rules("self.numbers.all(n, self.text.size() > 0)"),
        },
      },
    },
  },
});

const repeat = (n: number) => "a".repeat(n);
const many = <T>(n: number, value: T): T[] => Array<T>(n).fill(value);

/** Objects that make the rules above build results of gigabytes, or run for minutes, unless refused. */
export const hostileSpecs: Record<string, unknown> = {
  "replace('', self) on 20,000 characters": { squared: repeat(20_000) },
  "replace('', self+self) on 12,000 characters": { doubled: repeat(12_000) },
  "join() of a 100,000-character string repeated 2,000 times": {
    joined: { text: repeat(100_000), words: many(2000, "") },
  },
  "a 400,000-character concatenation per item of 100,000": {
    concatenated: { text: repeat(200_000), words: many(100_000, "") },
  },
  "size() of 1,000,000 characters per item of 100,000": {
    sized: { text: repeat(1_000_000), numbers: many(100_000, 0) },
  },
};

/** The same rules on ordinary values: they run, pass, and the object is admitted. */
export const ordinarySpec = {
  squared: "abc",
  doubled: "abc",
  joined: { text: "ab", words: ["x", "y"] },
  concatenated: { text: "ab", words: ["x", "y"] },
  sized: { text: "ab", numbers: [1, 2] },
};

/** The validating webhook of the generated operator: validate<Kind>() on create, refused with its errors. */
export function hostileWebhook(): WebhookRegistration {
  const [registration] = admissionWebhooksFor<KubernetesObject>(hostiles, {
    validateCreate(obj) {
      const result = validateResource(obj, hostileVersion);
      if (!result.valid) throw new Invalid(hostiles, obj.metadata?.name ?? "", result.errors);
      return [];
    },
  });
  return registration!;
}

let serial = 0;

/** The AdmissionReview the API server sends to create a Hostile with this spec. */
export function createReview(spec: unknown): AdmissionReview {
  const object = {
    apiVersion: "hostile.crdgen.dev/v1",
    kind: "Hostile",
    metadata: { name: "h", namespace: "ns" },
    spec,
  };
  const gvk = { group: hostiles.group, version: hostiles.version, kind: hostiles.kind };
  const gvr = { group: hostiles.group, version: hostiles.version, resource: hostiles.plural };
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `00000000-0000-4000-8000-${String(++serial).padStart(12, "0")}`,
      kind: gvk,
      resource: gvr,
      requestKind: gvk,
      requestResource: gvr,
      name: "h",
      namespace: "ns",
      operation: "CREATE",
      userInfo: { username: "someone", groups: ["system:authenticated"] },
      object,
      oldObject: null,
      dryRun: false,
      options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
    },
  };
}

/** Sends one review through the webhook's handler, as its HTTP server would. */
export async function admit(registration: WebhookRegistration, review: AdmissionReview): Promise<AdmissionReview> {
  const context = { signal: new AbortController().signal, log: newLogger({ write: () => undefined }) };
  return (await registration.handle(review, context)) as AdmissionReview;
}
