// The runtime's one JSON Pointer escaping (RFC 6901).
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsonPointer, pointerSegments } from "@crdgen/runtime/json";

test("a pointer escapes ~ before /, so a key holding ~1 or / survives the round trip", () => {
  assert.equal(jsonPointer("metadata", "labels", "app.kubernetes.io/name"), "/metadata/labels/app.kubernetes.io~1name");
  assert.equal(jsonPointer("a~1b", "c~/d", 0), "/a~01b/c~0~1d/0");
  assert.deepEqual(pointerSegments(jsonPointer("a~1b", "c~/d", "", 0)), ["a~1b", "c~/d", "", "0"]);
  assert.deepEqual(pointerSegments(""), []);
  assert.throws(() => pointerSegments("a/b"), /starts with "\/"/);
});
