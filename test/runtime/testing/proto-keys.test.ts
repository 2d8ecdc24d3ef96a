// A field named __proto__ (a CRD may declare one) in the fake cluster's merge patches and in what server-side apply
// reads back: assigned into a plain object, the key set the prototype and the field was lost.
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyMergePatch } from "#runtime/testing/merge-patch.js";
import { extractApplied } from "#runtime/children/managed-fields.js";

const withProto = (value: unknown) => JSON.parse(`{"__proto__": ${JSON.stringify(value)}}`) as Record<string, unknown>;

test("a merge patch sets, merges and deletes a field named __proto__ as an own field", () => {
  const added = applyMergePatch({ a: 1 }, withProto({ x: 1 })) as Record<string, unknown>;
  assert.ok(Object.hasOwn(added, "__proto__"));
  assert.deepEqual(added["__proto__"], { x: 1 });
  assert.equal(Object.getPrototypeOf(added), Object.prototype);
  const merged = applyMergePatch(added, withProto({ y: 2 })) as Record<string, unknown>;
  assert.deepEqual(merged["__proto__"], { x: 1, y: 2 });
  assert.equal(Object.hasOwn(applyMergePatch(merged, withProto(null)) as object, "__proto__"), false);
});

test("the fields a manager applied include one named __proto__, and no inherited member", () => {
  const spec = withProto("kept");
  const live = {
    apiVersion: "h.example.com/v1",
    kind: "Hostile",
    metadata: {
      name: "h",
      managedFields: [
        {
          manager: "me",
          operation: "Apply",
          fieldsV1: { "f:spec": { "f:__proto__": {}, "f:toString": {} } },
        },
      ],
    },
    spec,
  };
  const applied = extractApplied(live, "me") as { spec: Record<string, unknown> };
  assert.ok(Object.hasOwn(applied.spec, "__proto__"));
  assert.equal(applied.spec["__proto__"], "kept");
  assert.equal(Object.hasOwn(applied.spec, "toString"), false, "an inherited member is no field of the object");
});
