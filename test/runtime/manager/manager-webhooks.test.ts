// startManager with webhooks: the webhook server runs beside the controllers (certificate from --webhook-cert-path),
// /readyz includes it, and stopping closes it; a webhook server that cannot start fails startManager cleanly.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:https";
import os from "node:os";
import path from "node:path";
import type { ManagedController } from "@crdgen/runtime";
import { makeWebhookCertificates, type WebhookCertificates } from "@crdgen/runtime/envtest";
import { startManager } from "@crdgen/runtime/manager";
import { Registry } from "@crdgen/runtime/metrics";
import { admissionWebhooksFor, type AdmissionReview } from "@crdgen/runtime/webhook";
import { unreachableKube } from "../support/fake-api-server.js";
import { quiet } from "../support/cache-fakes.js";
import { admissionReview, widget, widgets, type Widget } from "../webhook/reviews.js";

const kube = unreachableKube();
let dir: string;
let certs: WebhookCertificates;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-manager-webhooks-"));
  certs = await makeWebhookCertificates(dir);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function syncedController(): ManagedController {
  return {
    name: "widgets.webhook.example.com",
    hasSynced: () => true,
    run: (signal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
  };
}

const webhooks = admissionWebhooksFor<Widget>(widgets, {
  default(obj) {
    obj.spec.replicas ??= 1;
  },
});

function post(port: number, body: unknown): Promise<AdmissionReview> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mutate-webhook-example-com-v1-widget",
        method: "POST",
        ca: certs.caCert,
        agent: false,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as AdmissionReview));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

const options = (webhookCertPath: string) => ({
  metricsBindAddress: "0",
  healthProbeBindAddress: "127.0.0.1:0",
  leaderElect: false,
  webhookCertPath,
});

test("the webhook server runs beside the controllers with --webhook-cert-path's certificate; /readyz checks it", async () => {
  const stop = new AbortController();
  const manager = await startManager([syncedController()], {
    kube,
    logger: quiet,
    registry: new Registry(),
    signal: stop.signal,
    options: options(dir),
    webhooks: { webhooks, host: "127.0.0.1", port: 0 },
  });
  try {
    assert.ok(manager.webhookPort, "a webhook port");
    const answer = await post(manager.webhookPort, admissionReview("CREATE", widget("w1", {})));
    assert.equal(answer.response?.allowed, true);
    assert.equal(answer.response.patchType, "JSONPatch");
    const ready = await fetch(`http://127.0.0.1:${manager.healthProbePort!}/readyz?verbose`);
    assert.equal(ready.status, 200);
    assert.match(await ready.text(), /\[\+\]webhook ok/);
  } finally {
    stop.abort();
    await manager.done;
  }
  await assert.rejects(post(manager.webhookPort, admissionReview("CREATE", widget("w1", {}))), "closed on stop");
});

test("without webhooks there is no webhook port and no webhook readiness check", async () => {
  const stop = new AbortController();
  const manager = await startManager([syncedController()], {
    kube,
    logger: quiet,
    registry: new Registry(),
    signal: stop.signal,
    options: options(dir),
  });
  try {
    assert.equal(manager.webhookPort, undefined);
    const ready = await fetch(`http://127.0.0.1:${manager.healthProbePort!}/readyz?verbose`);
    assert.doesNotMatch(await ready.text(), /webhook/);
  } finally {
    stop.abort();
    await manager.done;
  }
});

test("a webhook certificate folder without the files fails startManager, naming the file, and leaves nothing running", async () => {
  const empty = await mkdtemp(path.join(os.tmpdir(), "crdgen-manager-webhooks-empty-"));
  try {
    await assert.rejects(
      startManager([syncedController()], {
        kube,
        logger: quiet,
        registry: new Registry(),
        options: options(empty),
        webhooks: { webhooks, host: "127.0.0.1", port: 0 },
      }),
      (error: Error) => error.message.includes(path.join(empty, "tls.crt")),
    );
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
});
