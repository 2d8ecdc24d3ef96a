// The generated validating webhook calls validate<Kind>() on every admission, in a Pod limited to 256 Mi: objects
// whose CEL rules would build gigabytes or run for minutes are refused with the API server's cost error, and the
// same rules on ordinary values admit the object. Time and memory per hostile object: npm run bench:cel-cost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { admit, createReview, hostileSpecs, hostileWebhook, ordinarySpec } from "./hostile-cel.js";

const costError = "'operation cancelled: actual cost limit exceeded': no further validation rules will be run";

test("hostile CEL inputs sent through the validating webhook are refused with the per-call cost error", async () => {
  const webhook = hostileWebhook();
  for (const [what, spec] of Object.entries(hostileSpecs)) {
    const { response } = await admit(webhook, createReview(spec));
    assert.ok(response, what);
    assert.deepEqual([response.allowed, response.status?.code], [false, 422], what);
    assert.ok(response.status?.message?.includes(costError), `${what}: ${response.status?.message}`);
  }
});

test("the same rules on ordinary values run and admit the object", async () => {
  const { response } = await admit(hostileWebhook(), createReview(ordinarySpec));
  assert.ok(response);
  assert.deepEqual([response.allowed, response.status?.message], [true, undefined]);
});
