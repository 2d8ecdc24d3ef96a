// Runs controllers until SIGINT or SIGTERM, then shuts them down gracefully: no new keys are taken, in-flight
// reconciles finish (within gracefulShutdownTimeoutMs), the Lease is released (releaseOnCancel), and runControllers
// resolves.
import type { KubeClient } from "../client/kube-client.js";
import { fanOutSignal } from "../cache/fan-out-signal.js";
import { LeaderElector, type LeaderMetric } from "../leaderelection/leader-election.js";
import { leaderElectionMetric } from "../metrics/leader-election.js";
import type { Logger } from "../log/logger.js";

export interface Runnable {
  readonly name: string;
  run(signal: AbortSignal): Promise<void>;
  /** What it is still busy with (a Controller: the keys being reconciled), named when the graceful shutdown times out. */
  inFlightKeys?(): string[];
}

/** The graceful shutdown took longer than allowed; `running` names what was still busy (`<controller> <key>`). */
export class GracefulShutdownTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly running: string[],
  ) {
    super(
      `graceful shutdown timed out after ${timeoutMs / 1000}s; ` +
        (running.length > 0 ? `reconciles still running: ${running.join(", ")}` : "controllers still running"),
    );
    this.name = "GracefulShutdownTimeoutError";
  }
}

/**
 * This process could not renew its Lease within the renew deadline: another replica may lead already, so the process
 * should exit now (controller-runtime's "leader election lost"). The controllers were told to stop; nothing waits for
 * them to drain.
 */
export class LeaderElectionLostError extends Error {
  constructor(readonly lease: string) {
    super(`leader election lost: lease ${lease}`);
    this.name = "LeaderElectionLostError";
  }
}

/** Only the holder of the Lease `namespace/name` runs the controllers (controller-runtime's LeaderElection). */
export interface LeaderElectionConfig {
  kube: KubeClient;
  namespace: string;
  /** The Lease name (controller-runtime's LeaderElectionID). */
  name: string;
  /** Default hostname_uuid. */
  identity?: string;
  /** Defaults as controller-runtime: 15 s, 10 s, 2 s. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /**
   * Empty the Lease after the controllers stopped on SIGINT/SIGTERM/abort, so a standby leads at once. Default false,
   * as controller-runtime's LeaderElectionReleaseOnCancel: safe only when the process exits right after.
   */
  releaseOnCancel?: boolean;
  /** Default: leader_election_master_status in the crdgen registry. */
  metric?: LeaderMetric;
  logger?: Logger;
}

export interface RunControllersOptions {
  signal?: AbortSignal;
  /**
   * When set, the controllers run only while this process holds the Lease. Losing it stops them and makes
   * runControllers reject at once with LeaderElectionLostError so the process exits; SIGINT/SIGTERM stop them, then release the
   * Lease if releaseOnCancel says so.
   */
  leaderElection?: LeaderElectionConfig;
  /**
   * How long in-flight reconciles may take to finish once the controllers are told to stop (signal, lost Lease, a
   * failed controller). Past it runControllers gives up waiting and rejects with GracefulShutdownTimeoutError naming
   * the keys still running, so the process can exit non-zero. Default 30 s (controller-runtime's
   * GracefulShutdownTimeout).
   */
  gracefulShutdownTimeoutMs?: number;
}

export async function runControllers(controllers: Runnable[], options: RunControllersOptions = {}): Promise<void> {
  const stop = fanOutSignal(options.signal);
  const graceMs = options.gracefulShutdownTimeoutMs ?? 30_000;
  const onSignal = (name: string) => {
    // process.once: a second SIGINT/SIGTERM during the drain gets the default action and ends the process at once.
    process.stderr.write(
      `received ${name}: stopping ${controllers.length} controller(s); in-flight reconciles get up to ${graceMs / 1000}s\n`,
    );
    stop.abort();
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  try {
    const le = options.leaderElection;
    if (!le) {
      await runAll(controllers, stop.signal, graceMs);
      return;
    }
    const elector = new LeaderElector({
      ...le,
      metric: le.metric ?? leaderElectionMetric(),
      onStartedLeading: (signal) => runAll(controllers, signal, graceMs),
      onStoppedLeading: () => undefined,
    });
    const outcome = await elector.run(stop.signal);
    if (outcome === "lost") throw new LeaderElectionLostError(`${le.namespace}/${le.name}`);
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    stop.dispose();
  }
}

async function runAll(controllers: Runnable[], signal: AbortSignal, graceMs: number): Promise<void> {
  // Every controller listens on it (one listener on the caller's signal), and a failing one aborts it for the others.
  const stop = fanOutSignal(signal);
  // The grace period starts when the controllers are told to stop, whatever the reason.
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    const arm = () => (timer = setTimeout(() => resolve("timeout"), graceMs));
    if (stop.signal.aborted) arm();
    else stop.signal.addEventListener("abort", arm, { once: true });
  });
  try {
    // One failing controller stops the others: an operator that half-runs is worse than one that restarts.
    // All of them finish (in-flight reconciles drain) before the first error is thrown, so a released Lease
    // never lets a standby start while this process still reconciles.
    const settled = Promise.allSettled(
      controllers.map((c) =>
        c.run(stop.signal).catch((error: unknown) => {
          stop.abort();
          throw error;
        }),
      ),
    );
    const results = await Promise.race([settled, timedOut]);
    if (results === "timeout") {
      const running = controllers.flatMap((c) => (c.inFlightKeys?.() ?? []).map((key) => `${c.name} ${key}`));
      throw new GracefulShutdownTimeoutError(graceMs, running);
    }
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  } finally {
    clearTimeout(timer);
    stop.dispose();
  }
}
