// makeWebhookCertificates: a CA and a serving certificate for loopback that a TLS client trusting only the CA accepts,
// and rotate() writing a new pair signed by the same CA.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { makeWebhookCertificates, type WebhookCertificates } from "@crdgen/runtime/envtest";

let dir: string;
let certs: WebhookCertificates;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-webhook-certs-"));
  certs = await makeWebhookCertificates(dir);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const serving = async () => new X509Certificate(await readFile(path.join(dir, "tls.crt")));

test("the serving certificate is signed by the CA, for localhost, 127.0.0.1 and ::1, and matches tls.key", async () => {
  const ca = new X509Certificate(certs.caCert);
  const cert = await serving();
  assert.equal(ca.ca, true);
  assert.equal(cert.ca, false);
  assert.ok(cert.verify(ca.publicKey), "signed by the CA");
  assert.ok(cert.checkIP("127.0.0.1"));
  assert.ok(cert.checkIP("::1"));
  assert.equal(cert.checkHost("localhost"), "localhost");
  const { createPrivateKey } = await import("node:crypto");
  assert.ok(cert.checkPrivateKey(createPrivateKey(await readFile(path.join(dir, "tls.key")))));
  assert.equal(Buffer.from(certs.caBundle, "base64").toString("utf8"), certs.caCert);
  assert.equal(cert.serialNumber, certs.servingSerial);
});

test("rotate() writes a new key and certificate from the same CA", async () => {
  const before = await serving();
  await certs.rotate();
  const after = await serving();
  assert.notEqual(after.serialNumber, before.serialNumber);
  assert.notEqual(
    after.publicKey.export({ format: "pem", type: "spki" }),
    before.publicKey.export({ format: "pem", type: "spki" }),
  );
  assert.ok(after.verify(new X509Certificate(certs.caCert).publicKey));
  assert.equal(after.serialNumber, certs.servingSerial);
});

test("hosts name the serving certificate instead of loopback: DNS names and IP addresses", async () => {
  const other = await mkdtemp(path.join(os.tmpdir(), "crdgen-webhook-certs-"));
  try {
    const made = await makeWebhookCertificates(other, {
      hosts: ["hook.ops.svc", "hook.ops.svc.cluster.local", "10.0.0.7"],
    });
    const cert = new X509Certificate(await readFile(path.join(other, "tls.crt")));
    assert.ok(cert.verify(new X509Certificate(made.caCert).publicKey), "signed by its CA");
    assert.equal(cert.checkHost("hook.ops.svc"), "hook.ops.svc");
    assert.equal(cert.checkHost("hook.ops.svc.cluster.local"), "hook.ops.svc.cluster.local");
    assert.ok(cert.checkIP("10.0.0.7"));
    assert.equal(cert.checkHost("localhost"), undefined, "loopback only by default");
    assert.equal(cert.checkIP("127.0.0.1"), undefined);
  } finally {
    await rm(other, { recursive: true, force: true });
  }
});
