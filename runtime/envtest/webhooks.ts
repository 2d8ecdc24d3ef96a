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
  const serverOptions: WebhookServerOptions = {
    webhooks: options.webhooks,
    host: "127.0.0.1",
    port: 0,
    certDir: dir,
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.registry ? { registry: options.registry } : {}),
  };
  let server: WebhookServer | undefined = await startWebhookServer(serverOptions).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const port = server.port;
  const url = `https://127.0.0.1:${port}`;
  const { kube } = options;
  const configOptions: WebhookConfigurationOptions = {
    name: options.name ?? "crdgen-envtest",
    clientConfig: (p) => ({ url: `${url}${p}`, caBundle: certificates.caBundle }),
    ...(options.failurePolicy ? { failurePolicy: options.failurePolicy } : {}),
    ...(options.timeoutSeconds !== undefined ? { timeoutSeconds: options.timeoutSeconds } : {}),
    ...(options.namespaceSelector ? { namespaceSelector: options.namespaceSelector } : {}),
    ...(options.objectSelector ? { objectSelector: options.objectSelector } : {}),
  };
  const configurations = webhookConfigurationsFor(options.webhooks, configOptions);
  const conversions = options.webhooks.filter((w) => w.type === "conversion");
  const crdPath = (w: WebhookRegistration) =>
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${w.resource.plural}.${w.resource.group}`;
  const patchConversion = (w: WebhookRegistration, conversion: unknown) =>
    kube.request({
      method: "PATCH",
      path: crdPath(w),
      contentType: "application/merge-patch+json",
      body: { spec: { conversion } },
    });

  const installed: KubernetesObject[] = [];
  const uninstall = async () => {
    for (const c of installed)
      await kube
        .request({ method: "DELETE", path: `${configurationPath(c.kind!)}/${c.metadata!.name!}` })
        .catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
    for (const w of conversions)
      await patchConversion(w, { strategy: "None", webhook: null }).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
  };
  try {
    for (const c of configurations) {
      const at = `${configurationPath(c.kind!)}/${c.metadata!.name!}`;
      await kube.request({ method: "DELETE", path: at }).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      installed.push(
        await kube.request<KubernetesObject>({ method: "POST", path: configurationPath(c.kind!), body: c }),
      );
    }
    for (const w of conversions)
      await patchConversion(w, crdConversionFor({ url: `${url}${w.path}`, caBundle: certificates.caBundle }));
  } catch (error) {
    await uninstall().catch(() => undefined);
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
    configurations: installed,
    stopServer: async () => {
      await server?.close();
      server = undefined;
    },
    startServer: async () => {
      server ??= await startWebhookServer({ ...serverOptions, port });
    },
    setFailurePolicy: async (policy) => {
      for (const c of installed) {
        const hooks = (c as KubernetesObject & { webhooks: Array<{ name: string }> }).webhooks;
        await kube.request({
          method: "PATCH",
          path: `${configurationPath(c.kind!)}/${c.metadata!.name!}`,
          contentType: "application/json-patch+json",
          body: hooks.map((_, i) => ({ op: "replace", path: `/webhooks/${i}/failurePolicy`, value: policy })),
        });
      }
    },
    stop: async () => {
      try {
        await uninstall();
      } finally {
        await server?.close();
        server = undefined;
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
