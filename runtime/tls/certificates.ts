// X.509 certificates: the secure metrics server's self-signed one, envtest's webhook CA and serving pair, and the
// local control plane's CA, serving and client certificates. node:crypto makes keys but not certificates, so
// node-forge builds and signs them.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { isIP } from "node:net";
import type Forge from "node-forge";

// node-forge (~1.4 MB of V8 heap in every process that loads it) is required on the first certificate signed, not
// at import: most operator processes (no webhooks, metrics over HTTP or from a mounted certificate) never sign one.
const requireCjs = createRequire(import.meta.url);
// (require keeps the module once loaded: later calls are a lookup)
const loadForge = (): typeof Forge => requireCjs("node-forge") as typeof Forge;

export interface KeyPair {
  /** PEM, SPKI. */
  publicKey: string;
  /** PEM, PKCS #8. */
  privateKey: string;
}

export function newKeyPair(): KeyPair {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
}

/**
 * A 16-byte serial from `bytes` (16 random bytes) whose first byte is forced into 0x40-0x7f: a positive DER integer
 * in its minimal form (OpenSSL refuses a certificate whose serial starts with a redundant zero byte), and upper-case
 * hex exactly as TLS peers report it (X509Certificate.serialNumber).
 */
export function serialFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new Error(`a certificate serial takes 16 bytes, not ${bytes.length}`);
  const serial = Buffer.from(bytes);
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  return serial.toString("hex").toUpperCase();
}

export const randomSerial = (): string => serialFromBytes(randomBytes(16));

/** subjectAltName entries: IP addresses as IPs (type 7), everything else as DNS names (type 2). */
export function altNamesOf(hosts: readonly string[]): object[] {
  return hosts.map((host) => (isIP(host) ? { type: 7, ip: host } : { type: 2, value: host }));
}

export interface CertificateSpec {
  /** The subject's PEM public key. */
  publicKey: string;
  commonName: string;
  /** The subject's O, e.g. a client certificate's group (system:masters). */
  organization?: string;
  serial: string;
  notBefore: Date;
  notAfter: Date;
  /** node-forge extension objects (basicConstraints, keyUsage, subjectAltName, ...). */
  extensions: object[];
  /** The issuer's certificate (PEM) and private key; omitted: self-signed with `selfKey`. */
  issuer?: { cert: string; privateKey: string };
  /** The subject's own private key, for a self-signed certificate. */
  selfKey?: string;
}

/** Builds and signs (SHA-256) a certificate; returns its PEM. */
export function signCertificate(spec: CertificateSpec): string {
  const forge = loadForge();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(spec.publicKey);
  cert.serialNumber = spec.serial;
  cert.validity.notBefore = spec.notBefore;
  cert.validity.notAfter = spec.notAfter;
  const subject = [
    ...(spec.organization === undefined ? [] : [{ name: "organizationName", value: spec.organization }]),
    { name: "commonName", value: spec.commonName },
  ];
  cert.setSubject(subject);
  cert.setExtensions(spec.extensions);
  const signingKey = spec.issuer?.privateKey ?? spec.selfKey;
  if (signingKey === undefined) throw new Error("signCertificate: give an issuer or the key of a self-signed subject");
  cert.setIssuer(spec.issuer ? forge.pki.certificateFromPem(spec.issuer.cert).subject.attributes : subject);
  cert.sign(forge.pki.privateKeyFromPem(signingKey), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}
