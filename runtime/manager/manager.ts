// What an operator's main() does (controller-runtime's manager): serve metrics and probes, run the controllers (only
// while leading when leader election is on), stop gracefully on SIGINT/SIGTERM, then close the servers.
import { readFileSync } from "node:fs";
import type { KubeClient } from "../client/kube-client.js";
import { runControllers, type Runnable } from "./run-controllers.js";
import { newLogger, type Logger } from "../log/logger.js";
import { cacheSyncedCheck, ping, startProbeServer, type HealthCheck, type ProbeServer } from "./health.js";
import { parseBindAddress, type ManagerOptions } from "./options.js";
import { metricsAuthorizer, type MetricsAuthOptions } from "./metrics-auth.js";
import { readServingCert, selfSignedCert } from "./serving-cert.js";
import type { Registry } from "prom-client";
import { leaderElectionMetric } from "../metrics/leader-election.js";
import { startWebhookServer, type WebhookServer, type WebhookServerOptions } from "../webhook/server.js";

/** A controller as the manager runs it: a Runnable whose caches report when they have synced. */
export interface ManagedController extends Runnable {
  hasSynced(): boolean;
}

export interface ManagerConfig {
  kube: KubeClient;
  /** From parseManagerOptions; only the fields used here are needed. */
  options: Pick<
    ManagerOptions,
    "metricsBindAddress" | "healthProbeBindAddress" | "leaderElect" | "leaderElectionId" | "leaderElectionNamespace"
  > &
    Partial<
      Pick<ManagerOptions, "gracefulShutdownTimeoutMs" | "metricsSecure" | "metricsCertPath" | "webhookCertPath">
    >;
  /** Stops the manager like SIGTERM does. */
  signal?: AbortSignal;
  logger?: Logger;
  /** Served at /metrics. Default: the crdgen registry. */
  registry?: Registry;
  /** How long TokenReview and SubjectAccessReview answers are cached (secure metrics). */
  metricsAuth?: MetricsAuthOptions;
  /** Leader election timings (tests shorten them). Default as controller-runtime: 15 s, 10 s, 2 s. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /**
   * Empty the Lease once the controllers stopped so a standby leads at once (controller-runtime's
   * LeaderElectionReleaseOnCancel). Default false; the generated main.ts sets it, as its process exits right after.
   */
  leaderElectionReleaseOnCancel?: boolean;
  /**
   * Serve these webhooks beside the controllers (controller-runtime's manager WebhookServer). They are served in every
   * replica, leader or not, from the start; /readyz waits for the server. certDir defaults to
   * options.webhookCertPath, then controller-runtime's default folder; logger and registry to the manager's.
   */
  webhooks?: WebhookServerOptions;
}

export interface Manager {
  /** Ports actually bound (an address with port 0 picks a free one); undefined when that server is off. */
  readonly metricsPort: number | undefined;
  readonly healthProbePort: number | undefined;
  /** The webhook server's port; undefined without webhooks. */
  readonly webhookPort: number | undefined;
  /** True while the controllers run (always, without leader election; while holding the Lease, with it). */
  isLeading(): boolean;
  /** Resolves when the controllers have stopped and the servers are closed; rejects as runControllers does. */
  readonly done: Promise<void>;
}

/** Where the pod's service account token lives; its namespace file is controller-runtime's fallback Lease namespace. */
const IN_CLUSTER_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/**
 * Starts the servers and the controllers and returns once the servers listen. /readyz passes once the caches have
 * synced, or at once on a standby (a candidate not holding the Lease): otherwise a rolling update would wait forever
 * for a new pod that cannot lead until the old one stops.
 */
export async function startManager(controllers: readonly ManagedController[], config: ManagerConfig): Promise<Manager> {
  if (controllers.length === 0) throw new Error("startManager: no controllers to run");
  const { options } = config;
  const log = config.logger ?? newLogger();
  const metricsAddress = parseBindAddress(options.metricsBindAddress, "--metrics-bind-address");
  const probeAddress = parseBindAddress(options.healthProbeBindAddress, "--health-probe-bind-address");
  // Secure unless switched off: a caller that omits the option gets controller-runtime's default.
  const secure = options.metricsSecure ?? true;
  if (
    secure &&
    metricsAddress &&
    probeAddress &&
    metricsAddress.port !== 0 &&
    sameAddress(metricsAddress, probeAddress)
  )
    throw new Error(
      "--metrics-bind-address and --health-probe-bind-address are the same: secure metrics (HTTPS) need their own port",
    );
  const leaderElection = options.leaderElect
    ? {
        kube: config.kube,
        namespace: leaseNamespace(options.leaderElectionNamespace, config.kube),
        name: options.leaderElectionId || controllers[0]!.name,
        logger: log,
        leaseDurationMs: config.leaseDurationMs,
        renewDeadlineMs: config.renewDeadlineMs,
        retryPeriodMs: config.retryPeriodMs,
        releaseOnCancel: config.leaderElectionReleaseOnCancel ?? false,
        metric: leaderElectionMetric(config.registry),
      }
    : undefined;

  // runControllers calls run() only in the leader, so the wrappers know when this process leads.
  let running = 0;
  const tracked: Runnable[] = controllers.map((c) => ({
    name: c.name,
    inFlightKeys: () => c.inFlightKeys?.() ?? [],
    run: async (signal) => {
      running++;
      try {
        await c.run(signal);
      } finally {
        running--;
      }
    },
  }));
  const isLeading = () => running > 0;
  const synced = cacheSyncedCheck(controllers);
  const readyz: HealthCheck = {
    name: synced.name,
    check: () => (leaderElection && !isLeading() ? true : synced.check()),
  };

  const servers: ProbeServer[] = [];
  let webhookServer: WebhookServer | undefined;
  // controller-runtime's webhook StartedChecker: not ready until the webhook server completes a TLS handshake.
  const webhookReady: HealthCheck = { name: "webhook", check: () => webhookServer?.checkStarted() ?? false };
  const closeServers = () => Promise.all([...servers.map((s) => s.close()), webhookServer?.close()]);
  try {
    if (config.webhooks) {
      const certDir = config.webhooks.certDir ?? options.webhookCertPath;
      webhookServer = await startWebhookServer({
        logger: log,
        ...(config.registry ? { registry: config.registry } : {}),
        ...config.webhooks,
        ...(certDir !== undefined ? { certDir } : {}),
      });
    }
    const shared =
      !secure &&
      metricsAddress &&
      probeAddress &&
      metricsAddress.port !== 0 &&
      sameAddress(metricsAddress, probeAddress);
    if (probeAddress) {
      servers.push(
        await startProbeServer({
          port: probeAddress.port,
          host: probeAddress.host,
          registry: config.registry,
          checks: { healthz: [ping], readyz: config.webhooks ? [readyz, webhookReady] : [readyz] },
          serve: shared ? ["metrics", "healthz", "readyz"] : ["healthz", "readyz"],
        }),
      );
      log.info("serving health probes", {
        address: options.healthProbeBindAddress,
        port: servers[0]!.port,
        paths: ["/healthz", "/readyz"],
      });
    }
    if (metricsAddress && !shared) {
      const tls = secure
        ? options.metricsCertPath
          ? await readServingCert(options.metricsCertPath)
          : selfSignedCert()
        : undefined;
      const authorize = secure ? metricsAuthorizer(config.kube, config.metricsAuth) : undefined;
      servers.push(
        await startProbeServer({
          port: metricsAddress.port,
          host: metricsAddress.host,
          registry: config.registry,
          serve: ["metrics"],
          ...(tls ? { tls } : {}),
          ...(authorize
            ? {
                authorizeMetrics: async (req) => {
                  const refusal = await authorize(req);
                  if (refusal?.status === 500)
                    log.error(refusal.message, {
                      error: refusal.cause instanceof Error ? refusal.cause.message : String(refusal.cause),
                    });
                  return refusal;
                },
              }
            : {}),
        }),
      );
      log.info("serving metrics", {
        address: options.metricsBindAddress,
        port: servers.at(-1)!.port,
        path: "/metrics",
        secure,
        ...(secure ? { certificate: options.metricsCertPath ?? "self-signed" } : {}),
      });
    }
  } catch (error) {
    await closeServers();
    throw error;
  }
  const probeServer = probeAddress ? servers[0] : undefined;
  const metricsServer = metricsAddress ? servers.at(-1) : undefined;

  if (leaderElection) log.info("leader election on", { lease: `${leaderElection.namespace}/${leaderElection.name}` });
  const done = runControllers(tracked, {
    signal: config.signal,
    leaderElection,
    gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs,
  }).finally(closeServers);
  return {
    metricsPort: metricsServer?.port,
    healthProbePort: probeServer?.port,
    webhookPort: webhookServer?.port,
    isLeading,
    done: done.then(() => undefined),
  };
}

/** startManager, then wait until it has stopped. */
export async function runManager(controllers: readonly ManagedController[], config: ManagerConfig): Promise<void> {
  await (
    await startManager(controllers, config)
  ).done;
}

function sameAddress(a: { host?: string; port: number }, b: { host?: string; port: number }): boolean {
  return a.port === b.port && (a.host ?? "") === (b.host ?? "");
}

/** The Lease namespace: the option (--leader-election-namespace / POD_NAMESPACE), the pod's namespace, the kubeconfig's. */
function leaseNamespace(explicit: string | undefined, kube: KubeClient): string {
  if (explicit) return explicit;
  try {
    const inCluster = readFileSync(IN_CLUSTER_NAMESPACE_FILE, "utf8").trim();
    if (inCluster) return inCluster;
  } catch {
    // Not in a pod: fall through to the kubeconfig context's namespace.
  }
  const fromContext = kube.defaultNamespace;
  if (fromContext) return fromContext;
  throw new Error(
    "leader election needs a namespace for its Lease: set POD_NAMESPACE or --leader-election-namespace (or run in a pod, or set a namespace on the kubeconfig context)",
  );
}
