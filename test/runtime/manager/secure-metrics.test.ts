// Secure metrics (controller-runtime's WithAuthenticationAndAuthorization): HTTPS, a TokenReview of the caller's bearer
// token, a SubjectAccessReview of its user for `get /metrics`; answers cached; probes stay plain HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:https";
import { createSecureContext } from "node:tls";
import { X509Certificate } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ManagedController } from "@crdgen/runtime";
import { Counter } from "prom-client";
import { Registry } from "@crdgen/runtime/metrics";
import { selfSignedCert, startManager, type Manager } from "@crdgen/runtime/manager";
import { certFileName, keyFileName } from "#runtime/manager/serving-cert.js";
import { json, startFakeApi, type FakeApi } from "../support/fake-api-server.js";
import { quiet } from "../support/cache-fakes.js";

const idle: ManagedController = {
  name: "things.example.com",
  hasSynced: () => true,
  run: (signal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
};

/** Users by token, and the users allowed to get /metrics: what the fake API server's reviews answer. */
const tokens: Record<string, { username: string; groups: string[] }> = {
  "reader-token": { username: "system:serviceaccount:monitoring:prometheus", groups: ["system:serviceaccounts"] },
  "other-token": { username: "system:serviceaccount:default:app", groups: ["system:serviceaccounts"] },
};
const readers = new Set(["system:serviceaccount:monitoring:prometheus"]);

function reviewingApi(): Promise<FakeApi> {
  return startFakeApi((rec, res) => {
    const body = JSON.parse(rec.body || "{}") as {
      spec?: { token?: string; user?: string; nonResourceAttributes?: { path: string; verb: string } };
    };
    if (rec.path === "/apis/authentication.k8s.io/v1/tokenreviews") {
      const user = tokens[body.spec?.token ?? ""];
      json(res, 201, { kind: "TokenReview", status: user ? { authenticated: true, user } : {} });
      return;
    }
    if (rec.path === "/apis/authorization.k8s.io/v1/subjectaccessreviews") {
      const attrs = body.spec?.nonResourceAttributes;
      const allowed = readers.has(body.spec?.user ?? "") && attrs?.path === "/metrics" && attrs.verb === "get";
      json(res, 201, { kind: "SubjectAccessReview", status: { allowed } });
      return;
    }
    json(res, 404, { kind: "Status", code: 404 });
  });
}

interface Answer {
  status: number;
  body: string;
  cert: X509Certificate;
}

/** GET over HTTPS, trusting the server's certificate whatever it is (it is self-signed), returning that certificate. */
function httpsGet(port: number, urlPath: string, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: urlPath,
        rejectUnauthorized: false,
        agent: false,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        const peer = (res.socket as import("node:tls").TLSSocket).getPeerX509Certificate()!;
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), cert: peer }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function secureManager(api: FakeApi, extra: { metricsCertPath?: string } = {}) {
  const stop = new AbortController();
  const registry = new Registry();
  new Counter({ name: "things_seen_total", help: "A series for the scrape to show.", registers: [registry] }).inc();
  const manager: Manager = await startManager([idle], {
    kube: api.client,
    logger: quiet,
    registry,
    signal: stop.signal,
    options: {
      metricsBindAddress: "127.0.0.1:0",
      healthProbeBindAddress: "127.0.0.1:0",
      leaderElect: false,
      ...extra,
    },
  });
  return {
    manager,
    stop: async () => {
      stop.abort();
      await manager.done;
    },
  };
}

const reviews = (api: FakeApi, kind: "tokenreviews" | "subjectaccessreviews") =>
  api.requests.filter((r) => r.method === "POST" && r.path.endsWith(`/${kind}`)).length;

test("by default /metrics is HTTPS: no token 401, an unknown token 401, a user without get /metrics 403, a reader 200", async (t) => {
  const api = await reviewingApi();
  t.after(() => api.close());
  const { manager, stop } = await secureManager(api);
  t.after(stop);
  const port = manager.metricsPort!;
  assert.deepEqual(await httpsGet(port, "/metrics").then((a) => [a.status, a.body]), [401, "Unauthorized\n"]);
  assert.equal(reviews(api, "tokenreviews"), 0, "no token, no TokenReview");
  assert.deepEqual(await httpsGet(port, "/metrics", "forged").then((a) => [a.status, a.body]), [401, "Unauthorized\n"]);
  assert.deepEqual(await httpsGet(port, "/metrics", "other-token").then((a) => [a.status, a.body]), [
    403,
    "Authorization denied for user system:serviceaccount:default:app\n",
  ]);
  const ok = await httpsGet(port, "/metrics", "reader-token");
  assert.equal(ok.status, 200);
  assert.match(ok.body, /^things_seen_total 1$/m, "the Prometheus text of the registry");
  // The reviews asked exactly the right question.
  const sar = api.requests.find((r) => r.path.endsWith("/subjectaccessreviews") && r.body.includes("prometheus"))!;
  assert.deepEqual((JSON.parse(sar.body) as { spec: unknown }).spec, {
    user: "system:serviceaccount:monitoring:prometheus",
    groups: ["system:serviceaccounts"],
    nonResourceAttributes: { path: "/metrics", verb: "get" },
  });
  // Plain HTTP to the metrics port is refused (it speaks TLS only); the probes stay plain HTTP and open.
  await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text()));
  assert.equal((await fetch(`http://127.0.0.1:${manager.healthProbePort}/healthz`)).status, 200);
});

test("TokenReview and SubjectAccessReview answers are cached: a scraper costs two reviews, not two per scrape", async (t) => {
  const api = await reviewingApi();
  t.after(() => api.close());
  const { manager, stop } = await secureManager(api);
  t.after(stop);
  const port = manager.metricsPort!;
  for (let i = 0; i < 3; i++) assert.equal((await httpsGet(port, "/metrics", "reader-token")).status, 200);
  for (let i = 0; i < 3; i++) assert.equal((await httpsGet(port, "/metrics", "other-token")).status, 403);
  assert.equal(reviews(api, "tokenreviews"), 2, "one TokenReview per token");
  assert.equal(reviews(api, "subjectaccessreviews"), 2, "one SubjectAccessReview per user, allowed or denied");
  // A rejected token is not cached: it is asked about each time (it may be a token the API server has just issued).
  for (let i = 0; i < 2; i++) assert.equal((await httpsGet(port, "/metrics", "forged")).status, 401);
  assert.equal(reviews(api, "tokenreviews"), 4);
});

test("an API server that cannot be asked gives 500 with controller-runtime's wording, never 200", async (t) => {
  const api = await startFakeApi((_rec, res) => json(res, 500, { kind: "Status", code: 500, message: "etcd down" }));
  t.after(() => api.close());
  const { manager, stop } = await secureManager(api);
  t.after(stop);
  const answer = await httpsGet(manager.metricsPort!, "/metrics", "reader-token");
  assert.deepEqual([answer.status, answer.body], [500, "Authentication failed\n"]);
});

test("the self-signed certificate names this host; --metrics-cert-path serves tls.crt/tls.key, and a missing file is named", async () => {
  const api = await reviewingApi();
  const dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-certs-"));
  try {
    const selfSigned = await secureManager(api);
    try {
      const { cert } = await httpsGet(selfSigned.manager.metricsPort!, "/metrics");
      assert.ok(cert.checkIP("127.0.0.1") && cert.checkHost("localhost"), cert.subjectAltName);
      assert.ok(cert.verify(cert.publicKey), "self-signed");
    } finally {
      await selfSigned.stop();
    }
    const own = selfSignedCert();
    await writeFile(path.join(dir, certFileName), own.cert);
    await writeFile(path.join(dir, keyFileName), own.key);
    const mounted = await secureManager(api, { metricsCertPath: dir });
    try {
      const { cert } = await httpsGet(mounted.manager.metricsPort!, "/metrics");
      assert.equal(cert.fingerprint256, new X509Certificate(own.cert).fingerprint256, "the mounted certificate");
    } finally {
      await mounted.stop();
    }
    await rm(path.join(dir, keyFileName));
    await assert.rejects(
      secureManager(api, { metricsCertPath: dir }),
      new RegExp(`--metrics-cert-path: cannot read ${path.join(dir, keyFileName).replace(/[.]/g, "\\.")}`),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
    await api.close();
  }
});

test("the certificate's serial is a minimal positive DER integer whatever the random bytes: TLS accepts it", () => {
  // A zero byte before random bytes was padded DER: OpenSSL refused it (illegal padding) when the first random byte
  // was zero too, one certificate in 256.
  const bytes = (first: number[], rest: number) => [...first, ...Array<number>(16 - first.length).fill(rest)];
  const cases: Array<[number[], string]> = [
    [bytes([], 0x00), "40" + "00".repeat(15)],
    [bytes([], 0xff), "7F" + "FF".repeat(15)],
    [bytes([0x80], 0x00), "40" + "00".repeat(15)],
    [bytes([0x00, 0x7f], 0x01), "407F" + "01".repeat(14)],
  ];
  for (const [random, serial] of cases) {
    const made = selfSignedCert({ serialBytes: Uint8Array.from(random) });
    assert.doesNotThrow(() => createSecureContext({ cert: made.cert, key: made.key }), `serial from ${random[0]}`);
    assert.equal(new X509Certificate(made.cert).serialNumber, serial);
  }
});

test("secure metrics cannot share the probes' address (HTTPS and plain HTTP on one port)", async () => {
  const api = await reviewingApi();
  try {
    await assert.rejects(
      startManager([idle], {
        kube: api.client,
        logger: quiet,
        options: {
          metricsBindAddress: "127.0.0.1:18443",
          healthProbeBindAddress: "127.0.0.1:18443",
          leaderElect: false,
        },
      }),
      /secure metrics \(HTTPS\) need their own port/,
    );
  } finally {
    await api.close();
  }
});
