// The runtime's one JSON Pointer escaping (RFC 6901) and its one JSON equality (as the API server compares values).
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsonPointer, pointerSegments, sameJson } from "@crdgen/runtime/json";

test("a pointer escapes ~ before /, so a key holding ~1 or / survives the round trip", () => {
  assert.equal(jsonPointer("metadata", "labels", "app.kubernetes.io/name"), "/metadata/labels/app.kubernetes.io~1name");
  assert.equal(jsonPointer("a~1b", "c~/d", 0), "/a~01b/c~0~1d/0");
  assert.deepEqual(pointerSegments(jsonPointer("a~1b", "c~/d", "", 0)), ["a~1b", "c~/d", "", "0"]);
  assert.deepEqual(pointerSegments(""), []);
  assert.throws(() => pointerSegments("a/b"), /starts with "\/"/);
});

test("sameJson compares what JSON.stringify would send: key order aside, undefined as absent, in arrays as null", () => {
  const cases: Array<[unknown, unknown, boolean]> = [
    [{ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 }, true],
    [{ a: 1, gone: undefined }, { a: 1 }, true],
    [{ a: 1 }, { a: 1, gone: undefined }, true],
    [[undefined], [null], true],
    [{ a: null }, {}, false],
    [{ a: null }, { a: undefined }, false],
    [[1, 2], [2, 1], false],
    [{ a: 1 }, { a: "1" }, false],
    [{ a: 1 }, { b: 1 }, false],
    [[], {}, false],
    [0, -0, true],
  ];
  for (const [a, b, same] of cases) {
    assert.equal(sameJson(a, b), same, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    assert.equal(sameJson(b, a), same, "symmetric");
  }
});
