// Admission and conversion webhooks served by the runtime and called by a real kube-apiserver over TLS: defaulting,
// validation refusals with field causes through ApiError, v1alpha1 ⇄ v1 conversion without loss, failurePolicy with
// the webhook down, certificate rotation while serving, and 100 concurrent admission requests.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:https";
import type { TLSSocket } from "node:tls";
import path from "node:path";
import { ApiError, newLogger, type KubeClient } from "@crdgen/runtime";
import {
  startControlPlane,
  startWebhookEnvironment,
  type ControlPlane,
  type WebhookEnvironment,
} from "@crdgen/runtime/envtest";
import { Registry } from "@crdgen/runtime/metrics";
import {
  admissionWebhooksFor,
  conversionDataAnnotation,
  conversionWebhookFor,
  field,
  Forbidden,
  Invalid,
  type AdmissionHooks,
  type SpokeConversion,
} from "@crdgen/runtime/webhook";
import type { Status } from "@crdgen/runtime/client";
import { widgets, type Widget, type WidgetV1alpha1 } from "../runtime/webhook/reviews.js";
import { eventually, repoRoot } from "./control-plane.js";

const ns = "webhooks-e2e";
const v1 = `/apis/webhook.example.com/v1/namespaces/${ns}/widgets`;
const v1alpha1 = `/apis/webhook.example.com/v1alpha1/namespaces/${ns}/widgets`;

let plane: ControlPlane | undefined;
let kube: KubeClient;
let env: WebhookEnvironment | undefined;
const registry = new Registry();
/** `<operation> <name>` for every admission hook call, in order. */
const calls: string[] = [];

const hooks: AdmissionHooks<Widget> = {
  default(obj, req) {
    calls.push(`default ${req.operation} ${obj.metadata?.name ?? ""}`);
    obj.spec.replicas ??= 1;
    obj.spec.engine ??= "mysql";
  },
  validateCreate(obj, req) {
    calls.push(`validate ${req.operation} ${obj.metadata?.name ?? ""}`);
    checkReplicas(obj);
  },
  validateUpdate(_old, obj, req) {
    calls.push(`validate ${req.operation} ${obj.metadata?.name ?? ""}`);
    checkReplicas(obj);
  },
  validateDelete(obj, req) {
    calls.push(`validate ${req.operation} ${obj.metadata?.name ?? ""}`);
    if (obj.metadata?.labels?.["protected"] === "true")
      throw new Forbidden(
        { group: "webhook.example.com", resource: "widgets" },
        obj.metadata.name ?? "",
        "it is protected",
      );
  },
};

function checkReplicas(obj: Widget): void {
  const replicas = obj.spec.replicas ?? 0;
  if (replicas > 9)
    throw new Invalid({ group: "webhook.example.com", kind: "Widget" }, obj.metadata?.name ?? "", [
      field.invalid("spec.replicas", replicas, "must be at most 9"),
    ]);
}

const alpha: SpokeConversion<Widget, WidgetV1alpha1> = {
  toHub: (obj) => ({
    metadata: obj.metadata,
    spec: {
      ...(obj.spec.size !== undefined ? { replicas: obj.spec.size } : {}),
      ...(obj.spec.image !== undefined ? { version: obj.spec.image.replace(/^mysql:/, "") } : {}),
    },
  }),
  fromHub: (hub) => ({
    metadata: hub.metadata,
    spec: {
      ...(hub.spec.replicas !== undefined ? { size: hub.spec.replicas } : {}),
      ...(hub.spec.version !== undefined ? { image: `mysql:${hub.spec.version}` } : {}),
    },
  }),
};

const webhooks = [
  ...admissionWebhooksFor(widgets, hooks),
  conversionWebhookFor(widgets, { hub: "v1", spokes: { v1alpha1: alpha } }),
];

const create = <T>(at: string, body: unknown, query?: Record<string, string>) =>
  kube.request<T>({ method: "POST", path: at, body, ...(query ? { query } : {}) });
const get = <T>(at: string, name: string) => kube.request<T>({ method: "GET", path: `${at}/${name}` });

function widget(name: string, spec: Widget["spec"], labels?: Record<string, string>): Widget {
  return {
    apiVersion: "webhook.example.com/v1",
    kind: "Widget",
    metadata: { name, ...(labels ? { labels } : {}) },
    spec,
  };
}

async function apiErrorOf(pending: Promise<unknown>): Promise<ApiError> {
  try {
    await pending;
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the API server to refuse the request");
}

before(async () => {
  plane = await startControlPlane({ crdFiles: [path.join(repoRoot, "test/fixtures/webhook/widgets.yaml")] });
  kube = plane.kubeClient();
  await kube.request({ method: "POST", path: "/api/v1/namespaces", body: { metadata: { name: ns } } });
  env = await startWebhookEnvironment({
    kube,
    webhooks,
    failurePolicy: "Fail",
    registry,
    logger: newLogger({ write: () => undefined }),
  });
  // The API server loads webhook configurations and the CRD's conversion through informers: wait until both work.
  await eventually("the API server calling the mutating webhook", async () => {
    const probe = await create<Widget>(v1, widget("probe", {}), { dryRun: "All" });
    return probe.spec.replicas === 1 ? true : undefined;
  });
  await eventually("the API server calling the conversion webhook", async () => {
    const probe = await create<WidgetV1alpha1>(
      v1alpha1,
      { ...widget("probe", {}), apiVersion: "webhook.example.com/v1alpha1", spec: { size: 2 } },
      { dryRun: "All" },
    );
    return probe.spec.size === 2 ? true : undefined;
  });
});

after(async () => {
  await env?.stop();
  (kube as KubeClient | undefined)?.close();
  await plane?.stop();
});

test("create, update and delete go through the webhooks over TLS; defaulted fields are stored", async () => {
  calls.length = 0;
  await create(v1, widget("w1", { version: "8.0.36" }));
  const stored = await get<Widget>(v1, "w1");
  assert.deepEqual(stored.spec, { version: "8.0.36", replicas: 1, engine: "mysql" });
  await kube.request({
    method: "PATCH",
    path: `${v1}/w1`,
    contentType: "application/merge-patch+json",
    body: { spec: { replicas: 3 } },
  });
  assert.equal((await get<Widget>(v1, "w1")).spec.replicas, 3);
  await kube.request({ method: "DELETE", path: `${v1}/w1` });
  assert.deepEqual(calls, [
    "default CREATE w1",
    "validate CREATE w1",
    "default UPDATE w1",
    "validate UPDATE w1",
    "validate DELETE w1",
  ]);
});

test("a refused object comes back as an ApiError with the hook's field causes; a Forbidden delete is refused", async () => {
  const error = await apiErrorOf(create(v1, widget("big", { replicas: 12 })));
  assert.equal(error.status, 422);
  assert.equal(error.reason, "Invalid");
  const body = error.body as Status;
  assert.equal(
    body.message,
    'admission webhook "vwidget-v1.webhook.example.com" denied the request: Widget.webhook.example.com "big" is invalid: spec.replicas: Invalid value: 12: must be at most 9',
  );
  assert.deepEqual(body.details?.causes, [
    { reason: "FieldValueInvalid", message: "Invalid value: 12: must be at most 9", field: "spec.replicas" },
  ]);
  await apiErrorOf(get(v1, "big")).then((e) => assert.equal(e.status, 404, "nothing was stored"));

  await create(v1, widget("keep", {}, { protected: "true" }));
  const refused = await apiErrorOf(kube.request({ method: "DELETE", path: `${v1}/keep` }));
  assert.equal(refused.status, 403);
  assert.match(refused.message, /widgets\.webhook\.example\.com "keep" is forbidden: it is protected/);
});

test("objects written as v1alpha1 are read as v1 and back, and a v1 field v1alpha1 cannot hold survives", async () => {
  await create(v1alpha1, {
    apiVersion: "webhook.example.com/v1alpha1",
    kind: "Widget",
    metadata: { name: "old" },
    spec: { size: 2, image: "mysql:8.0.36" },
  });
  const asV1 = await get<Widget>(v1, "old");
  assert.equal(asV1.apiVersion, "webhook.example.com/v1");
  // Admission saw the object as v1 (matchPolicy Equivalent), so engine was defaulted there.
  assert.deepEqual(asV1.spec, { replicas: 2, version: "8.0.36", engine: "mysql" });
  const asAlpha = await get<WidgetV1alpha1>(v1alpha1, "old");
  assert.deepEqual(asAlpha.spec, { size: 2, image: "mysql:8.0.36" });

  // A v1 object with a non-default engine, edited through v1alpha1: the engine is kept.
  await create(v1, widget("percona", { replicas: 1, version: "8.0.36", engine: "percona" }));
  const alphaView = await get<WidgetV1alpha1>(v1alpha1, "percona");
  assert.deepEqual(JSON.parse(alphaView.metadata!.annotations![conversionDataAnnotation("webhook.example.com")]!), {
    spec: { engine: "percona" },
  });
  alphaView.spec.size = 4;
  await kube.request({ method: "PUT", path: `${v1alpha1}/percona`, body: alphaView });
  const back = await get<Widget>(v1, "percona");
  assert.deepEqual(back.spec, { replicas: 4, version: "8.0.36", engine: "percona" });
  assert.equal(back.metadata?.annotations?.[conversionDataAnnotation("webhook.example.com")], undefined);
});

test("with the webhook down, failurePolicy Fail refuses writes and Ignore lets them through", async () => {
  const server = env!;
  await server.stopServer();
  try {
    const refused = await apiErrorOf(create(v1, widget("down-fail", {})));
    assert.equal(refused.status, 500);
    assert.match(refused.message, /failed calling webhook "mwidget-v1\.webhook\.example\.com"/);
    await server.setFailurePolicy("Ignore");
    const created = await eventually("a create let through with failurePolicy Ignore", () =>
      create<Widget>(v1, widget("down-ignore", {})),
    );
    assert.deepEqual(created.spec, {}, "not defaulted: the webhook was not reached");
  } finally {
    await server.setFailurePolicy("Fail");
    await server.startServer();
  }
  await eventually("the webhook answering again", async () => {
    const probe = await create<Widget>(v1, widget("probe", {}), { dryRun: "All" });
    return probe.spec.replicas === 1 ? true : undefined;
  });
});

/** The serial number of the certificate a new TLS connection to the webhook server gets. */
function servedSerial(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/convert", method: "GET", ca, agent: false }, (res) => {
      resolve((res.socket as TLSSocket).getPeerCertificate().serialNumber);
      res.resume();
    });
    req.on("error", reject);
    req.end();
  });
}

test("certificate rotation while serving: new files in the folder are served next, and the API server keeps calling", async () => {
  const { certificates, server } = env!;
  const before = certificates.servingSerial;
  assert.equal(await servedSerial(server.port, certificates.caCert), before);
  await certificates.rotate();
  assert.notEqual(certificates.servingSerial, before);
  await eventually("the new certificate served", async () =>
    (await servedSerial(server.port, certificates.caCert)) === certificates.servingSerial ? true : undefined,
  );
  const created = await create<Widget>(v1, widget("after-rotation", {}));
  assert.equal(created.spec.replicas, 1, "defaulted by the webhook, reached with the new certificate");
});

test("100 concurrent admission requests are all answered", async () => {
  calls.length = 0;
  const names = Array.from({ length: 100 }, (_, i) => `many-${i}`);
  const results = await Promise.allSettled(names.map((name) => create<Widget>(v1, widget(name, { version: "8.0" }))));
  const failed = results.filter((r) => r.status === "rejected");
  assert.deepEqual(
    failed.map((r) => String(r.reason)),
    [],
  );
  assert.ok(results.every((r) => r.status === "fulfilled" && r.value.spec.replicas === 1));
  assert.equal(calls.filter((c) => c.startsWith("default CREATE many-")).length, 100);
  assert.equal(calls.filter((c) => c.startsWith("validate CREATE many-")).length, 100);
  const text = await registry.metrics();
  const total =
    /^controller_runtime_webhook_requests_total\{webhook="\/mutate-webhook-example-com-v1-widget",code="200"\} (\d+)$/m.exec(
      text,
    );
  assert.ok(total && Number(total[1]) >= 100, `mutating requests counted: ${total?.[1] ?? "none"}`);
});
