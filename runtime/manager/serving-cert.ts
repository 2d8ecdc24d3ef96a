// The secure metrics server's certificate: read from --metrics-cert-path (e.g. a cert-manager Secret mounted there),
// or, as controller-runtime does when no folder is given, a self-signed one made at start. node:crypto makes keys but
// not certificates, so node-forge builds and signs the X.509 certificate.
import { generateKeyPairSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import forge from "node-forge";

export interface ServingCert {
  /** PEM. */
  cert: string;
  key: string;
}

/** The file names cert-manager and kubebuilder's scaffold use (--metrics-cert-name / --metrics-cert-key there). */
export const certFileName = "tls.crt";
export const keyFileName = "tls.key";

/** tls.crt and tls.key from `dir`; an error names the file that could not be read. */
export async function readServingCert(dir: string): Promise<ServingCert> {
  const read = async (name: string) => {
    const file = path.join(dir, name);
    try {
      return await readFile(file, "utf8");
    } catch (error) {
      throw new Error(`--metrics-cert-path: cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
  };
  return { cert: await read(certFileName), key: await read(keyFileName) };
}

/**
 * A self-signed serving certificate for this host (localhost, 127.0.0.1, ::1 and the host name, which in a pod is
 * the pod's name), valid for a year. Scrapers either skip verification for it (Prometheus' insecure_skip_verify, as
 * kubebuilder's ServiceMonitor does) or are given a real certificate through --metrics-cert-path.
 */
export function selfSignedCert(now = new Date()): ServingCert {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  // A random positive serial (the top bit clear keeps the DER integer positive).
  cert.serialNumber = `0${forge.util.bytesToHex(forge.random.getBytesSync(15))}`;
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 365 * 24 * 3_600_000);
  const name = [{ name: "commonName", value: `${hostname()}-metrics` }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: [
        { type: 2, value: "localhost" },
        { type: 2, value: hostname() },
        { type: 7, ip: "127.0.0.1" },
        { type: 7, ip: "::1" },
      ],
    },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: privateKey };
}
