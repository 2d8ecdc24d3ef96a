// Runs controllers until SIGINT or SIGTERM, then shuts them down gracefully (in-flight reconciles finish first).
import type { KubeClient } from "../client/kube-client.js";
import { LeaderElector } from "../manager/leader-election.js";
import type { Logger } from "./logger.js";

export interface Runnable {
  readonly name: string;
  run(signal: AbortSignal): Promise<void>;
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
  logger?: Logger;
}

export interface RunControllersOptions {
  signal?: AbortSignal;
  /**
   * When set, the controllers run only while this process holds the Lease. Losing it stops them and makes
   * runControllers reject ("leader election lost") so the process exits; SIGINT/SIGTERM stop them, then release the Lease.
   */
  leaderElection?: LeaderElectionConfig;
}

export async function runControllers(controllers: Runnable[], options: RunControllersOptions = {}): Promise<void> {
  const stop = new AbortController();
  const onSignal = (name: string) => {
    process.stderr.write(`received ${name}: stopping ${controllers.length} controller(s)\n`);
    stop.abort();
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  options.signal?.addEventListener("abort", () => stop.abort(), { once: true });
  try {
    const le = options.leaderElection;
    if (!le) return await runAll(controllers, stop.signal);
    const elector = new LeaderElector({
      ...le,
      onStartedLeading: (signal) => runAll(controllers, signal),
      onStoppedLeading: () => undefined,
    });
    const outcome = await elector.run(stop.signal);
    if (outcome === "lost") throw new Error(`leader election lost: lease ${le.namespace}/${le.name}`);
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}

async function runAll(controllers: Runnable[], signal: AbortSignal): Promise<void> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  if (signal.aborted) stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    // One failing controller stops the others: an operator that half-runs is worse than one that restarts.
    // All of them finish (in-flight reconciles drain) before the first error is thrown, so a released Lease
    // never lets a standby start while this process still reconciles.
    const results = await Promise.allSettled(controllers.map((c) => c.run(stop.signal).catch((error: unknown) => {
      stop.abort();
      throw error;
    })));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
