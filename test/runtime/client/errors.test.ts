// How API-server error responses, network failures and aborts surface from the client.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError, ResourceClient, ignoreNotFound, isAlreadyExists, isConflict, isNotFound } from "@crdgen/runtime";
import { HttpKubeClient, TransportError, isForbidden, isGone, isInvalid, type Status } from "@crdgen/runtime/client";
import { startFakeApi, json, makeKubeConfig, type Handler, widgets } from "../support/fake-api-server.js";

function status(code: number, reason: string, message: string, details?: Status["details"]): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code,
    reason,
    message,
    ...(details ? { details } : {}),
  };
}

async function failWith(
  handler: Handler,
  call: (rc: ResourceClient<{ metadata?: { name?: string } }>) => Promise<unknown>,
): Promise<unknown> {
  const api = await startFakeApi(handler);
  try {
    await call(new ResourceClient(api.client, widgets));
  } catch (e) {
    return e;
  } finally {
    await api.close();
  }
  assert.fail("expected the call to throw");
}

test("a 404 Status becomes an ApiError with status, reason, the server message and the request", async () => {
  const msg = 'widgets.example.com "w1" not found';
  const e = await failWith(
    (_r, res) => json(res, 404, status(404, "NotFound", msg, { name: "w1", group: "example.com", kind: "widgets" })),
    (rc) => rc.get("ns1", "w1"),
  );
  assert.ok(e instanceof ApiError);
  assert.equal(e.status, 404);
  assert.equal(e.reason, "NotFound");
  assert.equal(e.message, msg);
  assert.equal(e.method, "GET");
  assert.equal(e.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1");
  assert.equal((e.body as Status).details?.name, "w1");
  assert.equal(String(e), `ApiError: GET /apis/example.com/v1/namespaces/ns1/widgets/w1 -> 404 NotFound: ${msg}`);
  assert.ok(isNotFound(e));
  assert.ok(!isConflict(e) && !isGone(e) && !isInvalid(e) && !isForbidden(e) && !isAlreadyExists(e));
});

test("a 409 Conflict Status is isConflict but not isAlreadyExists", async () => {
  const e = await failWith(
    (_r, res) =>
      json(
        res,
        409,
        status(409, "Conflict", "the object has been modified; please apply your changes to the latest version"),
      ),
    (rc) => rc.update("ns1", { metadata: { name: "w1" } }),
  );
  assert.ok(e instanceof ApiError);
  assert.equal(e.status, 409);
  assert.equal(e.reason, "Conflict");
  assert.match(e.message, /has been modified/);
  assert.ok(isConflict(e));
  assert.ok(!isAlreadyExists(e));
});

test("a 409 AlreadyExists Status is isAlreadyExists but not isConflict", async () => {
  const e = await failWith(
    (_r, res) => json(res, 409, status(409, "AlreadyExists", 'widgets.example.com "w1" already exists')),
    (rc) => rc.create("ns1", { metadata: { name: "w1" } }),
  );
  assert.ok(e instanceof ApiError);
  assert.equal(e.reason, "AlreadyExists");
  assert.ok(isAlreadyExists(e));
  assert.ok(!isConflict(e));
});

test("a 422 Invalid Status keeps its field causes in the body", async () => {
  const causes = [{ reason: "FieldValueInvalid", message: "must be >= 1", field: "spec.size" }];
  const e = await failWith(
    (_r, res) =>
      json(res, 422, status(422, "Invalid", 'Widget.example.com "w1" is invalid: spec.size: must be >= 1', { causes })),
    (rc) => rc.create("ns1", { metadata: { name: "w1" } }),
  );
  assert.ok(e instanceof ApiError);
  assert.equal(e.status, 422);
  assert.equal(e.reason, "Invalid");
  assert.match(e.message, /spec\.size: must be >= 1/);
  assert.deepEqual((e.body as Status).details?.causes, causes);
  assert.ok(isInvalid(e));
});

test("a 403 Forbidden Status is isForbidden", async () => {
  const e = await failWith(
    (_r, res) => json(res, 403, status(403, "Forbidden", 'widgets is forbidden: User "x" cannot list')),
    (rc) => rc.list(undefined),
  );
  assert.ok(isForbidden(e));
});

test("a non-JSON error body is kept as text and the reason comes from the HTTP code", async () => {
  const e = await failWith(
    (_r, res) => {
      res.writeHead(503, { "Content-Type": "text/html", "Retry-After": "7" });
      res.end("<html>upstream unavailable</html>");
    },
    (rc) => rc.get("ns1", "w1"),
  );
  assert.ok(e instanceof ApiError);
  assert.equal(e.status, 503);
  assert.equal(e.reason, "ServiceUnavailable");
  assert.equal(e.body, "<html>upstream unavailable</html>");
  assert.equal(e.message, "<html>upstream unavailable</html>");
  assert.equal(e.retryAfterSeconds, 7);
});

test("a 429 with details.retryAfterSeconds sets retryAfterSeconds", async () => {
  const e = await failWith(
    (_r, res) => json(res, 429, status(429, "TooManyRequests", "slow down", { retryAfterSeconds: 3 })),
    (rc) => rc.list("ns1"),
  );
  assert.ok(e instanceof ApiError);
  assert.equal(e.retryAfterSeconds, 3);
});

test("isGone matches 410, reason Expired and a bare Status from a watch ERROR event", () => {
  const expired = status(410, "Expired", "too old resource version: 1 (5)");
  assert.ok(isGone(expired));
  assert.ok(isGone(ApiError.fromStatus(expired, "GET", "/apis/example.com/v1/widgets")));
  assert.ok(isGone(new ApiError({ status: 410, method: "GET", path: "/x", body: "" })));
  assert.ok(isGone({ kind: "Status", reason: "Expired" }));
  assert.ok(!isGone(status(500, "InternalError", "boom")));
  assert.ok(!isGone(new Error("410")));
  assert.ok(!isNotFound(undefined));
});

test("a refused connection throws TransportError with method, path, errno code and cause", async () => {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const client = HttpKubeClient.fromKubeConfig(makeKubeConfig(`http://127.0.0.1:${port}`));
  try {
    const e = await new ResourceClient(client, widgets).get("ns1", "w1").then(
      () => assert.fail("expected a TransportError"),
      (err: unknown) => err,
    );
    assert.ok(e instanceof TransportError);
    assert.ok(!(e instanceof ApiError));
    assert.equal(e.method, "GET");
    assert.equal(e.path, "/apis/example.com/v1/namespaces/ns1/widgets/w1");
    assert.equal(e.code, "ECONNREFUSED");
    assert.equal((e.cause as { code?: string }).code, "ECONNREFUSED");
  } finally {
    client.close();
  }
});

test("aborting a pending request rejects with the abort reason", async () => {
  const api = await startFakeApi(() => {
    /* never answers */
  });
  try {
    const ac = new AbortController();
    const p = new ResourceClient(api.client, widgets).get("ns1", "w1", ac.signal);
    setTimeout(() => ac.abort(), 20);
    await assert.rejects(p, { name: "AbortError" });
  } finally {
    await api.close();
  }
});

test("an unanswered request fails with TransportError IdleTimeout after requestIdleTimeoutMs", async () => {
  const api = await startFakeApi(() => {
    /* never answers */
  });
  const client = HttpKubeClient.fromKubeConfig(api.kc, { requestIdleTimeoutMs: 50 });
  try {
    await assert.rejects(
      client.request({ method: "GET", path: "/api/v1/pods" }),
      (e: unknown) => e instanceof TransportError && e.code === "IdleTimeout",
    );
  } finally {
    client.close();
    await api.close();
  }
});

test("a 2xx body that is not JSON throws TransportError MalformedResponse", async () => {
  const e = await failWith(
    (_r, res) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("ok");
    },
    (rc) => rc.get("ns1", "w1"),
  );
  assert.ok(e instanceof TransportError);
  assert.equal(e.code, "MalformedResponse");
});

test("a GET on a pooled connection the server dropped is retried once on a new connection; a POST is not", async () => {
  const seenOnSocket = new Map<number, number>();
  const api = await startFakeApi((rec, res, req) => {
    const n = (seenOnSocket.get(rec.remotePort ?? 0) ?? 0) + 1;
    seenOnSocket.set(rec.remotePort ?? 0, n);
    if (n === 2) return req.socket.destroy(); // the second request on any socket finds it dead
    json(res, 200, { kind: "Echo" });
  });
  try {
    await api.client.request({ method: "GET", path: "/api/v1/a" });
    assert.deepEqual(await api.client.request({ method: "GET", path: "/api/v1/b" }), { kind: "Echo" });
    assert.deepEqual(
      api.requests.map((r) => r.path),
      ["/api/v1/a", "/api/v1/b", "/api/v1/b"],
    );
    assert.equal(new Set(api.requests.map((r) => r.remotePort)).size, 2);
    await assert.rejects(
      api.client.request({ method: "POST", path: "/api/v1/c", body: {} }),
      (e: unknown) => e instanceof TransportError && e.code === "ECONNRESET",
    );
  } finally {
    await api.close();
  }
});

test("ignoreNotFound turns a NotFound rejection into undefined and rethrows anything else", async () => {
  const notFound = new ApiError({
    status: 404,
    method: "GET",
    path: "/api/v1/namespaces/a/secrets/x",
    body: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 },
  });
  const conflict = new ApiError({
    status: 409,
    method: "PUT",
    path: "/x",
    body: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Conflict", code: 409 },
  });
  assert.equal(await Promise.reject<string>(notFound).catch(ignoreNotFound), undefined);
  assert.equal(await Promise.resolve("found").catch(ignoreNotFound), "found");
  await assert.rejects(Promise.reject(conflict).catch(ignoreNotFound), (e) => e === conflict);
  const transport = new Error("socket hang up");
  await assert.rejects(Promise.reject(transport).catch(ignoreNotFound), (e) => e === transport);
});
