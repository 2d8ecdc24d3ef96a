// Webhooks against the local control plane (controller-runtime envtest's WebhookInstallOptions): a CA and a serving
// certificate for 127.0.0.1 made here, the WebhookServer on loopback, webhook configurations with url-based client
// configs and the CA bundle, and CRDs patched to call the conversion webhook. The API server picks these changes up
// within about a second (through its informers), so a test waits for an effect, not for install to return.
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isNotFound } from "../client/api-error.js";
import type { KubeClient } from "../client/kube-client.js";
import type { KubernetesObject } from "../client/types.js";
import type { Logger } from "../log/logger.js";
import { altNamesOf, newKeyPair, randomSerial, signCertificate } from "../tls/certificates.js";
import {
  crdConversionFor,
  webhookConfigurationsFor,
  type LabelSelector,
  type WebhookConfigurationOptions,
} from "../webhook/configuration.js";
import type { WebhookRegistration } from "../webhook/registration.js";
import { startWebhookServer, type WebhookServer, type WebhookServerOptions } from "../webhook/server.js";
import type { Registry } from "prom-client";

export interface WebhookCertificates {
  /** Holds tls.crt and tls.key (the serving pair) and ca.crt. */
  readonly certDir: string;
  /** The CA certificate, PEM. */
  readonly caCert: string;
  /** base64 of caCert: what a clientConfig's caBundle holds. */
  readonly caBundle: string;
  /** Writes a new key and serving certificate (same CA, new serial) into certDir, each file replaced atomically. */
  rotate(): Promise<void>;
  /** The serial number of the serving certificate last written, in upper-case hex as TLS peers report it. */
  readonly servingSerial: string;
}

const hours = (n: number) => n * 3_600_000;

/** The serving certificate's names: DNS names and IP addresses (default: loopback). */
export interface WebhookCertificateOptions {
  /** e.g. a webhook Service's my-svc.my-ns.svc; default localhost, 127.0.0.1 and ::1. */
  hosts?: string[];
}

/** A CA and a serving certificate for the hosts (default loopback), valid a day, written into dir. */
export async function makeWebhookCertificates(
  dir: string,
  options: WebhookCertificateOptions = {},
): Promise<WebhookCertificates> {
  const altNames = altNamesOf(options.hosts ?? ["localhost", "127.0.0.1", "::1"]);
  const validity = () => ({ notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + hours(24)) });
  const ca = newKeyPair();
  const caPem = signCertificate({
    publicKey: ca.publicKey,
    selfKey: ca.privateKey,
    commonName: "crdgen-envtest-webhook-ca",
    serial: randomSerial(),
    ...validity(),
    extensions: [
      { name: "basicConstraints", cA: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true },
    ],
  });
  await writeFile(path.join(dir, "ca.crt"), caPem);

  let servingSerial = "";
  const writeServing = async () => {
    const pair = newKeyPair();
    const serial = randomSerial();
    const cert = signCertificate({
      publicKey: pair.publicKey,
      issuer: { cert: caPem, privateKey: ca.privateKey },
      commonName: "crdgen-envtest-webhook",
      serial,
      ...validity(),
      extensions: [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
        { name: "extKeyUsage", serverAuth: true },
        { name: "subjectAltName", altNames },
      ],
    });
    // Replace each file by a rename so a reader never sees half a file; the server skips a mismatched pair.
    for (const [name, text] of [
      ["tls.key", pair.privateKey],
      ["tls.crt", cert],
    ] as const) {
      const temp = path.join(dir, `.${name}.tmp`);
      await writeFile(temp, text);
      await rename(temp, path.join(dir, name));
    }
    servingSerial = serial;
  };
  await writeServing();
  return {
    certDir: dir,
    caCert: caPem,
    caBundle: Buffer.from(caPem).toString("base64"),
    rotate: writeServing,
    get servingSerial() {
      return servingSerial;
    },
  };
}

export interface WebhookEnvironmentOptions {
  /** A client of the control plane (admin): installs the configurations and patches the CRDs. */
  kube: KubeClient;
  webhooks: readonly WebhookRegistration[];
  /** metadata.name of the configuration objects. Default "crdgen-envtest". */
  name?: string;
  failurePolicy?: "Fail" | "Ignore";
  timeoutSeconds?: number;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  /** Passed to the WebhookServer. */
  requestTimeoutMs?: number;
  logger?: Logger;
  registry?: Registry;
}

export interface WebhookEnvironment {
  readonly server: WebhookServer;
  readonly certificates: WebhookCertificates;
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** The configuration objects as installed. */
  readonly configurations: readonly KubernetesObject[];
  /** Stops serving (the configurations stay, so the API server meets their failurePolicy). */
  stopServer(): Promise<void>;
  /** Serves again on the same port. */
  startServer(): Promise<void>;
  /** Sets failurePolicy on every installed webhook. */
  setFailurePolicy(policy: "Fail" | "Ignore"): Promise<void>;
  /** Deletes the configurations, sets the CRDs' conversion back to None, stops the server, removes the certificates. */
  stop(): Promise<void>;
}

const configurationPath = (kind: string) => `/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}s`;

/**
 * Serves `webhooks` on 127.0.0.1 (a free port) and points the API server at them: Mutating/Validating webhook
 * configurations for the admission webhooks and `spec.conversion` (strategy Webhook, caBundle) on the CRD
 * `<plural>.<group>` of each conversion webhook.
 */
export async function startWebhookEnvironment(options: WebhookEnvironmentOptions): Promise<WebhookEnvironment> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-webhooks-"));
  const certificates = await makeWebhookCertificates(dir);
  const serverOptions = loopbackServerOptions(options, dir);
  let server: WebhookServer | undefined = await startWebhookServer(serverOptions).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const port = server.port;
  const url = `https://127.0.0.1:${port}`;
  const installation = webhookInstallation(options, url, certificates.caBundle);
  try {
    await installation.install();
  } catch (error) {
    await installation.uninstall().catch(() => undefined);
    await server.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    get server() {
      if (!server) throw new Error("the webhook server is stopped (startServer starts it again)");
      return server;
    },
    certificates,
    url,
    configurations: installation.installed,
    stopServer: async () => {
      await server?.close();
      server = undefined;
    },
    startServer: async () => {
      server ??= await startWebhookServer({ ...serverOptions, port });
    },
    setFailurePolicy: (policy) => installation.setFailurePolicy(policy),
    stop: async () => {
      try {
        await installation.uninstall();
      } finally {
        await server?.close();
        server = undefined;
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The WebhookServer on 127.0.0.1, a free port, with the certificates of `certDir`. */
function loopbackServerOptions(options: WebhookEnvironmentOptions, certDir: string): WebhookServerOptions {
  return {
    webhooks: options.webhooks,
    host: "127.0.0.1",
    port: 0,
    certDir,
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.registry ? { registry: options.registry } : {}),
  };
}

/** The API server's side: the webhook configurations and the CRDs' conversion, installed and removed. */
interface WebhookInstallation {
  /** The configuration objects as installed. */
  readonly installed: KubernetesObject[];
  /** Replaces any configuration of the same name, then points each conversion webhook's CRD at the server. */
  install(): Promise<void>;
  /** Deletes what install created (gone already is fine) and sets the CRDs' conversion back to None. */
  uninstall(): Promise<void>;
  setFailurePolicy(policy: "Fail" | "Ignore"): Promise<void>;
}

function webhookInstallation(options: WebhookEnvironmentOptions, url: string, caBundle: string): WebhookInstallation {
  const { kube } = options;
  const configurations = webhookConfigurationsFor(options.webhooks, configurationOptions(options, url, caBundle));
  const conversions = options.webhooks.filter((w) => w.type === "conversion");
  const installed: KubernetesObject[] = [];
  const objectPath = (c: KubernetesObject) => `${configurationPath(c.kind!)}/${c.metadata!.name!}`;
  return {
    installed,
    async install() {
      for (const c of configurations) {
        await kube.request({ method: "DELETE", path: objectPath(c) }).catch(unlessNotFound);
        installed.push(
          await kube.request<KubernetesObject>({ method: "POST", path: configurationPath(c.kind!), body: c }),
        );
      }
      for (const w of conversions)
        await patchConversion(kube, w, crdConversionFor({ url: `${url}${w.path}`, caBundle }));
    },
    async uninstall() {
      for (const c of installed) await kube.request({ method: "DELETE", path: objectPath(c) }).catch(unlessNotFound);
      for (const w of conversions)
        await patchConversion(kube, w, { strategy: "None", webhook: null }).catch(unlessNotFound);
    },
    async setFailurePolicy(policy) {
      for (const c of installed) {
        const hooks = (c as KubernetesObject & { webhooks: Array<{ name: string }> }).webhooks;
        await kube.request({
          method: "PATCH",
          path: objectPath(c),
          contentType: "application/json-patch+json",
          body: hooks.map((_, i) => ({ op: "replace", path: `/webhooks/${i}/failurePolicy`, value: policy })),
        });
      }
    },
  };
}

/** url-based client configs with the CA bundle, and the options' name, failure policy, timeout and selectors. */
function configurationOptions(
  options: WebhookEnvironmentOptions,
  url: string,
  caBundle: string,
): WebhookConfigurationOptions {
  return {
    name: options.name ?? "crdgen-envtest",
    clientConfig: (p) => ({ url: `${url}${p}`, caBundle }),
    ...(options.failurePolicy ? { failurePolicy: options.failurePolicy } : {}),
    ...(options.timeoutSeconds !== undefined ? { timeoutSeconds: options.timeoutSeconds } : {}),
    ...(options.namespaceSelector ? { namespaceSelector: options.namespaceSelector } : {}),
    ...(options.objectSelector ? { objectSelector: options.objectSelector } : {}),
  };
}

function patchConversion(kube: KubeClient, w: WebhookRegistration, conversion: unknown): Promise<unknown> {
  return kube.request({
    method: "PATCH",
    path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${w.resource.plural}.${w.resource.group}`,
    contentType: "application/merge-patch+json",
    body: { spec: { conversion } },
  });
}

function unlessNotFound(error: unknown): void {
  if (!isNotFound(error)) throw error;
}
