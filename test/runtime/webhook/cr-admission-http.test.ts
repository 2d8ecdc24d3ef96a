// Port of controller-runtime pkg/webhook/admission/http_test.go ("Admission Webhooks" / "HTTP Handler"), case by case,
// against startWebhookServer over real TLS. Go's tests call Webhook.ServeHTTP with a hand-built *http.Request; here each
// request is written byte for byte (raw-https.ts) so the framing Go's fields stand for goes on the wire:
// Body nil / http.NoBody -> a request with no body (no Content-Length, or Content-Length: 0); an empty non-nil Body ->
// a chunked body with no data. Go's fakeHandler (allows everything) is a registration whose handle answers
// `{ response: { allowed: true } }`, as the handler behind controller-runtime's Webhook; the server completes and
// types it. Every malformed request is answered HTTP 200 with a review that is not allowed and carries the code: with
// failurePolicy: Ignore an HTTP error would let the request in.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { newLogger } from "@crdgen/runtime";
import { makeWebhookCertificates, type WebhookCertificates } from "@crdgen/runtime/envtest";
import { Registry } from "@crdgen/runtime/metrics";
import { startWebhookServer, type WebhookRegistration, type WebhookRequestContext } from "@crdgen/runtime/webhook";
import {
  chunk,
  headerBlock,
  lastChunk,
  parseReply,
  rawRequest,
  readAll,
  tlsConnect,
  type RawRequest,
} from "./raw-https.js";
import { widgets } from "./reviews.js";

const gvkJSONv1 = `"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"`;
const gvkJSONv1beta1 = `"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1"`;
const webhookPath = "/validate-jobs-testprojects-kb-io-v1-externaljob";

let dir: string;
let certs: WebhookCertificates;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-cr-admission-http-"));
  certs = await makeWebhookCertificates(dir);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Go's fakeHandler: allows every request; `fn` replaces it. */
function fakeHandler(fn?: (review: unknown, context: WebhookRequestContext) => Promise<unknown>): WebhookRegistration {
  return {
    path: webhookPath,
    type: "validating",
    resource: widgets,
    operations: ["CREATE"],
    handle: fn ?? (() => Promise.resolve({ response: { allowed: true } })),
  };
}

async function withServer(
  handler: WebhookRegistration,
  run: (port: number, lines: string[]) => Promise<void>,
): Promise<void> {
  const lines: string[] = [];
  const server = await startWebhookServer({
    webhooks: [handler],
    host: "127.0.0.1",
    port: 0,
    certDir: dir,
    registry: new Registry(),
    logger: newLogger({ write: (line) => lines.push(line) }),
  });
  try {
    await run(server.port, lines);
  } finally {
    await server.close();
  }
}

/**
 * The reply's status and its body parsed, beside Go's expected body parsed. Go always writes an empty struct
 * (`"metadata":{}` of a Status), which decodes as an absent field does; it is dropped from the expectation.
 */
function expectBody(reply: { status: number; body: string }, expected: string): void {
  assert.equal(reply.status, 200, "answered with HTTP 200, the refusal inside the review");
  const want = JSON.parse(expected, (key, value: unknown) =>
    key === "metadata" && JSON.stringify(value) === "{}" ? undefined : value,
  ) as unknown;
  assert.deepEqual(JSON.parse(reply.body), want);
}

const send = (port: number, r: RawRequest) => rawRequest(port, certs.caCert, r);

/** Waits for a condition another party makes true; fails after 10 s (a hang, not a measure of speed). */
async function until(condition: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 10_000; !condition();) {
    assert.ok(Date.now() < deadline, "the condition held within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test("should return bad-request when given an empty body", async () => {
  await withServer(fakeHandler(), async (port) => {
    // &http.Request{Body: nil}: no method, no header; on the wire a POST without any body framing.
    const reply = await send(port, { path: webhookPath });
    expectBody(
      reply,
      `{"response":{"uid":"","allowed":false,"status":{"metadata":{},"message":"request body is empty","code":400}}}
`,
    );
  });
});

test("should return bad-request when given the wrong content-type", async () => {
  await withServer(fakeHandler(), async (port) => {
    // An empty bytes.Buffer as Body: a body that is there but has no data (chunked, last chunk only).
    const reply = await send(port, {
      path: webhookPath,
      headers: { "Content-Type": "application/foo", "Transfer-Encoding": "chunked" },
      body: lastChunk,
    });
    expectBody(
      reply,
      `{"response":{"uid":"","allowed":false,"status":{"metadata":{},"message":"contentType=application/foo, expected application/json","code":400}}}
`,
    );
  });
});

test("should return bad-request when given an undecodable body", async () => {
  await withServer(fakeHandler(), async (port) => {
    const reply = await send(port, {
      path: webhookPath,
      headers: { "Content-Type": "application/json", "Content-Length": "1" },
      body: "{",
    });
    // The reason after "json parse error: " is the JSON parser's own wording (Go's "unexpected end of JSON input",
    // V8's another): the message must start as Go's and go on with a reason; everything else is compared whole.
    const goReason = "unexpected end of JSON input";
    const body = JSON.parse(reply.body) as { response?: { status?: { message?: string } } };
    const message = body.response?.status?.message ?? "";
    assert.match(message, /^couldn't get version\/kind; json parse error: ./);
    expectBody(
      {
        status: reply.status,
        body: reply.body.replace(
          JSON.stringify(message),
          JSON.stringify(`couldn't get version/kind; json parse error: ${goReason}`),
        ),
      },
      `{"response":{"uid":"","allowed":false,"status":{"metadata":{},"message":"couldn't get version/kind; json parse error: unexpected end of JSON input","code":400}}}
`,
    );
  });
});

test("should error when given a NoBody", async () => {
  await withServer(fakeHandler(), async (port) => {
    const reply = await send(port, {
      method: "POST",
      path: webhookPath,
      headers: { "Content-Type": "application/json", "Content-Length": "0" },
    });
    expectBody(
      reply,
      `{"response":{"uid":"","allowed":false,"status":{"metadata":{},"message":"request body is empty","code":400}}}
`,
    );
  });
});

test("should error when given an infinite body", async () => {
  await withServer(fakeHandler(), async (port) => {
    // rand.Reader: random chunks, sent until the server answers.
    const socket = await tlsConnect(port, certs.caCert);
    const text = readAll(socket);
    const state = { answered: false };
    socket.once("data", () => (state.answered = true));
    socket.write(
      headerBlock({
        method: "POST",
        path: webhookPath,
        headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
      }),
    );
    const block = randomBytes(64 * 1024);
    while (!state.answered && !socket.destroyed) {
      if (!socket.write(chunk(block)))
        await new Promise((resolve) => {
          socket.once("drain", resolve);
          socket.once("data", resolve);
          socket.once("close", resolve);
        });
    }
    socket.end();
    expectBody(
      parseReply(await text),
      `{"response":{"uid":"","allowed":false,"status":{"metadata":{},"message":"request entity is too large; limit is 7340032 bytes","code":413}}}
`,
    );
  });
});

const jsonRequest = (body: string): RawRequest => ({
  path: webhookPath,
  headers: { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) },
  body,
});

test("should return the response given by the handler with version defaulted to v1", async () => {
  await withServer(fakeHandler(), async (port) => {
    const reply = await send(port, jsonRequest(`{"request":{}}`));
    expectBody(reply, `{${gvkJSONv1},"response":{"uid":"","allowed":true,"status":{"metadata":{},"code":200}}}\n`);
  });
});

test("should return the v1 response given by the handler", async () => {
  await withServer(fakeHandler(), async (port) => {
    const reply = await send(port, jsonRequest(`{${gvkJSONv1},"request":{}}`));
    expectBody(reply, `{${gvkJSONv1},"response":{"uid":"","allowed":true,"status":{"metadata":{},"code":200}}}\n`);
  });
});

test("should return the v1beta1 response given by the handler", async () => {
  await withServer(fakeHandler(), async (port) => {
    const reply = await send(port, jsonRequest(`{${gvkJSONv1beta1},"request":{}}`));
    expectBody(reply, `{${gvkJSONv1beta1},"response":{"uid":"","allowed":true,"status":{"metadata":{},"code":200}}}\n`);
  });
});

test("should present the Context from the HTTP request, if any", async () => {
  // Go hands the handler the request's context, cancelled, and the handler answers once it is done. Here the
  // request's context is the hook's signal: it aborts when the caller goes away. (A Go context also carries values;
  // an AbortSignal has none, so that half does not apply.)
  let seen: unknown;
  let entered = false;
  const handler = fakeHandler(
    (_review, context) =>
      new Promise((resolve) => {
        entered = true;
        context.signal.addEventListener("abort", () => {
          seen = context.signal.reason;
          resolve({ response: { allowed: true } });
        });
      }),
  );
  await withServer(handler, async (port) => {
    const socket = await tlsConnect(port, certs.caCert);
    const closed = readAll(socket);
    socket.write(headerBlock(jsonRequest(`{"request":{}}`)) + `{"request":{}}`);
    await until(() => entered);
    socket.destroy();
    await closed;
    await until(() => seen !== undefined);
    assert.match(String(seen), /the caller closed the connection/);
  });
});

// "should mutate the Context from the HTTP request, if func supplied" does not apply: Webhook.WithContextFunc derives
// the handler's context from the *http.Request, and crdgen's hooks never see the HTTP request (they get the review,
// the signal and the logger; the review is the whole contract with the API server).

test("should never run into circular calling if the writer has broken", async () => {
  // Go's brokenWriter fails every Write; here the caller hangs up before the answer is written. The answer goes
  // nowhere, nothing loops, and the server goes on serving.
  let answered = 0;
  let entered = false;
  const handler = fakeHandler(
    (review, context) =>
      new Promise((resolve) => {
        entered = true;
        const answer = () => {
          answered++;
          resolve({ response: { allowed: true } });
        };
        if (JSON.stringify(review).includes("hang")) context.signal.addEventListener("abort", answer);
        else answer();
      }),
  );
  await withServer(handler, async (port, lines) => {
    const socket = await tlsConnect(port, certs.caCert);
    const closed = readAll(socket);
    socket.write(headerBlock(jsonRequest(`{"request":{"uid":"hang"}}`)) + `{"request":{"uid":"hang"}}`);
    await until(() => entered);
    socket.destroy();
    assert.equal(await closed, "", "nothing was written");
    await until(() => answered > 0);
    assert.equal(answered, 1);
    const next = await send(port, jsonRequest(`{"request":{"uid":"next"}}`));
    assert.equal(next.status, 200);
    assert.equal((JSON.parse(next.body) as { response: { uid: string } }).response.uid, "next");
    assert.ok(lines.filter((l) => l.includes('"level":"error"')).length <= 1, lines.join("\n"));
  });
});
