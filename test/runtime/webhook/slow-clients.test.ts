// Slow clients against the webhook server (HTTPS) and the probe and metrics server (HTTP), with controller-runtime's
// limits (ReadHeaderTimeout, which also bounds the TLS handshake; a cap on open connections) shortened for the test:
// a client that sends its headers a byte at a time, or never finishes the TLS handshake, is cut off by the server,
// a connection past the cap is closed at once, and a normal request is still answered.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { get } from "node:http";
import { connect as tcpConnect, type Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { newLogger } from "@crdgen/runtime";
import { makeWebhookCertificates, type WebhookCertificates } from "@crdgen/runtime/envtest";
import { startProbeServer } from "@crdgen/runtime/manager";
import { Registry } from "@crdgen/runtime/metrics";
import { admissionWebhooksFor, startWebhookServer, type WebhookServerOptions } from "@crdgen/runtime/webhook";
import { rawRequest, tlsConnect } from "./raw-https.js";
import { admissionReview, widget, widgets, type Widget } from "./reviews.js";

let dir: string;
let certs: WebhookCertificates;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-slow-clients-"));
  certs = await makeWebhookCertificates(dir);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const headerTimeoutMs = 300;
const validate = "/validate-webhook-example-com-v1-widget";

async function withWebhookServer(extra: Partial<WebhookServerOptions>, run: (port: number) => Promise<void>) {
  const server = await startWebhookServer({
    webhooks: admissionWebhooksFor<Widget>(widgets, { validateCreate: () => undefined }),
    host: "127.0.0.1",
    port: 0,
    certDir: dir,
    registry: new Registry(),
    logger: newLogger({ write: () => undefined }),
    headerTimeoutMs,
    ...extra,
  });
  try {
    await run(server.port);
  } finally {
    await server.close();
  }
}

/** Resolves when the server ends or resets the connection: the client never ends it itself. */
function closedByServer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    socket.on("data", (c: Buffer) => received.push(c));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(Buffer.concat(received).toString("utf8")));
  });
}

/** The connection's close, or "still open" after 20 s: a guard against a hang (Node's own TLS handshake timeout is
 * 120 s), far above the limits the tests set. */
function guarded(closed: Promise<string>): Promise<string> {
  return Promise.race([
    closed,
    new Promise<string>((resolve) => setTimeout(() => resolve("still open"), 20_000).unref()),
  ]);
}

/**
 * Writes a request line and one header that never ends, a byte every 10 ms, until the connection closes; resolves
 * with what the server sent. The header alone would take minutes to reach Node's 16 KiB header limit.
 */
async function slowloris(socket: Socket, requestLine: string): Promise<{ reply: string; bytesSent: number }> {
  const closed = closedByServer(socket);
  const state = { open: true };
  void closed.then(() => (state.open = false));
  let bytesSent = 0;
  for (const byte of `${requestLine}\r\nHost: localhost\r\nX-Slow: `) {
    if (!state.open) break;
    socket.write(byte);
    bytesSent++;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // Then "a" forever; a guard of 20 s ends the test instead of hanging it if the server never cuts the client off.
  for (const guard = Date.now() + 20_000; state.open && Date.now() < guard; bytesSent++) {
    socket.write("a");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(state.open, false, "the server closed the connection while the client was still sending its headers");
  return { reply: await closed, bytesSent };
}

const review = () => JSON.stringify(admissionReview("CREATE", widget("w1", {})));

async function validateOnce(port: number): Promise<number> {
  const body = review();
  const reply = await rawRequest(port, certs.caCert, {
    path: validate,
    headers: { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) },
    body,
  });
  return reply.status;
}

test("webhook server: headers sent a byte at a time are cut off with 408; a normal request is answered", async () => {
  await withWebhookServer({}, async (port) => {
    const socket = await tlsConnect(port, certs.caCert);
    const { reply } = await slowloris(socket, `POST ${validate} HTTP/1.1`);
    assert.match(reply, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.equal(await validateOnce(port), 200);
  });
});

test("webhook server: a TLS handshake that never finishes is cut off", async () => {
  await withWebhookServer({}, async (port) => {
    // A TCP connection that sends nothing: the server waits for a ClientHello.
    const socket = tcpConnect(port, "127.0.0.1");
    const closed = closedByServer(socket);
    await new Promise((resolve) => socket.once("connect", resolve));
    assert.equal(await guarded(closed), "", "closed by the server, without a byte sent");
    assert.equal(await validateOnce(port), 200);
  });
});

test("webhook server: a connection past maxConnections is closed at once; one freed is usable again", async () => {
  await withWebhookServer({ maxConnections: 2, headerTimeoutMs: 60_000 }, async (port) => {
    const held = [await tlsConnect(port, certs.caCert), await tlsConnect(port, certs.caCert)];
    const third = tcpConnect(port, "127.0.0.1");
    // The handshake and header timeouts are 60 s here: only the cap closes it.
    assert.equal(await guarded(closedByServer(third)), "", "the third connection is closed before any answer");
    for (const socket of held) socket.destroy();
    // The server counts a connection until it has seen it close.
    for (const guard = Date.now() + 10_000; ;) {
      const status = await validateOnce(port).catch(() => 0);
      if (status === 200) break;
      assert.ok(Date.now() < guard, "a request is answered once the held connections are closed");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
});

test("webhook server: a body that stops coming gets 503 at the request's deadline and the connection closes", async () => {
  await withWebhookServer({ requestTimeoutMs: 300 }, async (port) => {
    const socket = await tlsConnect(port, certs.caCert);
    const closed = closedByServer(socket);
    socket.write(
      `POST ${validate} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"req`,
    );
    const reply = await closed;
    assert.match(reply, /^HTTP\/1\.1 503 /);
    assert.match(reply, /\r\nConnection: close\r\n/i);
    assert.match(reply, /the webhook did not answer within 300 ms/);
    assert.equal(await validateOnce(port), 200);
  });
});

test("probe and metrics server: headers sent a byte at a time are cut off with 408; /healthz still answers", async () => {
  const server = await startProbeServer({ port: 0, host: "127.0.0.1", registry: new Registry(), headerTimeoutMs });
  try {
    const socket = tcpConnect(server.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    const { reply } = await slowloris(socket, "GET /metrics HTTP/1.1");
    assert.match(reply, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    const status = await new Promise<number>((resolve, reject) => {
      get({ host: "127.0.0.1", port: server.port, path: "/healthz", agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on("error", reject);
    });
    assert.equal(status, 200);
  } finally {
    await server.close();
  }
});
