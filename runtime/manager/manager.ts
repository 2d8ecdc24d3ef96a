// What an operator's main() does (controller-runtime's manager): serve metrics and probes, run the controllers (only
// while leading when leader election is on), stop gracefully on SIGINT/SIGTERM, then close the servers.
import { readFileSync } from "node:fs";
import type { Registry } from "prom-client";
import type { KubeClient } from "../client/kube-client.js";
import { newLogger, type Logger } from "../log/logger.js";
import { registerRequestMetrics } from "../client/request-metrics.js";
import { leaderElectionMetric } from "../metrics/leader-election.js";
import { processMetrics } from "../metrics/process.js";
import { restClientMetrics } from "../metrics/rest-client.js";
import type { WebhookServerOptions } from "../webhook/server.js";
import { cacheSyncedCheck, type HealthCheck } from "./health.js";
import type { MetricsAuthOptions } from "./metrics-auth.js";
import type { ManagerOptions } from "./options.js";
import {
  LeaderElectionLostError,
  runControllers,
  type LeaderElectionConfig,
  type Runnable,
} from "./run-controllers.js";
import { servingAddresses, startServers } from "./servers.js";
import { runShardedControllers } from "./sharding.js";
import type { ShardMember } from "../sharding/member.js";

/** A controller as the manager runs it: a Runnable whose caches report when they have synced. */
export interface ManagedController extends Runnable {
  hasSynced(): boolean;
  /** False for a sharded controller: it runs on every replica, leader or not. Default true. */
  needLeaderElection?(): boolean;
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
  /**
   * The sharding member (shardingFor(kube, options)) the sharded controllers were made with: it runs while they run,
   * and leaves its group once they stopped.
   */
  sharding?: ShardMember;
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
  if (!config.sharding && controllers.some((c) => c.needLeaderElection?.() === false))
    throw new Error("startManager: sharded controllers need their member: pass it as the sharding option");
  const { options } = config;
  const log = config.logger ?? newLogger();
  const addresses = servingAddresses(options);
  const leaderElection = leaderElectionFor(controllers, config, log);
  const leading = trackLeading(controllers);
  recordOperatorMetrics(config.registry);
  const servers = await startServers({
    kube: config.kube,
    options,
    addresses,
    readyz: readyzCheck(controllers, leaderElection !== undefined, leading.isLeading),
    webhooks: config.webhooks,
    registry: config.registry,
    metricsAuth: config.metricsAuth,
    log,
  });
  if (leaderElection) log.info("leader election on", { lease: `${leaderElection.namespace}/${leaderElection.name}` });
  const runOptions = {
    signal: config.signal,
    leaderElection,
    gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs,
  };
  const done = (
    config.sharding
      ? runShardedControllers(config.sharding, leading.runnables, controllers, runOptions, log)
      : runControllers(leading.runnables, runOptions)
  ).finally(servers.close);
  return {
    metricsPort: servers.metrics?.port,
    healthProbePort: servers.probe?.port,
    webhookPort: servers.webhook?.port,
    isLeading: leading.isLeading,
    done: done.then(() => undefined),
  };
}

/**
 * What controller-runtime's metrics registry holds besides the controllers' series: process and runtime collectors,
 * and client-go's rest_client_* counted from every HttpKubeClient request (into the registry /metrics serves).
 */
function recordOperatorMetrics(registry: Registry | undefined): void {
  processMetrics(registry);
  registerRequestMetrics(restClientMetrics(registry));
}

/** With --leader-elect: the Lease (named by --leader-election-id, else the first controller) and its timings. */
function leaderElectionFor(
  controllers: readonly ManagedController[],
  config: ManagerConfig,
  log: Logger,
): LeaderElectionConfig | undefined {
  const { options } = config;
  if (!options.leaderElect) return undefined;
  return {
    kube: config.kube,
    namespace: leaseNamespace(options.leaderElectionNamespace, config.kube),
    name: options.leaderElectionId || controllers[0]!.name,
    logger: log,
    leaseDurationMs: config.leaseDurationMs,
    renewDeadlineMs: config.renewDeadlineMs,
    retryPeriodMs: config.retryPeriodMs,
    releaseOnCancel: config.leaderElectionReleaseOnCancel ?? false,
    metric: leaderElectionMetric(config.registry),
  };
}

/** The controllers wrapped to count which run: runControllers calls run() only in the leader. */
function trackLeading(controllers: readonly ManagedController[]): { runnables: Runnable[]; isLeading: () => boolean } {
  let running = 0;
  const runnables: Runnable[] = controllers.map((c) => ({
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
  return { runnables, isLeading: () => running > 0 };
}

/** Ready once the caches synced; a standby (leader election on, not leading) is ready at once. */
function readyzCheck(
  controllers: readonly ManagedController[],
  leaderElection: boolean,
  isLeading: () => boolean,
): HealthCheck {
  const synced = cacheSyncedCheck(controllers);
  return { name: synced.name, check: () => (leaderElection && !isLeading() ? true : synced.check()) };
}

/**
 * startManager, then wait until it has stopped: what an operator's main() runs. Losing the Lease ends the process, as
 * in a controller-runtime operator: one error line (`leader election lost`, no stack trace), the servers closed, exit
 * code 1 once the caller's own cleanup (a `finally` around runManager) has run, whatever still waits on the API server.
 */
export async function runManager(controllers: readonly ManagedController[], config: ManagerConfig): Promise<void> {
  const logger = config.logger ?? newLogger();
  try {
    await (
      await startManager(controllers, { ...config, logger })
    ).done;
  } catch (error) {
    if (!(error instanceof LeaderElectionLostError)) throw error;
    logger.error("leader election lost", { lease: error.lease });
    process.exitCode = 1;
    // Reconciles still waiting on an unreachable API server must not outlive the Lease: after the current tick (the
    // caller's finally runs in it), exit; unref'd, so an emptied event loop exits sooner with the same code.
    setTimeout(() => process.exit(1), 0).unref();
  }
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
