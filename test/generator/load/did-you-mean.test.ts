// The "did you mean" of CRD messages: a typo (a swap, a missing or extra letter, a case slip) finds the name meant;
// a different word finds nothing rather than a wrong guess.
import { test } from "node:test";
import assert from "node:assert/strict";
import { closest, editDistance } from "../../../generator/load/did-you-mean.js";

const types = ["array", "boolean", "integer", "number", "object", "string"];

test("a swap of two neighbours is one edit, a case change half of one", () => {
  assert.equal(editDistance("strnig", "string"), 1);
  assert.equal(editDistance("openAPIv3Schema", "openAPIV3Schema"), 0.5);
  assert.equal(editDistance("subresource", "subresources"), 1);
  assert.equal(editDistance("", "abc"), 3);
});

test("typos find the name meant; other words find nothing", () => {
  assert.equal(closest("strnig", types), "string");
  assert.equal(closest("intger", types), "integer");
  assert.equal(closest("Boolean", types), "boolean");
  assert.equal(closest("text", types), undefined);
  assert.equal(closest("int", types), undefined);
  assert.equal(closest("openAPIv3Schema", ["openAPIV3Schema", "schema"]), "openAPIV3Schema");
});
