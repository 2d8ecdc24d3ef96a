// The decoder every object passes through: ObjectMeta dates become Date, repeated identity strings are shared.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StringPool, shareIdentityStrings } from "#runtime/client/string-pool.js";
import { reviveObjectMeta } from "#runtime/client/object-meta-dates.js";

function decoded(name: string) {
  // JSON.parse makes a fresh copy of each long string value, as a LIST or WATCH body does.
  const text = JSON.stringify({
    apiVersion: "databases.example.com/v1alpha1",
    kind: "VeryLongKindNameForPooling",
    metadata: { name, namespace: "a-namespace-name-of-some-length", creationTimestamp: "2026-12-02T19:47:00Z" },
  });
  return reviveObjectMeta(
    JSON.parse(text) as {
      apiVersion: string;
      kind: string;
      metadata: { name: string; namespace: string; creationTimestamp: Date };
    },
  );
}

test("decoding turns creationTimestamp into a Date that serializes back to the same RFC 3339 text", () => {
  const o = decoded("a");
  assert.ok(o.metadata.creationTimestamp instanceof Date);
  assert.equal(o.metadata.creationTimestamp.getTime(), Date.UTC(2026, 11, 2, 19, 47, 0));
  assert.match(JSON.stringify(o), /"creationTimestamp":"2026-12-02T19:47:00.000Z"/);
});

test("decoding keeps apiVersion, kind and namespace as they were", () => {
  const b = decoded("b");
  assert.deepEqual(
    [b.apiVersion, b.kind, b.metadata.namespace, b.metadata.name],
    ["databases.example.com/v1alpha1", "VeryLongKindNameForPooling", "a-namespace-name-of-some-length", "b"],
  );
});

test("the string pool is bounded: past its size it stops growing and returns strings as they are", () => {
  const pool = new StringPool(2);
  const o = { apiVersion: "g/v1", kind: "K", metadata: { namespace: "ns1" } };
  shareIdentityStrings(o, pool);
  assert.equal(pool.size, 2);
  shareIdentityStrings({ apiVersion: "g/v1", kind: "K", metadata: { namespace: "ns2" } }, pool);
  assert.equal(pool.size, 2);
  assert.equal(pool.share("ns3"), "ns3");
  assert.equal(pool.size, 2);
});
