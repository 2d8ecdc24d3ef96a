// The servers a manager runs beside its controllers (controller-runtime's manager runnables): the webhook server, the
// health probes (/healthz, /readyz) and the metrics server, HTTPS with TokenReview and SubjectAccessReview by default.
import type { Registry } from "prom-client";
import type { KubeClient } from "../client/kube-client.js";
import type { Logger } from "../log/logger.js";
import type { WebhookServer, WebhookServerOptions } from "../webhook/server.js";
import { ping, startProbeServer, type HealthCheck, type ProbeServer } from "./health.js";
import { metricsAuthorizer, type MetricsAuthOptions, type MetricsAuthorizer } from "./metrics-auth.js";
import { parseBindAddress, type BindAddress, type ManagerOptions } from "./options.js";
import { readServingCert, selfSignedCert } from "./serving-cert.js";

type ServingOptions = Pick<ManagerOptions, "metricsBindAddress" | "healthProbeBindAddress"> &
  Partial<Pick<ManagerOptions, "metricsSecure" | "metricsCertPath" | "webhookCertPath">>;

/** Where metrics and probes are served; undefined: that server is off ("0"). */
export interface ServingAddresses {
  metrics: BindAddress | undefined;
  probe: BindAddress | undefined;
  /** Metrics over HTTPS with authentication and authorization (controller-runtime's default). */
  secure: boolean;
  /** Plain-HTTP metrics on the probe server's address: one server answers both. */
  shared: boolean;
}

/** Parses the bind addresses; rejects secure metrics on the probe server's port (HTTPS there would break the probes). */
export function servingAddresses(options: ServingOptions): ServingAddresses {
  const metrics = parseBindAddress(options.metricsBindAddress, "--metrics-bind-address");
  const probe = parseBindAddress(options.healthProbeBindAddress, "--health-probe-bind-address");
  // Secure unless switched off: a caller that omits the option gets controller-runtime's default.
  const secure = options.metricsSecure ?? true;
  const samePort = metrics !== undefined && probe !== undefined && metrics.port !== 0 && sameAddress(metrics, probe);
  if (secure && samePort)
    throw new Error(
      "--metrics-bind-address and --health-probe-bind-address are the same: secure metrics (HTTPS) need their own port",
    );
  return { metrics, probe, secure, shared: samePort };
}

function sameAddress(a: BindAddress, b: BindAddress): boolean {
  return a.port === b.port && (a.host ?? "") === (b.host ?? "");
}

export interface ServersConfig {
  kube: KubeClient;
  options: ServingOptions;
  addresses: ServingAddresses;
  /** The manager's readiness check (caches synced); the webhook server's StartedChecker is added when it runs. */
  readyz: HealthCheck;
  webhooks: WebhookServerOptions | undefined;
  registry: Registry | undefined;
  metricsAuth: MetricsAuthOptions | undefined;
  log: Logger;
}

export interface ManagerServers {
  probe: ProbeServer | undefined;
  /** The server answering /metrics: the probe server when shared. */
  metrics: ProbeServer | undefined;
  webhook: WebhookServer | undefined;
  close: () => Promise<void>;
}

/** Starts the webhook server, then the probes, then metrics; if one fails, closes those already started. */
export async function startServers(c: ServersConfig): Promise<ManagerServers> {
  let webhook: WebhookServer | undefined;
  let probe: ProbeServer | undefined;
  let metrics: ProbeServer | undefined;
  const close = async () => {
    await Promise.all([probe?.close(), metrics?.close(), webhook?.close()]);
  };
  try {
    if (c.webhooks) webhook = await startWebhooks(c.webhooks, c);
    if (c.addresses.probe) probe = await startProbes(c.addresses.probe, webhook, c);
    if (c.addresses.metrics && !c.addresses.shared) metrics = await startMetrics(c.addresses.metrics, c);
  } catch (error) {
    await close();
    throw error;
  }
  return { probe, metrics: c.addresses.shared ? probe : metrics, webhook, close };
}

/**
 * certDir defaults to --webhook-cert-path; logger and registry to the manager's. The webhook server, its admission,
 * conversion and certificate-watching modules and fast-json-patch load here, only in an operator that serves webhooks.
 */
async function startWebhooks(webhooks: WebhookServerOptions, c: ServersConfig): Promise<WebhookServer> {
  const { startWebhookServer } = await import("../webhook/server.js");
  const certDir = webhooks.certDir ?? c.options.webhookCertPath;
  return startWebhookServer({
    logger: c.log,
    ...(c.registry ? { registry: c.registry } : {}),
    ...webhooks,
    ...(certDir !== undefined ? { certDir } : {}),
  });
}

async function startProbes(
  address: BindAddress,
  webhook: WebhookServer | undefined,
  c: ServersConfig,
): Promise<ProbeServer> {
  // controller-runtime's webhook StartedChecker: not ready until the webhook server completes a TLS handshake.
  const readyz = webhook ? [c.readyz, { name: "webhook", check: () => webhook.checkStarted() }] : [c.readyz];
  const server = await startProbeServer({
    port: address.port,
    host: address.host,
    registry: c.registry,
    checks: { healthz: [ping], readyz },
    logger: c.log,
    serve: c.addresses.shared ? ["metrics", "healthz", "readyz"] : ["healthz", "readyz"],
  });
  c.log.info("serving health probes", {
    address: c.options.healthProbeBindAddress,
    port: server.port,
    paths: ["/healthz", "/readyz"],
  });
  return server;
}

async function startMetrics(address: BindAddress, c: ServersConfig): Promise<ProbeServer> {
  const { secure } = c.addresses;
  const tls = secure
    ? c.options.metricsCertPath
      ? await readServingCert(c.options.metricsCertPath)
      : selfSignedCert()
    : undefined;
  const server = await startProbeServer({
    port: address.port,
    host: address.host,
    registry: c.registry,
    serve: ["metrics"],
    logger: c.log,
    ...(tls ? { tls } : {}),
    ...(secure ? { authorizeMetrics: loggingRefusals(metricsAuthorizer(c.kube, c.metricsAuth), c.log) } : {}),
  });
  c.log.info("serving metrics", {
    address: c.options.metricsBindAddress,
    port: server.port,
    path: "/metrics",
    secure,
    ...(secure ? { certificate: c.options.metricsCertPath ?? "self-signed" } : {}),
  });
  return server;
}

/** The authorizer, logging the refusals that are our failure (500: the review could not be asked), not the caller's. */
function loggingRefusals(authorize: MetricsAuthorizer, log: Logger): MetricsAuthorizer {
  return async (req) => {
    const refusal = await authorize(req);
    if (refusal?.status === 500)
      log.error(refusal.message, {
        error: refusal.cause instanceof Error ? refusal.cause.message : String(refusal.cause),
      });
    return refusal;
  };
}
