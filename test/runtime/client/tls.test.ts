// KubeClient over HTTPS: CA verification, client-certificate auth and insecure-skip-tls-verify from the kubeconfig.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import type { PeerCertificate, TLSSocket } from "node:tls";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { type KubeClient } from "@crdgen/runtime";
import { HttpKubeClient, TransportError, loadKubeClient } from "@crdgen/runtime/client";

// Test-only PKI (EC P-256, valid for 100 years): a CA, a server certificate for IP 127.0.0.1, a client certificate.
// Regenerate with openssl req/x509 if ever needed; nothing else trusts this CA.
const CA_CERT = `-----BEGIN CERTIFICATE-----
MIIBiTCCAS+gAwIBAgIUCfGAAygdWxCz+Yz0YOyRfIqY6uowCgYIKoZIzj0EAwIw
GTEXMBUGA1UEAwwOY3JkZ2VuLXRlc3QtY2EwIBcNMjYxMjAyMTcxMjIwWhgPMjEy
NjExMDgxNzEyMjBaMBkxFzAVBgNVBAMMDmNyZGdlbi10ZXN0LWNhMFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAENyVAtE7D9pZ4Np5BGI1hFE6ZesZ2RFFE5L4PzjEe
csC/ytEWByULFbYOJjw6tCZLXV5jXomena6PZBPP2uiTxKNTMFEwHQYDVR0OBBYE
FDt4SjBhcxKdLP0w+IX+9mPy4XHpMB8GA1UdIwQYMBaAFDt4SjBhcxKdLP0w+IX+
9mPy4XHpMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIga++kjP1P
YCCeIL2OePecXtQv5DylF0xqPVG9VBOXujcCIQCI68xz7d4K7at/4HIX5htgTfpt
hxslND80YQikMJgObg==
-----END CERTIFICATE-----
`;
const SERVER_CERT = `-----BEGIN CERTIFICATE-----
MIIBmDCCAT+gAwIBAgIUCe83lpGxeMgM8nZCwkKeugO0OxkwCgYIKoZIzj0EAwIw
GTEXMBUGA1UEAwwOY3JkZ2VuLXRlc3QtY2EwIBcNMjYxMjAyMTcxMjIwWhgPMjEy
NjExMDgxNzEyMjBaMBQxEjAQBgNVBAMMCTEyNy4wLjAuMTBZMBMGByqGSM49AgEG
CCqGSM49AwEHA0IABBFuSE5mw3AErrw1Bmv2CtvSCZ8zMlb1T72lksWLrFmbUq3h
2PFEaumEfFE8rD8OuHXpvxPmMhQFdfEmFY3flKmjaDBmMA8GA1UdEQQIMAaHBH8A
AAEwEwYDVR0lBAwwCgYIKwYBBQUHAwEwHQYDVR0OBBYEFG8p5gHOSx4iKqm9RyQj
ansu6WhRMB8GA1UdIwQYMBaAFDt4SjBhcxKdLP0w+IX+9mPy4XHpMAoGCCqGSM49
BAMCA0cAMEQCIFdTvYWZ1qfbTnSLno5mdaavO3vako4SUfhnI7J8w60IAiAz6qRl
rzkcqACkWUyRFOlmho2ZB7qGvG/IWBG7nZMrqg==
-----END CERTIFICATE-----
`;
const SERVER_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgLr3wMTjkYO+D6vG4
NKkYnpvNnkxNI2YWwHbkWhCduR+hRANCAAQRbkhOZsNwBK68NQZr9grb0gmfMzJW
9U+9pZLFi6xZm1Kt4djxRGrphHxRPKw/Drh16b8T5jIUBXXxJhWN35Sp
-----END PRIVATE KEY-----
`;
const CLIENT_CERT = `-----BEGIN CERTIFICATE-----
MIIBpzCCAU6gAwIBAgIUCe83lpGxeMgM8nZCwkKeugO0OxowCgYIKoZIzj0EAwIw
GTEXMBUGA1UEAwwOY3JkZ2VuLXRlc3QtY2EwIBcNMjYxMjAyMTcxMjIwWhgPMjEy
NjExMDgxNzEyMjBaMDQxGTAXBgNVBAMMEGNyZGdlbi10ZXN0LXVzZXIxFzAVBgNV
BAoMDnN5c3RlbTptYXN0ZXJzMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEsAyQ
ZgeO9PK7u6aYXlK/M6VfX4GNlWzyiGmIjXci+A/1XuUhmjeHiv/4v8KetFNribNA
XH8TxLHvKvKKpAEBy6NXMFUwEwYDVR0lBAwwCgYIKwYBBQUHAwIwHQYDVR0OBBYE
FAqe44mZCvoXTNnM1/j0txlHz2TpMB8GA1UdIwQYMBaAFDt4SjBhcxKdLP0w+IX+
9mPy4XHpMAoGCCqGSM49BAMCA0cAMEQCIDeGIa6Gw+dMOrLuQcROuSGXBQWhcFFI
ff8JNPWdNTDzAiBvL/XAmR7FtFLq6BehAPwsXWWV1IMha06FHxivSbddkA==
-----END CERTIFICATE-----
`;
const CLIENT_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg1MrvdwcPrvAPvefH
VN05C0GsAt8u9/BF5Hprk4+tvhWhRANCAASwDJBmB4708ru7ppheUr8zpV9fgY2V
bPKIaYiNdyL4D/Ve5SGaN4eK//i/wp60U2uJs0BcfxPEse8q8oqkAQHL
-----END PRIVATE KEY-----
`;

const b64 = (s: string): string => Buffer.from(s).toString("base64");

interface Cluster {
  caData?: string;
  skipTLSVerify?: boolean;
}

async function withTlsServer(fn: (url: string) => Promise<void>): Promise<void> {
  const server = https.createServer(
    { key: SERVER_KEY, cert: SERVER_CERT, ca: CA_CERT, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      // An empty object when the client sent no certificate, whatever the declared type says.
      const peer: Partial<PeerCertificate> = socket.getPeerCertificate();
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ authorized: socket.authorized, user: peer.subject?.CN ?? null }));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await fn(`https://127.0.0.1:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function client(server: string, cluster: Cluster, withClientCert: boolean): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: "tls",
        server,
        skipTLSVerify: cluster.skipTLSVerify ?? false,
        ...(cluster.caData ? { caData: cluster.caData } : {}),
      },
    ],
    users: [withClientCert ? { name: "u", certData: b64(CLIENT_CERT), keyData: b64(CLIENT_KEY) } : { name: "u" }],
    contexts: [{ name: "ctx", cluster: "tls", user: "u" }],
    currentContext: "ctx",
  });
  return HttpKubeClient.fromKubeConfig(kc);
}

test("https: the kubeconfig CA verifies the server and the client certificate identifies the user", () =>
  withTlsServer(async (url) => {
    await assertVerifiedAsTestUser(client(url, { caData: b64(CA_CERT) }, true));
  }));

/** The client trusted the server and the server saw the test user's client certificate; closes the client. */
async function assertVerifiedAsTestUser(c: KubeClient): Promise<void> {
  try {
    assert.deepEqual(await c.request({ method: "GET", path: "/version" }), {
      authorized: true,
      user: "crdgen-test-user",
    });
  } finally {
    c.close();
  }
}

test("https: a server certificate not signed by a trusted CA fails with TransportError", () =>
  withTlsServer(async (url) => {
    const c = client(url, {}, false);
    try {
      await assert.rejects(
        c.request({ method: "GET", path: "/version" }),
        (e: unknown) => e instanceof TransportError && typeof e.code === "string" && e.path === "/version",
      );
    } finally {
      c.close();
    }
  }));

test("https: insecure-skip-tls-verify accepts an untrusted server certificate", () =>
  withTlsServer(async (url) => {
    const c = client(url, { skipTLSVerify: true }, false);
    try {
      assert.deepEqual(await c.request({ method: "GET", path: "/version" }), { authorized: false, user: null });
    } finally {
      c.close();
    }
  }));

test("loadKubeClient: the CA, client certificate and key files are read relative to the kubeconfig", () =>
  withTlsServer(async (url) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "crdgen-tls-"));
    try {
      fs.mkdirSync(path.join(dir, "pki"));
      for (const [name, pem] of [
        ["ca.crt", CA_CERT],
        ["client.crt", CLIENT_CERT],
        ["client.key", CLIENT_KEY],
      ])
        fs.writeFileSync(path.join(dir, "pki", name!), pem!);
      const kubeconfig = path.join(dir, "config");
      fs.writeFileSync(
        kubeconfig,
        [
          "clusters:",
          `- name: tls\n  cluster:\n    server: ${url}\n    certificate-authority: pki/ca.crt`,
          "users:",
          "- name: u\n  user:\n    client-certificate: pki/client.crt\n    client-key: pki/client.key",
          "contexts:",
          "- name: ctx\n  context: {cluster: tls, user: u}",
          "current-context: ctx",
        ].join("\n"),
      );
      await assertVerifiedAsTestUser(loadKubeClient({ kubeconfig }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));
