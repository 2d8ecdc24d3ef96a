// Port of controller-runtime pkg/webhook/conversion/conversion_test.go, case by case, against startWebhookServer over
// real TLS. Its test API (testdata/api: ExternalJob of jobs.testprojects.kb.io, v2 the hub with spec.scheduleAt, v1
// with spec.runAt, v3 with spec.deferredAt, each with spec.panicInConversion) becomes a hub and two spokes whose
// functions do what the Go ConvertTo/ConvertFrom methods do. Objects go on the wire as Go encodes those types
// (every field, zero values included: "panicInConversion":false, "status":{}); doRequest's *http.Request has no
// method, no header and a review without apiVersion, kind or uid, so the requests here are POSTs with no
// Content-Type and the same review.
//
// Go runs the webhook cases twice, "with Hub/ConvertTo/ConvertFrom methods" and "with HubSpokeConverter": crdgen has
// one mechanism (conversionWebhookFor's hub and spokes), so they run once.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { newLogger, type KubernetesObject } from "@crdgen/runtime";
import { makeWebhookCertificates, type WebhookCertificates } from "@crdgen/runtime/envtest";
import { Registry } from "@crdgen/runtime/metrics";
import { conversionWebhookFor, startWebhookServer, type ConversionReview } from "@crdgen/runtime/webhook";
import { rawRequest } from "./raw-https.js";

interface ExternalJob extends KubernetesObject {
  spec: Record<string, unknown> & { panicInConversion: boolean };
  status: Record<string, never>;
}

const group = "jobs.testprojects.kb.io";

/** An ExternalJob of `version` as Go's encoding of the typed object. */
function job(version: string, field: string, value: string, panicInConversion = false): ExternalJob {
  return {
    kind: "ExternalJob",
    apiVersion: `${group}/${version}`,
    metadata: { namespace: "default", name: "obj-1" },
    spec: { [field]: value, panicInConversion },
    status: {},
  };
}

/** A spoke whose field `field` is the hub's scheduleAt (testdata/api/v1 and v3's ConvertTo / ConvertFrom). */
function spoke(version: string, field: string) {
  // Go's `panic("PanicInConversion field set to true")`: a thrown value that is not an Error is a panic.
  const panicking = (obj: ExternalJob) => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the Go test's panic with a string
    if (obj.spec.panicInConversion) throw "PanicInConversion field set to true";
  };
  return {
    toHub(obj: ExternalJob): ExternalJob {
      panicking(obj);
      return job("v2", "scheduleAt", obj.spec[field] as string);
    },
    fromHub(hub: ExternalJob): ExternalJob {
      return job(version, field, hub.spec["scheduleAt"] as string);
    },
  };
}

const externalJobs = conversionWebhookFor<ExternalJob>(
  { group, kind: "ExternalJob", plural: "externaljobs" },
  { hub: "v2", spokes: { v1: spoke("v1", "runAt"), v3: spoke("v3", "deferredAt") } },
);

let dir: string;
let certs: WebhookCertificates;
let server: Awaited<ReturnType<typeof startWebhookServer>>;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-cr-conversion-"));
  certs = await makeWebhookCertificates(dir);
  server = await startWebhookServer({
    webhooks: [externalJobs],
    host: "127.0.0.1",
    port: 0,
    certDir: dir,
    registry: new Registry(),
    logger: newLogger({ write: () => undefined }),
  });
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Go's doRequest: the review JSON-encoded, its answer decoded. */
async function doRequest(desiredAPIVersion: string, objects: unknown[]): Promise<ConversionReview> {
  const body = JSON.stringify({ request: { desiredAPIVersion, objects } });
  const reply = await rawRequest(server.port, certs.caCert, {
    path: "/convert",
    headers: { "Content-Length": String(Buffer.byteLength(body)) },
    body,
  });
  assert.equal(reply.status, 200, reply.body);
  return JSON.parse(reply.body) as ConversionReview;
}

test("should convert spoke to hub successfully", async () => {
  const convReview = await doRequest(`${group}/v2`, [job("v1", "runAt", "every 2 seconds")]);
  assert.equal(convReview.response?.convertedObjects.length, 1);
  assert.equal(convReview.response.result.status, "Success");
  assert.deepEqual(convReview.response.convertedObjects[0], job("v2", "scheduleAt", "every 2 seconds"));
});

test("should convert hub to spoke successfully", async () => {
  const convReview = await doRequest(`${group}/v1`, [job("v2", "scheduleAt", "every 2 seconds")]);
  assert.equal(convReview.response?.convertedObjects.length, 1);
  assert.equal(convReview.response.result.status, "Success");
  assert.deepEqual(convReview.response.convertedObjects[0], job("v1", "runAt", "every 2 seconds"));
});

test("should convert spoke to spoke successfully", async () => {
  const convReview = await doRequest(`${group}/v3`, [job("v1", "runAt", "every 2 seconds")]);
  assert.equal(convReview.response?.convertedObjects.length, 1);
  assert.equal(convReview.response.result.status, "Success");
  assert.deepEqual(convReview.response.convertedObjects[0], job("v3", "deferredAt", "every 2 seconds"));
});

test("should return error when dest/src objects belong to different API groups", async () => {
  const convReview = await doRequest("jobss.example.org/v2", [job("v1", "runAt", "every 2 seconds")]);
  assert.equal(convReview.response?.result.status, "Failure");
  assert.deepEqual((convReview.response.convertedObjects as unknown[] | null) ?? [], []);
});

test("should return error when dest/src objects are of same type", async () => {
  const convReview = await doRequest(`${group}/v1`, [job("v1", "runAt", "every 2 seconds")]);
  assert.equal(convReview.response?.result.status, "Failure");
  assert.deepEqual((convReview.response.convertedObjects as unknown[] | null) ?? [], []);
});

test("should return error when the API group does not have a hub defined", async () => {
  const deployment = {
    kind: "Deployment",
    apiVersion: "apps/v1beta1",
    metadata: { namespace: "default", name: "obj-1" },
  };
  const convReview = await doRequest("apps/v1", [deployment]);
  assert.equal(convReview.response?.result.status, "Failure");
  assert.deepEqual((convReview.response.convertedObjects as unknown[] | null) ?? [], []);
});

test("should return error on panic in conversion", async () => {
  const convReview = await doRequest(`${group}/v3`, [job("v1", "runAt", "every 2 seconds", true)]);
  assert.equal(convReview.response?.convertedObjects.length, 0);
  assert.equal(convReview.response.result.status, "Failure");
  assert.equal(convReview.response.result.message, "internal error occurred during conversion");
});

// Describe("NewHubSpokeConverter"):
test("should succeed if all converter are specified", () => {
  assert.doesNotThrow(() =>
    conversionWebhookFor<ExternalJob>(
      { group, kind: "ExternalJob" },
      { hub: "v2", spokes: { v1: spoke("v1", "runAt"), v3: spoke("v3", "deferredAt") } },
    ),
  );
});
// The other NewHubSpokeConverter cases do not apply, for these reasons:
// - "hub is not registered in the scheme", "spoke is not registered in the scheme": there is no scheme; the resource
//   (group, kind) is given to conversionWebhookFor and versions are names.
// - "spoke does not have the same GroupKind as the hub": spokes are versions of the one kind given, so a spoke of
//   another group or kind cannot be written.
// - "same spoke is specified twice": spokes are the keys of an object, so one version has one spoke.
// - "a converter is missing": conversionWebhookFor is not told the CRD's served versions; the generator checks that
//   `<kind>.conversion.ts` has a spoke for each (generator/hooks), and a review asking for a version without one
//   fails naming it (conversion.test.ts).
//
// Describe("IsConvertible") (4 cases) does not apply: there is no scheme of Go types to inspect; a kind is
// convertible exactly when a conversionWebhookFor registration for it is served.
