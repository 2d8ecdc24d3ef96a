// Closing the webhook server drains it (what a manager does after SIGTERM): a review in flight is still answered, a
// review sent meanwhile on a kept-alive connection too, each with `Connection: close` (the API server then retires that
// connection); a connection left idle is ended only after that, and close() resolves once every answer went out.
// Before, close() cut every connection at once, so the API server's calls on them failed. The drain's timers run on a
// FakeClock: the test moves past the linger once the kept-alive connection was reused, whatever the machine's load.
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
import { FakeClock } from "@crdgen/runtime/testing";
import { admissionWebhooksFor, startWebhookServer, type WebhookServer } from "@crdgen/runtime/webhook";
import { headerBlock, tlsConnect } from "./raw-https.js";
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
/** Longer than the linger of a closing server (LINGER_MS, 2 s); the cut of busy connections is armed only after it. */
const pastTheLinger = 60_000;

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

/** A webhook server for widgets with these admission hooks, its drain and deadlines on clock. */
function drainingServer(
  clock: FakeClock,
  requestTimeoutMs: number,
  hooks: Parameters<typeof admissionWebhooksFor<Widget>>[1],
): Promise<WebhookServer> {
  return startWebhookServer({
    webhooks: admissionWebhooksFor<Widget>(widgets, hooks),
    host: "127.0.0.1",
    port: 0,
    certDir: dir,
    registry: new Registry(),
    logger: newLogger({ write: () => undefined }),
    clock,
    requestTimeoutMs,
  });
}

test("close() answers on open connections with Connection: close, then ends the idle ones", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
  const clock = new FakeClock();
  // The slow review's deadline (and the cut of busy connections, as long after the linger) lie beyond the steps taken
  // here, so that only the drain's linger decides.
  const server = await drainingServer(clock, 3_600_000, {
    async validateCreate(obj) {
      if (obj.metadata?.name !== "slow") return;
      arrived();
      await released;
    },
  });
  // One connection each: one reused while closing, one left idle, one carrying the slow review.
  const agents = [0, 1, 2].map(() => new Agent({ keepAlive: true, ca: certs.caCert }));
  const [reused, idle, busy] = agents as [Agent, Agent, Agent];
  try {
    const first = await review(reused, server.port, "first");
    const unused = await review(idle, server.port, "unused");
    const idleClosed = new Promise<void>((resolve) => unused.socket.once("close", () => resolve()));
    const slow = review(busy, server.port, "slow");
    await slowArrived;

    let closed = false;
    const closing = server.close().then(() => (closed = true));
    const again = await review(reused, server.port, "again");
    assert.equal(again.socket, first.socket, "sent on the kept-alive connection");
    assert.deepEqual([again.status, again.connection], [200, "close"]);
    clock.step(pastTheLinger);
    await idleClosed;
    assert.equal(closed, false, "close() waits for the review in flight");
    release();
    const answer = await slow;
    assert.deepEqual([answer.status, answer.connection], [200, "close"]);
    await closing;
    assert.equal(server.started(), false);
  } finally {
    release();
    agents.forEach((a) => a.destroy());
    await server.close();
  }
});

test("close() cuts a connection still busy requestTimeoutMs after the linger (a caller that stopped reading)", async () => {
  const clock = new FakeClock();
  const requestTimeoutMs = 10_000;
  // A patch of 32 MB: more than the socket's buffers take, so the answer stays unfinished while nobody reads it.
  const server = await drainingServer(clock, requestTimeoutMs, {
    default(obj) {
      obj.spec.engine = "x".repeat(32 * 1024 * 1024);
    },
  });
  const socket = await tlsConnect(server.port, certs.caCert);
  try {
    const body = JSON.stringify(admissionReview("CREATE", widget("big", {})));
    const path = "/mutate-webhook-example-com-v1-widget";
    const headers = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
    let received = 0;
    const firstBytes = new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.on("data", (chunk: Buffer) => (received += chunk.length));
    socket.write(headerBlock({ path, headers }) + body);
    await firstBytes;
    socket.pause();
    const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));

    let closed = false;
    const closing = server.close().then(() => (closed = true));
    clock.step(pastTheLinger);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(closed, false, "the answer still being sent is kept past the linger");
    clock.step(requestTimeoutMs);
    await closing;
    socket.resume();
    await ended;
    assert.ok(received < 32 * 1024 * 1024, `cut before the whole answer went out (${received} bytes read)`);
    assert.equal(server.started(), false);
  } finally {
    socket.destroy();
    await server.close();
  }
});
