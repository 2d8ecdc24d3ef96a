// Closing the webhook server drains it (what a manager does after SIGTERM): a review in flight is still answered, with
// `Connection: close`, an idle keep-alive connection is ended at once, and close() resolves once the answer went out.
// Before, close() cut every connection, so the API server's call in flight failed.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:https";
import type { Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { newLogger } from "@crdgen/runtime";
import { makeWebhookCertificates, type WebhookCertificates } from "@crdgen/runtime/envtest";
import { Registry } from "@crdgen/runtime/metrics";
import { admissionWebhooksFor, startWebhookServer } from "@crdgen/runtime/webhook";
import { admissionReview, widget, widgets, type Widget } from "./reviews.js";

let dir: string;
let certs: WebhookCertificates;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-webhook-drain-"));
  certs = await makeWebhookCertificates(dir);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const validate = "/validate-webhook-example-com-v1-widget";

interface Answer {
  status: number;
  connection: string | undefined;
  socket: Socket;
}

/** One review through `agent` (keep-alive), answered in full. */
function review(agent: Agent, port: number, name: string): Promise<Answer> {
  const body = JSON.stringify(admissionReview("CREATE", widget(name, {})));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: validate,
        method: "POST",
        agent,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        const socket = res.socket;
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, socket }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

test("close() answers the review in flight with Connection: close and ends idle connections first", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server = await startWebhookServer({
    webhooks: admissionWebhooksFor<Widget>(widgets, {
      async validateCreate(obj) {
        if (obj.metadata?.name !== "slow") return;
        arrived();
        await released;
      },
    }),
    host: "127.0.0.1",
    port: 0,
    certDir: dir,
    registry: new Registry(),
    logger: newLogger({ write: () => undefined }),
  });
  // One connection each: the first stays idle in its pool, the second carries the slow review.
  const [idle, busy] = [
    new Agent({ keepAlive: true, ca: certs.caCert }),
    new Agent({ keepAlive: true, ca: certs.caCert }),
  ];
  try {
    const quick = await review(idle, server.port, "quick");
    assert.equal(quick.status, 200);
    const idleClosed = new Promise<void>((resolve) => quick.socket.once("close", () => resolve()));
    const slow = review(busy, server.port, "slow");
    await slowArrived;

    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await idleClosed;
    assert.equal(closed, false, "close() waits for the review in flight");
    release();
    const answer = await slow;
    assert.equal(answer.status, 200);
    assert.equal(answer.connection, "close");
    await closing;
    assert.equal(server.started(), false);
  } finally {
    release();
    idle.destroy();
    busy.destroy();
    await server.close();
  }
});
