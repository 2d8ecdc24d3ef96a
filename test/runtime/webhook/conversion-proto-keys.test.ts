// A field named __proto__ (a CRD may declare one) through a conversion's round trip: the hub fields a spoke version
// cannot hold were gathered and restored by assignment, so the key set the prototype and the field was lost.
import assert from "node:assert/strict";
import { test } from "node:test";
import { lostFields } from "#runtime/webhook/conversion.js";

test("lostFields keeps a field named __proto__, and takes no inherited member for a field", () => {
  const hub = JSON.parse('{"spec": {"__proto__": {"x": 1}, "toString": "t", "kept": 1}}') as Record<string, unknown>;
  const lost = lostFields(hub, { spec: { kept: 1 } }) as { spec: Record<string, unknown> };
  assert.ok(Object.hasOwn(lost.spec, "__proto__"));
  assert.deepEqual(lost.spec["__proto__"], { x: 1 });
  assert.equal(JSON.stringify(lost.spec), `{"__proto__":{"x":1},"toString":"t"}`);
  assert.equal(Object.getPrototypeOf(lost.spec), Object.prototype);
  assert.equal(lostFields(hub, hub), undefined);
});
