// admissionWebhooksFor: kubebuilder's paths, typed hooks called per operation, defaulting answered with a JSON patch,
// refusals carrying the hook's Status (or controller-runtime's Denied), AdmissionReview fixtures as the API server
// sends them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { newLogger } from "@crdgen/runtime";
import {
  admissionPath,
  admissionWebhooksFor,
  BadRequest,
  field,
  Invalid,
  type AdmissionHookRequest,
  type AdmissionHooks,
  type AdmissionReview,
  type WebhookRegistration,
} from "@crdgen/runtime/webhook";
import { admissionReview, decodedPatch, widget, widgets, type Widget } from "./reviews.js";

const context = () => ({ signal: new AbortController().signal, log: newLogger({ write: () => undefined }) });

function byType(registrations: WebhookRegistration[], type: "mutating" | "validating"): WebhookRegistration {
  const found = registrations.find((r) => r.type === type);
  assert.ok(found, `a ${type} registration`);
  return found;
}

async function call(registration: WebhookRegistration, review: AdmissionReview): Promise<AdmissionReview> {
  return (await registration.handle(review, context())) as AdmissionReview;
}

test("paths follow kubebuilder's convention: /mutate-<group with - for .>-<version>-<kind lowercase>", () => {
  const cronJobs = { group: "batch.tutorial.kubebuilder.io", version: "v1", kind: "CronJob" };
  assert.equal(admissionPath("mutate", cronJobs), "/mutate-batch-tutorial-kubebuilder-io-v1-cronjob");
  assert.equal(admissionPath("validate", cronJobs), "/validate-batch-tutorial-kubebuilder-io-v1-cronjob");
});

test("registrations exist only for the hooks given, with the operations a configuration should list", () => {
  assert.deepEqual(admissionWebhooksFor(widgets, {}), []);
  const onlyDefault = admissionWebhooksFor<Widget>(widgets, { default: () => undefined });
  assert.deepEqual(
    onlyDefault.map((r) => [r.type, r.path, r.operations]),
    [["mutating", "/mutate-webhook-example-com-v1-widget", ["CREATE", "UPDATE"]]],
  );
  const create = admissionWebhooksFor<Widget>(widgets, { validateCreate: () => undefined });
  assert.deepEqual(
    create.map((r) => [r.type, r.path, r.operations]),
    [["validating", "/validate-webhook-example-com-v1-widget", ["CREATE", "UPDATE"]]],
  );
  const withDelete = admissionWebhooksFor<Widget>(widgets, { validateDelete: () => undefined });
  assert.deepEqual(withDelete[0]!.operations, ["CREATE", "UPDATE", "DELETE"]);
});

test("defaulting answers with the JSON patch from the sent object to the hook's result, and the request's uid", async () => {
  const seen: AdmissionHookRequest[] = [];
  const hooks: AdmissionHooks<Widget> = {
    default(obj, req) {
      seen.push(req);
      obj.spec.replicas ??= 1;
      obj.spec.engine ??= "mysql";
      obj.metadata!.labels = { ...obj.metadata!.labels, defaulted: "true" };
    },
  };
  const review = admissionReview("CREATE", widget("w1", { version: "8.0" }), undefined, { dryRun: true });
  const answer = await call(byType(admissionWebhooksFor(widgets, hooks), "mutating"), review);
  assert.equal(answer.apiVersion, "admission.k8s.io/v1");
  assert.equal(answer.kind, "AdmissionReview");
  assert.equal(answer.response?.uid, review.request!.uid);
  assert.equal(answer.response.allowed, true);
  assert.equal(answer.response.patchType, "JSONPatch");
  const ops = decodedPatch(answer) as Array<{ op: string; path: string; value: unknown }>;
  assert.deepEqual(
    [...ops].sort((a, b) => a.path.localeCompare(b.path)),
    [
      { op: "add", path: "/metadata/labels", value: { defaulted: "true" } },
      { op: "add", path: "/spec/engine", value: "mysql" },
      { op: "add", path: "/spec/replicas", value: 1 },
    ],
  );
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.operation, "CREATE");
  assert.equal(seen[0]!.dryRun, true);
  assert.equal(seen[0]!.name, "w1");
  assert.equal(seen[0]!.namespace, "default");
  assert.equal(seen[0]!.userInfo.username, "admin");
  assert.equal(seen[0]!.uid, review.request!.uid);
  assert.ok(seen[0]!.signal instanceof AbortSignal);
});

test("defaulting that changes nothing sends no patch, even though metadata timestamps reach the hook as Date", async () => {
  let created: unknown;
  const hooks: AdmissionHooks<Widget> = {
    default(obj) {
      created = obj.metadata?.creationTimestamp;
      obj.spec.replicas ??= 1;
    },
  };
  const answer = await call(
    byType(admissionWebhooksFor(widgets, hooks), "mutating"),
    admissionReview("UPDATE", widget("w1", { replicas: 2 }), widget("w1", { replicas: 1 })),
  );
  assert.ok(created instanceof Date, "creationTimestamp is a Date, as the client returns it");
  assert.equal(answer.response?.allowed, true);
  assert.equal(answer.response.patch, undefined);
  assert.equal(answer.response.patchType, undefined);
});

test("an async defaulting hook is awaited", async () => {
  const hooks: AdmissionHooks<Widget> = {
    async default(obj) {
      await new Promise((r) => setImmediate(r));
      obj.spec.version = "8.0.36";
    },
  };
  const answer = await call(
    byType(admissionWebhooksFor(widgets, hooks), "mutating"),
    admissionReview("CREATE", widget("w1", {})),
  );
  assert.deepEqual(decodedPatch(answer), [{ op: "add", path: "/spec/version", value: "8.0.36" }]);
});

test("a DELETE is never defaulted (as controller-runtime)", async () => {
  let calls = 0;
  const hooks: AdmissionHooks<Widget> = {
    default: () => {
      calls++;
    },
  };
  const answer = await call(
    byType(admissionWebhooksFor(widgets, hooks), "mutating"),
    admissionReview("DELETE", undefined, widget("w1", {})),
  );
  assert.equal(answer.response?.allowed, true);
  assert.equal(calls, 0);
});

test("validateCreate, validateUpdate and validateDelete get the right objects; warnings reach the response", async () => {
  const calls: string[] = [];
  const hooks: AdmissionHooks<Widget> = {
    validateCreate: (obj) => void calls.push(`create ${obj.spec.replicas}`),
    validateUpdate: (old, obj) => {
      calls.push(`update ${old.spec.replicas}->${obj.spec.replicas}`);
      return ["replicas changed"];
    },
    validateDelete: async (obj) => {
      calls.push(`delete ${obj.spec.replicas}`);
      return Promise.resolve(["deleting"]);
    },
  };
  const validating = byType(admissionWebhooksFor(widgets, hooks), "validating");
  const created = await call(validating, admissionReview("CREATE", widget("w1", { replicas: 1 })));
  const updated = await call(
    validating,
    admissionReview("UPDATE", widget("w1", { replicas: 2 }), widget("w1", { replicas: 1 })),
  );
  const deleted = await call(validating, admissionReview("DELETE", undefined, widget("w1", { replicas: 2 })));
  assert.deepEqual(calls, ["create 1", "update 1->2", "delete 2"]);
  assert.deepEqual(
    [created, updated, deleted].map((a) => [a.response?.allowed, a.response?.warnings]),
    [
      [true, undefined],
      [true, ["replicas changed"]],
      [true, ["deleting"]],
    ],
  );
});

test("a hook throwing Invalid refuses with the Status the API server would send (422, causes)", async () => {
  const hooks: AdmissionHooks<Widget> = {
    validateCreate(obj) {
      if ((obj.spec.replicas ?? 0) > 3)
        throw new Invalid({ group: "webhook.example.com", kind: "Widget" }, obj.metadata!.name!, [
          field.invalid("spec.replicas", obj.spec.replicas, "must be at most 3"),
        ]);
    },
  };
  const answer = await call(
    byType(admissionWebhooksFor(widgets, hooks), "validating"),
    admissionReview("CREATE", widget("w1", { replicas: 5 })),
  );
  assert.equal(answer.response?.allowed, false);
  assert.equal(answer.response.status?.code, 422);
  assert.equal(answer.response.status.reason, "Invalid");
  assert.equal(
    answer.response.status.message,
    'Widget.webhook.example.com "w1" is invalid: spec.replicas: Invalid value: 5: must be at most 3',
  );
  assert.deepEqual(answer.response.status.details?.causes, [
    { reason: "FieldValueInvalid", message: "Invalid value: 5: must be at most 3", field: "spec.replicas" },
  ]);
});

test("any other error refuses as controller-runtime's admission.Denied: 403 Forbidden with the error's message", async () => {
  const hooks: AdmissionHooks<Widget> = {
    validateCreate: () => Promise.reject(new Error("the registry is unreachable")),
    default: () => {
      throw new Error("no default for this engine");
    },
  };
  const registrations = admissionWebhooksFor(widgets, hooks);
  const review = admissionReview("CREATE", widget("w1", {}));
  for (const type of ["mutating", "validating"] as const) {
    const answer = await call(byType(registrations, type), review);
    assert.equal(answer.response?.allowed, false, type);
    assert.equal(answer.response.status?.code, 403, type);
    assert.equal(answer.response.status.reason, "Forbidden", type);
  }
  const answer = await call(byType(registrations, "validating"), review);
  assert.equal(answer.response?.status?.message, "the registry is unreachable");
});

// controller-runtime's admission Webhook.Handle with RecoverPanic (its default): Errored(500, "panic: <v>
// [recovered]"), the uid still set, WebhookPanics counted (here: onPanic, which the server turns into the counter).
test("a hook's panic is refused as controller-runtime's recovered panic: 500 `panic: <v> [recovered]`", async () => {
  const hooks: AdmissionHooks<Widget> = {
    default: (obj) => {
      // A bug: reading a property of what is not there throws the engine's TypeError.
      (obj.spec as unknown as { missing: { depth: number } }).missing.depth += 1;
    },
    validateCreate: () => {
      throw "not an Error"; // eslint-disable-line @typescript-eslint/only-throw-error -- a thrown non-Error panics
    },
    validateUpdate: () => {
      throw new TypeError("spec.engine is not supported", { cause: "thrown on purpose, with a cause" });
    },
  };
  const registrations = admissionWebhooksFor(widgets, hooks);
  const panics: unknown[] = [];
  const withPanics = { ...context(), onPanic: (value: unknown) => panics.push(value) };
  const review = admissionReview("CREATE", widget("w1", {}));
  const mutated = (await byType(registrations, "mutating").handle(review, withPanics)) as AdmissionReview;
  assert.equal(mutated.response?.uid, review.request!.uid);
  assert.equal(mutated.response.allowed, false);
  assert.deepEqual(mutated.response.status, {
    code: 500,
    message: "panic: TypeError: Cannot read properties of undefined (reading 'depth') [recovered]",
  });
  const validated = (await byType(registrations, "validating").handle(review, withPanics)) as AdmissionReview;
  assert.deepEqual(validated.response?.status, { code: 500, message: "panic: 'not an Error' [recovered]" });
  assert.equal(panics.length, 2);
  assert.ok(panics[0] instanceof TypeError);
  assert.equal(panics[1], "not an Error");

  // An engine error class built on purpose (it has a cause) is an error: Denied, not a panic.
  const update = admissionReview("UPDATE", widget("w1", {}), widget("w1", {}));
  const refused = (await byType(registrations, "validating").handle(update, withPanics)) as AdmissionReview;
  assert.equal(refused.response?.status?.code, 403);
  assert.equal(panics.length, 2);
});

test("a body that is not an AdmissionReview is a BadRequest; v1beta1 is served as v1; an unknown operation is refused", async () => {
  const validating = byType(admissionWebhooksFor<Widget>(widgets, { validateCreate: () => undefined }), "validating");
  await assert.rejects(validating.handle({ kind: "Pod" }, context()), BadRequest);
  await assert.rejects(validating.handle({ request: [] }, context()), /request is not an object/);
  const beta = admissionReview("CREATE", widget("w1", {})) as unknown as { apiVersion: string };
  beta.apiVersion = "admission.k8s.io/v1beta1";
  const betaAnswer = (await validating.handle(beta, context())) as AdmissionReview;
  assert.equal(betaAnswer.apiVersion, "admission.k8s.io/v1beta1");
  assert.equal(betaAnswer.response?.allowed, true);
  // controller-runtime's validator: Errored(400, unknown operation), never allowed.
  const none = (await validating.handle({ request: {} }, context())) as AdmissionReview;
  assert.deepEqual(none.response, { uid: "", allowed: false, status: { code: 400, message: 'unknown operation ""' } });
  const review = admissionReview("CREATE", widget("w1", {}));
  review.request!.object = null;
  const answer = (await validating.handle(review, context())) as AdmissionReview;
  assert.equal(answer.response?.allowed, false);
  assert.equal(answer.response.status?.code, 400);
  assert.match(answer.response.status.message ?? "", /has no object/);
});
