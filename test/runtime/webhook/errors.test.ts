// Invalid and Forbidden carry the Status the API server itself would send (apierrors.NewInvalid / NewForbidden):
// code, reason, details.causes and the message, worded as k8s.io/apimachinery words it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { field, Forbidden, Invalid, StatusError } from "@crdgen/runtime/webhook";
import { fieldErrorText } from "#runtime/webhook/errors.js";

const gk = { group: "webhook.example.com", kind: "Widget" };

test("field errors read as field.Invalid/Required/NotSupported/... print them", () => {
  assert.equal(
    fieldErrorText(field.invalid("spec.replicas", 5, "must be at most 3")),
    "spec.replicas: Invalid value: 5: must be at most 3",
  );
  assert.equal(
    fieldErrorText(field.invalid("spec.version", "5.7", "downgrade")),
    'spec.version: Invalid value: "5.7": downgrade',
  );
  assert.equal(fieldErrorText(field.required("spec.version")), "spec.version: Required value");
  assert.equal(fieldErrorText(field.required("spec.version", "pick one")), "spec.version: Required value: pick one");
  assert.equal(fieldErrorText(field.forbidden("spec.engine", "immutable")), "spec.engine: Forbidden: immutable");
  assert.equal(
    fieldErrorText(field.notSupported("spec.engine", "x", ["mysql", "mariadb"])),
    'spec.engine: Unsupported value: "x": supported values: "mysql", "mariadb"',
  );
  assert.equal(fieldErrorText(field.tooMany("spec.items", 5, 3)), "spec.items: Too many: 5: must have at most 3 items");
  assert.equal(fieldErrorText(field.tooLong("spec.name", 10)), "spec.name: Too long: may not be more than 10 bytes");
  assert.equal(fieldErrorText(field.duplicate("spec.ports[1]", 80)), "spec.ports[1]: Duplicate value: 80");
  assert.equal(field.invalid("spec.x", null, "bad").message, "Invalid value: null: bad");
  assert.equal(field.invalid("spec.x", { a: 1 }, "bad").message, 'Invalid value: {"a":1}: bad');
});

test("Invalid with one cause: 422, reason Invalid, the cause in details, the API server's message", () => {
  const error = new Invalid(gk, "w1", [field.invalid("spec.replicas", 5, "must be at most 3")]);
  assert.ok(error instanceof StatusError);
  assert.deepEqual(error.status, {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code: 422,
    reason: "Invalid",
    message: 'Widget.webhook.example.com "w1" is invalid: spec.replicas: Invalid value: 5: must be at most 3',
    details: {
      name: "w1",
      group: "webhook.example.com",
      kind: "Widget",
      causes: [{ reason: "FieldValueInvalid", message: "Invalid value: 5: must be at most 3", field: "spec.replicas" }],
    },
  });
  assert.equal(error.message, error.status.message);
});

test("Invalid with several causes lists them in brackets; with none it only says the object is invalid", () => {
  const error = new Invalid(gk, "w1", [field.invalid("spec.replicas", 5, "too many"), field.required("spec.version")]);
  assert.equal(
    error.status.message,
    'Widget.webhook.example.com "w1" is invalid: [spec.replicas: Invalid value: 5: too many, spec.version: Required value]',
  );
  assert.equal(error.status.details?.causes?.length, 2);
  assert.equal(new Invalid(gk, "w1", []).status.message, 'Widget.webhook.example.com "w1" is invalid');
  assert.equal(new Invalid({ group: "", kind: "Pod" }, "p", []).status.message, 'Pod "p" is invalid');
});

test("Invalid takes the generated validate()'s errors (reason, field, message) as causes", () => {
  const error = new Invalid(gk, "w1", [
    { reason: "FieldValueRequired", field: "spec.version", message: "Required value" },
  ]);
  assert.deepEqual(error.causes, [{ type: "FieldValueRequired", field: "spec.version", message: "Required value" }]);
  assert.equal(error.status.message, 'Widget.webhook.example.com "w1" is invalid: spec.version: Required value');
});

test('Forbidden: 403, reason Forbidden, `<resource>.<group> "name" is forbidden: why`', () => {
  const error = new Forbidden({ group: "webhook.example.com", resource: "widgets" }, "w1", "deletion is protected");
  assert.equal(error.status.code, 403);
  assert.equal(error.status.reason, "Forbidden");
  assert.equal(error.status.message, 'widgets.webhook.example.com "w1" is forbidden: deletion is protected');
});
