// admissionReview and admit: an AdmissionReview as the API server sends it, through an admission webhook's handler.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubernetesObject } from "@crdgen/runtime";
import { admissionReview, admit } from "@crdgen/runtime/testing";
import { admissionWebhooksFor, Invalid, field, type WebhookRegistration } from "@crdgen/runtime/webhook";

interface Widget extends KubernetesObject {
  spec: { size: number };
}
const widgets = { group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true };
const widget = (size: number): Widget => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "a", namespace: "ns", creationTimestamp: new Date("2026-01-02T03:04:05Z") },
  spec: { size },
});

test("admissionReview: the request of a CREATE, UPDATE or DELETE, from the objects given", () => {
  const create = admissionReview(widgets, { object: widget(1) }).request!;
  assert.equal(create.operation, "CREATE");
  assert.deepEqual(create.kind, { group: "example.com", version: "v1", kind: "Widget" });
  assert.deepEqual(create.requestResource, { group: "example.com", version: "v1", resource: "widgets" });
  assert.deepEqual([create.name, create.namespace, create.dryRun], ["a", "ns", false]);
  assert.match(create.uid, /^[0-9a-f-]{36}$/);
  assert.deepEqual(create.options, { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" });
  // On the wire a date is a string.
  assert.equal((create.object as Widget).metadata?.creationTimestamp, "2026-01-02T03:04:05.000Z");
  assert.equal(create.oldObject, undefined);

  const update = admissionReview(widgets, { object: widget(2), oldObject: widget(1) }).request!;
  assert.equal(update.operation, "UPDATE");
  assert.equal((update.oldObject as Widget).spec.size, 1);
  const remove = admissionReview(widgets, { oldObject: widget(1), dryRun: true }).request!;
  assert.deepEqual([remove.operation, remove.object, remove.dryRun], ["DELETE", undefined, true]);
  assert.throws(() => admissionReview(widgets, {}), { message: /give object, oldObject or both/ });
});

const webhooks: WebhookRegistration[] = admissionWebhooksFor<Widget>(widgets, {
  default(obj) {
    obj.spec.size ||= 1;
  },
  validateCreate(obj) {
    if (obj.spec.size > 3)
      throw new Invalid(widgets, "a", [field.invalid("spec.size", obj.spec.size, "must be at most 3")]);
    return ["checked"];
  },
});
const [mutating, validating] = webhooks as [WebhookRegistration, WebhookRegistration];

test("admit: the mutating webhook's response carries the defaulting patch", async () => {
  const response = await admit(mutating, admissionReview(widgets, { object: widget(0), uid: "u1" }));
  assert.equal(response.uid, "u1");
  assert.equal(response.allowed, true);
  const patch = JSON.parse(Buffer.from(response.patch!, "base64").toString()) as unknown;
  assert.deepEqual(patch, [{ op: "replace", path: "/spec/size", value: 1 }]);
});

test("admit: the validating webhook allows with warnings, or refuses with the hook's Status", async () => {
  const allowed = await admit(validating, admissionReview(widgets, { object: widget(2) }));
  assert.deepEqual([allowed.allowed, allowed.warnings], [true, ["checked"]]);
  const refused = await admit(validating, admissionReview(widgets, { object: widget(5) }));
  assert.equal(refused.allowed, false);
  assert.equal(refused.status?.code, 422);
  assert.match(String(refused.status.message), /spec.size: Invalid value: 5: must be at most 3/);
});

test("admit throws when the answer is not a response to the review sent", async () => {
  const review = admissionReview(widgets, { object: widget(1) });
  const wrong: WebhookRegistration = { ...mutating, handle: () => Promise.resolve({ kind: "AdmissionReview" }) };
  await assert.rejects(admit(wrong, review), { message: /did not answer the AdmissionReview/ });
});
