// Certificates for the local control plane (as envtest's TinyCA): a CA, the apiserver's serving cert, an admin client
// cert, a service-account key. Made in process by tls/certificates (node-forge): no external command needed.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { altNamesOf, newKeyPair, randomSerial, signCertificate, type KeyPair } from "../tls/certificates.js";
import { realNodeGateway } from "./real-node.js";

export interface ControlPlaneCerts {
  caCert: string;
  servingCert: string;
  servingKey: string;
  /** Client certificate of the `admin` user in group system:masters. */
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

const days = (n: number) => n * 86_400_000;

// Pods of a real node reach the API server as kubernetes.default.svc (the first address of the service range,
// 10.0.0.1) or at the node's bridge gateway, where it advertises itself.
export const apiServerHosts: readonly string[] = [
  "localhost",
  "127.0.0.1",
  "kubernetes",
  "kubernetes.default",
  "kubernetes.default.svc",
  "kubernetes.default.svc.cluster.local",
  "10.0.0.1",
  realNodeGateway,
];

/** RSA 2048 keys and 7-day certificates (a minute of clock skew allowed), written into `dir` as PEM files. */
export async function makeCerts(dir: string): Promise<ControlPlaneCerts> {
  const f = (name: string) => path.join(dir, name);
  const validity = () => ({ notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + days(7)) });
  const write = async (name: string, pem: string) => writeFile(f(name), pem, { mode: 0o600 });

  const ca = newKeyPair();
  const caCert = signCertificate({
    publicKey: ca.publicKey,
    selfKey: ca.privateKey,
    organization: "crdgen",
    commonName: "crdgen-envtest-ca",
    serial: randomSerial(),
    ...validity(),
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  await write("ca.crt", caCert);

  const signed = async (name: string, subject: { organization?: string; commonName: string }, usage: object[]) => {
    const pair: KeyPair = newKeyPair();
    const cert = signCertificate({
      publicKey: pair.publicKey,
      issuer: { cert: caCert, privateKey: ca.privateKey },
      ...subject,
      serial: randomSerial(),
      ...validity(),
      extensions: [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
        ...usage,
      ],
    });
    await write(`${name}.key`, pair.privateKey);
    await write(`${name}.crt`, cert);
  };
  await signed("apiserver", { commonName: "kube-apiserver" }, [
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: altNamesOf(apiServerHosts) },
  ]);
  await signed("admin", { organization: "system:masters", commonName: "admin" }, [
    { name: "extKeyUsage", clientAuth: true },
  ]);

  const serviceAccount = newKeyPair();
  await write("sa.key", serviceAccount.privateKey);
  await write("sa.pub", serviceAccount.publicKey);
  return {
    caCert: f("ca.crt"),
    servingCert: f("apiserver.crt"),
    servingKey: f("apiserver.key"),
    adminCert: f("admin.crt"),
    adminKey: f("admin.key"),
    serviceAccountKey: f("sa.key"),
    serviceAccountPub: f("sa.pub"),
  };
}
