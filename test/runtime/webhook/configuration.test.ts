// webhookConfigurationsFor and crdConversionFor: the objects that point the API server at the registrations.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubernetesObject } from "@crdgen/runtime";
import {
  admissionWebhooksFor,
  conversionWebhookFor,
  crdConversionFor,
  webhookConfigurationsFor,
} from "@crdgen/runtime/webhook";
import { widgets, type Widget } from "./reviews.js";

type Configuration = KubernetesObject & { webhooks: Array<Record<string, unknown>> };

const registrations = [
  ...admissionWebhooksFor<Widget>(widgets, { default: () => undefined, validateDelete: () => undefined }),
  conversionWebhookFor(widgets, { hub: "v1", spokes: {} }),
];

test("one mutating and one validating configuration, a webhook per registration, the API server's defaults", () => {
  const [mutating, validating] = webhookConfigurationsFor(registrations, {
    name: "widgets",
    clientConfig: (p) => ({ url: `https://127.0.0.1:9443${p}`, caBundle: "Q0E=" }),
  }) as Configuration[];
  assert.equal(mutating?.kind, "MutatingWebhookConfiguration");
  assert.equal(mutating.apiVersion, "admissionregistration.k8s.io/v1");
  assert.deepEqual(mutating.metadata, { name: "widgets" });
  assert.deepEqual(mutating.webhooks, [
    {
      name: "mwidget-v1.webhook.example.com",
      admissionReviewVersions: ["v1"],
      clientConfig: { url: "https://127.0.0.1:9443/mutate-webhook-example-com-v1-widget", caBundle: "Q0E=" },
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      sideEffects: "None",
      timeoutSeconds: 10,
      rules: [
        {
          operations: ["CREATE", "UPDATE"],
          apiGroups: ["webhook.example.com"],
          apiVersions: ["v1"],
          resources: ["widgets"],
          scope: "Namespaced",
        },
      ],
      reinvocationPolicy: "Never",
    },
  ]);
  assert.equal(validating?.kind, "ValidatingWebhookConfiguration");
  assert.equal(validating.webhooks[0]!["name"], "vwidget-v1.webhook.example.com");
  assert.deepEqual((validating.webhooks[0]!["rules"] as Array<{ operations: string[] }>)[0]!.operations, [
    "CREATE",
    "UPDATE",
    "DELETE",
  ]);
});

test("options: a Service client config, failurePolicy, timeout, selectors and cert-manager's annotation", () => {
  const [mutating] = webhookConfigurationsFor(registrations.slice(0, 1), {
    name: "widgets",
    clientConfig: (p) => ({ service: { name: "webhook-service", namespace: "system", path: p } }),
    failurePolicy: "Ignore",
    timeoutSeconds: 5,
    namespaceSelector: { matchLabels: { webhooks: "on" } },
    objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
    annotations: { "cert-manager.io/inject-ca-from": "system/serving-cert" },
  }) as Configuration[];
  assert.deepEqual(mutating?.metadata?.annotations, { "cert-manager.io/inject-ca-from": "system/serving-cert" });
  const hook = mutating.webhooks[0]!;
  assert.deepEqual(hook["clientConfig"], {
    service: { name: "webhook-service", namespace: "system", path: "/mutate-webhook-example-com-v1-widget" },
  });
  assert.equal(hook["failurePolicy"], "Ignore");
  assert.equal(hook["timeoutSeconds"], 5);
  assert.deepEqual(hook["namespaceSelector"], { matchLabels: { webhooks: "on" } });
  assert.deepEqual(hook["objectSelector"], { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] });
  assert.equal(
    webhookConfigurationsFor(registrations.slice(2), { name: "x", clientConfig: () => ({ url: "" }) }).length,
    0,
  );
});

test("the CRD's conversion: strategy Webhook, ConversionReview v1 only", () => {
  assert.deepEqual(crdConversionFor({ url: "https://127.0.0.1:9443/convert", caBundle: "Q0E=" }), {
    strategy: "Webhook",
    webhook: {
      clientConfig: { url: "https://127.0.0.1:9443/convert", caBundle: "Q0E=" },
      conversionReviewVersions: ["v1"],
    },
  });
});
