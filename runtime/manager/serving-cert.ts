// The secure metrics server's certificate: read from --metrics-cert-path (e.g. a cert-manager Secret mounted there),
// or, as controller-runtime does when no folder is given, a self-signed one made at start.
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { altNamesOf, newKeyPair, randomSerial, serialFromBytes, signCertificate } from "../tls/certificates.js";

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
 * kubebuilder's ServiceMonitor does) or are given a real certificate through --metrics-cert-path. `serialBytes`
 * (16 bytes, random by default) is for tests.
 */
export function selfSignedCert(options: { now?: Date; serialBytes?: Uint8Array } = {}): ServingCert {
  const now = options.now ?? new Date();
  const { publicKey, privateKey } = newKeyPair();
  const cert = signCertificate({
    publicKey,
    selfKey: privateKey,
    commonName: `${hostname()}-metrics`,
    serial: options.serialBytes ? serialFromBytes(options.serialBytes) : randomSerial(),
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 365 * 24 * 3_600_000),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: altNamesOf(["localhost", hostname(), "127.0.0.1", "::1"]) },
    ],
  });
  return { cert, key: privateKey };
}
