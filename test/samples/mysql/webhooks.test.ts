// The sample's webhooks as the API server calls them, AdmissionReview and ConversionReview in, responses out: no
// cluster needed. Defaulting fills spec.version, a major downgrade is refused with a field error, v1alpha1 converts to
// v1 and back with nothing lost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { newLogger } from "@crdgen/runtime";
import type {
  AdmissionOperation,
  AdmissionReview,
  ConversionReview,
  WebhookRegistration,
} from "@crdgen/runtime/webhook";
import type { MySQLCluster } from "../../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";
import type { MySQLCluster as MySQLClusterV1alpha1 } from "../../../samples/mysql/generated/example.com/v1alpha1/mysqlcluster.types.js";
import { newWebhooks } from "../../../samples/mysql/generated/webhooks.js";
import { supportedVersions } from "../../../samples/mysql/src/mysqlcluster.webhooks.js";

const webhooks = newWebhooks();
const at = (type: WebhookRegistration["type"]) => {
  const found = webhooks.find((w) => w.type === type);
  assert.ok(found, `the sample registers a ${type} webhook`);
  return found;
};
const context = () => ({ signal: new AbortController().signal, log: newLogger({ write: () => undefined }) });

function cluster(spec: Record<string, unknown>): MySQLCluster {
  return {
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "db", namespace: "databases", uid: "3f1c", resourceVersion: "7", generation: 2 },
    spec,
  } as unknown as MySQLCluster;
}

async function admit(
  type: "mutating" | "validating",
  operation: AdmissionOperation,
  object: unknown,
  oldObject?: unknown,
): Promise<NonNullable<AdmissionReview["response"]>> {
  const { response } = (await at(type).handle(
    {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: `${type}-${operation}`,
        kind: { group: "example.com", version: "v1", kind: "MySQLCluster" },
        resource: { group: "example.com", version: "v1", resource: "mysqlclusters" },
        name: "db",
        namespace: "databases",
        operation,
        userInfo: { username: "alice" },
        object,
        ...(oldObject ? { oldObject } : {}),
      },
    },
    context(),
  )) as AdmissionReview;
  assert.ok(response);
  assert.equal(response.uid, `${type}-${operation}`);
  return response;
}

const patchOf = (response: { patch?: string }) =>
  response.patch ? (JSON.parse(Buffer.from(response.patch, "base64").toString("utf8")) as unknown) : [];

test("defaulting fills spec.version with the newest supported version, and leaves a given one alone", async () => {
  const filled = await admit("mutating", "CREATE", cluster({ replicas: 3 }));
  assert.equal(filled.allowed, true);
  assert.deepEqual(patchOf(filled), [{ op: "add", path: "/spec/version", value: supportedVersions[0] }]);
  assert.equal(filled.patchType, "JSONPatch");
  const given = await admit("mutating", "CREATE", cluster({ replicas: 3, version: "8.0.36" }));
  assert.deepEqual([given.allowed, patchOf(given)], [true, []]);
  // Without a spec at all, the spec is made with the version in it.
  const { spec: _, ...bare } = cluster({});
  const noSpec = await admit("mutating", "CREATE", bare);
  assert.deepEqual(patchOf(noSpec), [{ op: "add", path: "/spec", value: { version: supportedVersions[0] } }]);
});

test("an in-place major downgrade is refused with a field error on spec.version (422, reason Invalid)", async () => {
  const refused = await admit(
    "validating",
    "UPDATE",
    cluster({ replicas: 3, version: "5.7.44" }),
    cluster({ replicas: 3, version: "8.0.40" }),
  );
  assert.equal(refused.allowed, false);
  const status = refused.status;
  assert.ok(status);
  assert.equal(status.code, 422);
  assert.equal(status.reason, "Invalid");
  assert.deepEqual(status.details?.causes, [
    {
      reason: "FieldValueInvalid",
      field: "spec.version",
      message: 'Invalid value: "5.7.44": cannot move from major version 8 to 5 (in-place downgrade is unsupported)',
    },
  ]);
  assert.equal(
    status.message,
    'MySQLCluster.example.com "db" is invalid: spec.version: Invalid value: "5.7.44": cannot move from major version 8 to 5 (in-place downgrade is unsupported)',
  );
  // An upgrade, and a minor step back within the major (the CRD's CEL rule refuses that one, not this webhook).
  for (const [from, to] of [
    ["8.0.40", "8.4.3"],
    ["8.4.3", "8.0.40"],
  ] as const) {
    const response = await admit("validating", "UPDATE", cluster({ version: to }), cluster({ version: from }));
    assert.equal(response.allowed, true, `${from} -> ${to}`);
  }
});

test("a version outside the supported list is allowed with a warning kubectl prints", async () => {
  const response = await admit("validating", "CREATE", cluster({ replicas: 1, version: "8.0.12" }));
  assert.equal(response.allowed, true);
  assert.deepEqual(response.warnings, [
    `spec.version 8.0.12 is not one this operator is tested with (${supportedVersions.join(", ")})`,
  ]);
  const supported = await admit("validating", "CREATE", cluster({ replicas: 1, version: supportedVersions[1] }));
  assert.equal(supported.warnings, undefined);
});

async function convert(objects: unknown[], desiredAPIVersion: string): Promise<unknown[]> {
  const { response } = (await at("conversion").handle(
    {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      request: { uid: "c1", desiredAPIVersion, objects },
    },
    context(),
  )) as ConversionReview;
  assert.ok(response);
  assert.equal(response.uid, "c1");
  assert.equal(response.result.status, "Success", response.result.message);
  return response.convertedObjects;
}

test("v1alpha1 converts to v1: size is replicas, image is imageRepository and version", async () => {
  const old: MySQLClusterV1alpha1 = {
    apiVersion: "example.com/v1alpha1",
    kind: "MySQLCluster",
    metadata: { name: "db", namespace: "databases", uid: "3f1c" },
    spec: { size: 3, image: "registry.example:5000/mysql:8.0.36" },
  };
  const [v1] = (await convert([old], "example.com/v1")) as MySQLCluster[];
  assert.equal(v1!.apiVersion, "example.com/v1");
  assert.deepEqual(v1!.spec, { replicas: 3, imageRepository: "registry.example:5000/mysql", version: "8.0.36" });
  assert.deepEqual(v1!.metadata, old.metadata);
});

test("v1 -> v1alpha1 -> v1 loses nothing: what v1alpha1 cannot hold rides in the conversion-data annotation", async () => {
  const stored = cluster({
    replicas: 3,
    version: "8.0.36",
    imageRepository: "mysql",
    storage: { size: "10Gi", reclaimPolicy: "Delete", storageClassName: "fast" },
    backup: { schedule: "0 3 * * *", suspend: false, storageSize: "5Gi", successfulJobsHistoryLimit: 3 },
    service: { type: "ClusterIP" },
    myCnf: "[mysqld]\nmax_connections=500\n",
  });
  stored.status = { phase: "Ready", readyReplicas: 3, currentVersion: "8.0.36", observedGeneration: 2 };
  const [spoke] = (await convert([stored], "example.com/v1alpha1")) as MySQLClusterV1alpha1[];
  assert.deepEqual(spoke!.spec, { size: 3, image: "mysql:8.0.36" });
  assert.ok(spoke!.metadata.annotations?.["example.com/conversion-data"], "the fields v1alpha1 lacks are kept");
  const [back] = await convert([spoke], "example.com/v1");
  assert.deepEqual(back, stored);
});
