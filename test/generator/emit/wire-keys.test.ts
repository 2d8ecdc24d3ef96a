// Property names special to JavaScript (__proto__, constructor) or not identifiers (a-b, 1abc, "", an emoji) are
// exact wire keys in the generated types, and survive a round trip through the generated client (on the FakeCluster)
// and through JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeCluster } from "@crdgen/runtime/testing";
import {
  wireKeyResource,
  type WireKey,
  type WireKeySpec,
} from "../../fixtures/schema/wire-keys/expected/wire-keys.fixtures.crdgen.dev/v1/wirekey.types.js";
import { newWireKeyClient } from "../../fixtures/schema/wire-keys/expected/wire-keys.fixtures.crdgen.dev/v1/wirekey.client.js";

const wireKeys = ["__proto__", "constructor", "a-b", "1abc", "", "🚀", "toString"];

/** The spec with every special key, typed: the compiler checks each key and value against the generated WireKeySpec. */
function specWithEveryKey(): WireKeySpec {
  // A computed ["__proto__"] key makes an own property; a plain `__proto__:` in a literal would set the prototype.
  return {
    ["__proto__"]: { name: "proto" },
    constructor: "ctor",
    "a-b": "dash",
    "1abc": 1,
    "": "empty",
    "🚀": true,
    toString: { k: "v" },
  };
}

test("every special key is an own property of a value typed with the generated interface", () => {
  const spec = specWithEveryKey();
  assert.deepEqual(Object.keys(spec), wireKeys);
  assert.equal(Object.getPrototypeOf(spec), Object.prototype, "__proto__ is data, not the prototype");
  // @ts-expect-error "" is required by the schema
  const missing: WireKeySpec = { ["__proto__"]: { name: "p" } };
  assert.ok(missing);
});

test("the special keys round-trip through JSON and through the generated client on the FakeCluster", async () => {
  const obj: WireKey = {
    apiVersion: "wire-keys.fixtures.crdgen.dev/v1",
    kind: "WireKey",
    metadata: { name: "keys", namespace: "default" },
    spec: specWithEveryKey(),
  };
  const json = JSON.parse(JSON.stringify(obj)) as WireKey;
  assert.deepEqual(Object.keys(json.spec!), wireKeys);
  assert.deepEqual(json.spec!["__proto__"], { name: "proto" });
  assert.equal(Object.getPrototypeOf(json.spec), Object.prototype);

  const cluster = new FakeCluster();
  cluster.register(wireKeyResource, { status: true });
  const client = newWireKeyClient(cluster.kubeClient()).namespace("default");
  await client.create(obj);
  const back = await client.get("keys");
  assert.deepEqual(Object.keys(back.spec!), wireKeys);
  assert.deepEqual(back.spec!["__proto__"], { name: "proto" });
  assert.equal(back.spec!.constructor, "ctor");
  assert.equal(back.spec![""], "empty");
  assert.equal(back.spec!["🚀"], true);
  assert.equal(Object.getPrototypeOf(back.spec), Object.prototype);
  assert.equal(JSON.stringify(back.spec), JSON.stringify(obj.spec));
});
