// startWebhookServer over real TLS: routing, answers to malformed requests, the per-request timeout, the body limit,
// controller-runtime's webhook metrics, request-UID logs, and the certificate reloaded when its files change.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request, type RequestOptions } from "node:https";
import type { TLSSocket } from "node:tls";
import os from "node:os";
import path from "node:path";
import { newLogger } from "@crdgen/runtime";
import { makeWebhookCertificates, type WebhookCertificates } from "@crdgen/runtime/envtest";
import { Registry } from "@crdgen/runtime/metrics";
import { FakeClock } from "@crdgen/runtime/testing";
import {
  admissionWebhooksFor,
  conversionWebhookFor,
  startWebhookServer,
  type AdmissionHooks,
  type AdmissionReview,
  type ConversionReview,
  type WebhookRegistration,
  type WebhookServerOptions,
} from "@crdgen/runtime/webhook";
import { admissionReview, conversionReview, widget, widgets, type Widget } from "./reviews.js";

let dir: string;
let certs: WebhookCertificates;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-webhook-server-test-"));
  certs = await makeWebhookCertificates(dir);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  body: unknown;
  /** The serving certificate's serial number (hex, upper case). */
  serial: string;
}

/** One request on a new TLS connection that trusts only the test CA. */
function send(
  port: number,
  urlPath: string,
  body: string | Buffer,
  options: { method?: string; contentType?: string } = {},
): Promise<Reply> {
  const opts: RequestOptions = {
    host: "127.0.0.1",
    port,
    path: urlPath,
    method: options.method ?? "POST",
    ca: certs.caCert,
    agent: false,
    headers: { "content-type": options.contentType ?? "application/json", "content-length": Buffer.byteLength(body) },
  };
  return new Promise((resolve, reject) => {
    const req = request(opts, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, serial });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

const json = (value: unknown) => JSON.stringify(value);

const hooks: AdmissionHooks<Widget> = {
  default(obj) {
    obj.spec.replicas ??= 1;
  },
  async validateCreate(obj, req) {
    // "panic" trips over a bug (the engine's TypeError), to show the panic recovered, counted and logged.
    if (obj.metadata?.name === "panic") (obj.spec as unknown as { missing: { depth: number } }).missing.depth += 1;
    // "slow" waits until the server gives up on the request (its signal), to show the timeout.
    if (obj.metadata?.name === "slow")
      await new Promise<void>((resolve) => req.signal.addEventListener("abort", () => resolve(), { once: true }));
  },
};

async function withServer(
  extra: Partial<WebhookServerOptions>,
  run: (port: number, registry: Registry, lines: string[]) => Promise<void>,
): Promise<void> {
  const registry = new Registry();
  const lines: string[] = [];
  const server = await startWebhookServer({
    webhooks: [
      ...admissionWebhooksFor(widgets, hooks),
      conversionWebhookFor(widgets, {
        hub: "v1",
        spokes: {
          v1alpha1: {
            toHub: (o) => {
              if (o.metadata?.name === "panic") throw new RangeError("Invalid array length"); // as new Array(-1)
              return o;
            },
            fromHub: (h) => h,
          },
        },
      }),
    ],
    host: "127.0.0.1",
    port: 0,
    certDir: dir,
    registry,
    logger: newLogger({ level: "debug", write: (line) => lines.push(line) }),
    ...extra,
  });
  try {
    assert.equal(server.started(), true);
    await run(server.port, registry, lines);
  } finally {
    await server.close();
    assert.equal(server.started(), false);
  }
}

test("admission and conversion reviews are answered over TLS with the CA's certificate, at their paths", async () => {
  await withServer({}, async (port) => {
    const review = admissionReview("CREATE", widget("w1", {}));
    const mutated = await send(port, "/mutate-webhook-example-com-v1-widget", json(review));
    assert.equal(mutated.status, 200);
    assert.equal((mutated.body as AdmissionReview).response?.uid, review.request!.uid);
    assert.equal((mutated.body as AdmissionReview).response?.patchType, "JSONPatch");
    assert.equal(mutated.serial, certs.servingSerial);

    const validated = await send(port, "/validate-webhook-example-com-v1-widget", json(review));
    assert.equal((validated.body as AdmissionReview).response?.allowed, true);

    const converted = await send(
      port,
      "/convert",
      json(conversionReview("webhook.example.com/v1alpha1", [widget("w1", {})])),
    );
    assert.equal(converted.status, 200);
    assert.equal((converted.body as ConversionReview).response?.result.status, "Success");
  });
});

test("a malformed admission request is refused in a review at HTTP 200 (failurePolicy: Ignore must not admit it)", async () => {
  await withServer({ maxRequestBytes: 64 * 1024 }, async (port) => {
    const validate = "/validate-webhook-example-com-v1-widget";
    const review = json(admissionReview("CREATE", widget("w1", {})));
    const cases: Array<[string, Promise<Reply>, number, RegExp]> = [
      ["GET, no body", send(port, validate, "", { method: "GET" }), 400, /^request body is empty$/],
      ["text/plain", send(port, validate, review, { contentType: "text/plain" }), 400, /^contentType=text\/plain, exp/],
      ["not JSON", send(port, validate, "{"), 400, /^couldn't get version\/kind; json parse error: /],
      ["not a review", send(port, validate, json({ kind: "Pod" })), 400, /^no kind "Pod" is registered for version/],
      ["request not an object", send(port, validate, json({ request: 5 })), 400, /request is not an object/],
      ["no operation", send(port, validate, json({ request: { uid: "u1" } })), 400, /^unknown operation ""$/],
      [
        "too large",
        send(port, validate, json({ ...admissionReview("CREATE", widget("w1", {})), pad: "x".repeat(65 * 1024) })),
        413,
        /^request entity is too large; limit is 65536 bytes$/,
      ],
    ];
    for (const [what, reply, code, message] of cases) {
      const { status, body } = await reply;
      assert.equal(status, 200, what);
      const response = (body as AdmissionReview).response;
      assert.equal(response?.allowed, false, what);
      assert.equal(response.status?.code, code, what);
      assert.match(response.status.message ?? "", message, what);
    }
    const known = await send(port, validate, json({ request: { uid: "u1" } }));
    assert.equal((known.body as AdmissionReview).response?.uid, "u1", "once decoded, the answer carries the uid");
  });
});

test("an admission registration that throws is answered 500 in a review at HTTP 200, and logged", async () => {
  const lines: string[] = [];
  const broken: WebhookRegistration = {
    ...admissionWebhooksFor(widgets, hooks)[1]!,
    handle: () => Promise.reject(new Error("the registration broke")),
  };
  const server = await startWebhookServer({
    webhooks: [broken],
    host: "127.0.0.1",
    port: 0,
    certDir: dir,
    registry: new Registry(),
    logger: newLogger({ write: (line) => lines.push(line) }),
  });
  try {
    const review = admissionReview("CREATE", widget("w1", {}));
    const reply = await send(server.port, broken.path, json(review));
    assert.equal(reply.status, 200);
    assert.deepEqual((reply.body as AdmissionReview).response, {
      uid: review.request!.uid,
      allowed: false,
      status: { code: 500, message: "the registration broke" },
    });
    assert.ok(
      lines.some((l) => l.includes('"msg":"webhook request failed"')),
      lines.join("\n"),
    );
  } finally {
    await server.close();
  }
});

test("conversion answers HTTP 400 for a body that is not a review, 404 off its paths, any content type", async () => {
  await withServer({}, async (port) => {
    const cases: Array<[string, Promise<Reply>, number, RegExp]> = [
      ["unknown path", send(port, "/mutate-other", "{}"), 404, /no webhook is served at \/mutate-other/],
      ["not JSON", send(port, "/convert", "{"), 400, /the body is not JSON/],
      ["no request", send(port, "/convert", json({ kind: "ConversionReview" })), 400, /conversion request is nil/],
    ];
    for (const [what, reply, code, message] of cases) {
      const { status, body } = await reply;
      assert.equal(status, code, what);
      assert.equal((body as { kind?: string }).kind, "Status", what);
      assert.match((body as { message: string }).message, message, what);
    }
    const plain = json(conversionReview("webhook.example.com/v1alpha1", [widget("w1", {})]));
    const converted = await send(port, "/convert", plain, { contentType: "text/plain" });
    assert.equal((converted.body as ConversionReview).response?.result.status, "Success");
  });
});

test("a request not answered within requestTimeoutMs gets 503 and the hook's signal aborts", async () => {
  // The deadline runs on the server's clock: the review waits, whatever the machine's load, until the test moves
  // the clock past it.
  const clock = new FakeClock();
  await withServer({ requestTimeoutMs: 300, clock }, async (port) => {
    const path = "/validate-webhook-example-com-v1-widget";
    const pending = send(port, path, json(admissionReview("CREATE", widget("slow", {}))));
    await until(() => clock.hasWaiters());
    clock.step(299);
    assert.equal(await settledWithin(pending), false, "no answer before the deadline");
    clock.step(1);
    const reply = await pending;
    assert.equal(reply.status, 503);
    assert.match((reply.body as { message: string }).message, /did not answer within 300 ms/);
    // The hook returned once aborted: the next request is served normally.
    const next = await send(port, path, json(admissionReview("CREATE", widget("w1", {}))));
    assert.equal(next.status, 200);
  });
});

/** Waits (on real time, in small turns) until `ready` holds; fails after 10 s saying so. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(ready(), "the request never reached its hook");
}

/** Whether `p` settles within a few event-loop turns and 50 ms of real time. */
async function settledWithin(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  return settled;
}

test("controller_runtime_webhook_* metrics count requests by path and HTTP code, time them, and track those in flight", async () => {
  await withServer({ requestTimeoutMs: 300 }, async (port, registry) => {
    const validate = "/validate-webhook-example-com-v1-widget";
    await send(port, validate, json(admissionReview("CREATE", widget("w1", {}))));
    await send(port, validate, json(admissionReview("CREATE", widget("w2", {}))));
    await send(port, validate, "{");
    await send(port, "/mutate-webhook-example-com-v1-widget", json(admissionReview("CREATE", widget("w1", {}))));
    const text = await registry.metrics();
    assert.match(
      text,
      /^controller_runtime_webhook_requests_total\{webhook="\/validate-webhook-example-com-v1-widget",code="200"\} 3$/m,
    );
    await send(port, "/convert", "{");
    assert.match(
      await registry.metrics(),
      /^controller_runtime_webhook_requests_total\{webhook="\/convert",code="400"\} 1$/m,
    );
    assert.match(
      text,
      /^controller_runtime_webhook_requests_total\{webhook="\/mutate-webhook-example-com-v1-widget",code="200"\} 1$/m,
    );
    assert.match(
      text,
      /^controller_runtime_webhook_latency_seconds_count\{webhook="\/validate-webhook-example-com-v1-widget"\} 3$/m,
    );
    assert.match(
      text,
      /^controller_runtime_webhook_requests_in_flight\{webhook="\/validate-webhook-example-com-v1-widget"\} 0$/m,
    );

    // While a request hangs, it is in flight.
    const slow = send(port, validate, json(admissionReview("CREATE", widget("slow", {}))));
    for (const deadline = Date.now() + 30_000; ;) {
      assert.ok(Date.now() < deadline, "the hanging request shows in flight within 30 s");
      const now = await registry.metrics();
      if (/^controller_runtime_webhook_requests_in_flight\{webhook="\/validate-[^"]*"\} 1$/m.test(now)) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal((await slow).status, 503);
    assert.match(
      await registry.metrics(),
      /requests_total\{webhook="\/validate-webhook-example-com-v1-widget",code="503"\} 1$/m,
    );
  });
});

test("a hook's panic is recovered (review status 500), counted per webhook type (no labels) and logged", async () => {
  await withServer({}, async (port, registry, lines) => {
    const zero = await registry.metrics();
    assert.match(zero, /^controller_runtime_webhook_panics_total 0$/m);
    assert.match(zero, /^controller_runtime_conversion_webhook_panics_total 0$/m);

    const validate = "/validate-webhook-example-com-v1-widget";
    const refused = await send(port, validate, json(admissionReview("CREATE", widget("panic", {}))));
    assert.equal(refused.status, 200, "a recovered panic is an answer, not an HTTP error");
    const review = refused.body as AdmissionReview;
    assert.equal(review.response?.allowed, false);
    assert.equal(review.response.status?.code, 500);
    assert.match(review.response.status.message ?? "", /^panic: TypeError: .* \[recovered\]$/);
    await send(port, validate, json(admissionReview("CREATE", widget("fine", {}))));
    const converted = await send(
      port,
      "/convert",
      json(
        conversionReview("webhook.example.com/v1", [
          { ...widget("panic", {}), apiVersion: "webhook.example.com/v1alpha1" },
        ]),
      ),
    );
    // As controller-runtime: the API server is told an internal error; the panic's value is in the log.
    assert.deepEqual((converted.body as ConversionReview).response?.result, {
      status: "Failure",
      message: "internal error occurred during conversion",
    });

    const text = await registry.metrics();
    assert.match(text, /^controller_runtime_webhook_panics_total 1$/m);
    assert.match(text, /^controller_runtime_conversion_webhook_panics_total 1$/m);
    assert.match(text, /requests_total\{webhook="\/validate-webhook-example-com-v1-widget",code="200"\} 2$/m);
    const logged = lines.filter((l) => l.includes("Observed a panic in webhook"));
    assert.equal(logged.length, 2, lines.join("\n"));
    const first = JSON.parse(logged[0]!) as Record<string, string>;
    assert.equal(first["level"], "error");
    assert.equal(
      first["msg"],
      "Observed a panic in webhook: TypeError: Cannot read properties of undefined (reading 'depth')",
    );
    assert.equal(first["webhook"], validate);
    assert.match(first["stack"] ?? "", /^TypeError: .*\n +at .*validateCreate/);
    assert.match(logged[1]!, /"webhook":"\/convert"/);
  });
});

test("readiness (controller-runtime's StartedChecker) is a TLS handshake with the server, bound to one address or all", async () => {
  for (const host of ["127.0.0.1", undefined]) {
    const server = await startWebhookServer({
      webhooks: admissionWebhooksFor(widgets, hooks),
      port: 0,
      certDir: dir,
      registry: new Registry(),
      logger: newLogger({ write: () => undefined }),
      ...(host !== undefined ? { host } : {}),
    });
    try {
      await server.checkStarted();
    } finally {
      await server.close();
    }
    await assert.rejects(server.checkStarted(), /^Error: webhook server has not been started yet$/);
  }
});

test("each request is logged with its uid and the webhook's path", async () => {
  await withServer({}, async (port, _registry, lines) => {
    const review = admissionReview("CREATE", widget("w1", {}));
    await send(port, "/validate-webhook-example-com-v1-widget", json(review));
    const entry = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e["msg"] === "webhook request answered");
    assert.ok(entry, `a log line for the request among ${lines.join("\n")}`);
    assert.equal(entry["uid"], review.request!.uid);
    assert.equal(entry["webhook"], "/validate-webhook-example-com-v1-widget");
    assert.equal(entry["allowed"], true);
  });
});

test("new certificate files in the folder are served to the next connection, without a restart", async () => {
  await withServer({}, async (port) => {
    const review = () => json(admissionReview("CREATE", widget("w1", {})));
    const first = await send(port, "/validate-webhook-example-com-v1-widget", review());
    assert.equal(first.serial, certs.servingSerial);
    await certs.rotate();
    assert.notEqual(certs.servingSerial, first.serial);
    // The folder watch reloads the pair; wait for its effect on a new connection.
    for (const deadline = Date.now() + 30_000; ;) {
      const reply = await send(port, "/validate-webhook-example-com-v1-widget", review());
      assert.equal(reply.status, 200);
      if (reply.serial === certs.servingSerial) break;
      assert.ok(Date.now() < deadline, `still serving ${reply.serial} 30 s after rotating to ${certs.servingSerial}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});

test("a certificate that cannot be read fails the start, naming the file; so do two webhooks at one admission path", async () => {
  const empty = await mkdtemp(path.join(os.tmpdir(), "crdgen-webhook-empty-"));
  try {
    await assert.rejects(
      startWebhookServer({ webhooks: admissionWebhooksFor(widgets, hooks), port: 0, certDir: empty }),
      new RegExp(`cannot read ${path.join(empty, "tls.crt").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    await writeFile(path.join(empty, "tls.crt"), "not a certificate");
    await writeFile(path.join(empty, "tls.key"), "not a key");
    await assert.rejects(
      startWebhookServer({ webhooks: admissionWebhooksFor(widgets, hooks), port: 0, certDir: empty }),
      /are not a certificate and its key/,
    );
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
  await assert.rejects(
    startWebhookServer({
      webhooks: [...admissionWebhooksFor(widgets, hooks), ...admissionWebhooksFor(widgets, hooks)],
      port: 0,
      certDir: dir,
    }),
    /two webhooks at \/mutate-webhook-example-com-v1-widget/,
  );
});

test("conversion webhooks of two kinds share /convert, each review going to its kind's", async () => {
  const gadgets = { ...widgets, kind: "Gadget", plural: "gadgets" };
  const tagged = (tag: string) => ({
    toHub: (o: Widget) => ({ ...o, spec: { ...o.spec, engine: tag } }),
    fromHub: (h: Widget) => ({ ...h, spec: { ...h.spec, engine: tag } }),
  });
  const server = await startWebhookServer({
    webhooks: [
      conversionWebhookFor(widgets, { hub: "v1", spokes: { v1alpha1: tagged("widget") } }),
      conversionWebhookFor(gadgets, { hub: "v1", spokes: { v1alpha1: tagged("gadget") } }),
    ],
    host: "127.0.0.1",
    port: 0,
    certDir: dir,
    registry: new Registry(),
    logger: newLogger({ write: () => undefined }),
  });
  try {
    const gadget = { ...widget("g1", {}), kind: "Gadget" };
    const reply = await send(server.port, "/convert", json(conversionReview("webhook.example.com/v1alpha1", [gadget])));
    const out = (reply.body as ConversionReview).response!.convertedObjects[0] as Widget;
    assert.equal(out.kind, "Gadget");
    assert.equal(out.spec.engine, "gadget");
  } finally {
    await server.close();
  }
});
