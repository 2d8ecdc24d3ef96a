// Test helper (not a test): a child-process MySQLCluster operator (the generated controller) with a test reconcile
// hook,
// run by runControllers so SIGTERM/SIGINT, the graceful-shutdown limit and leader election behave as in production.
// Env: KUBECONFIG_PATH (required); NAMESPACE (watched namespace); LEASE (leader election on this Lease when set);
// MODE "record" (default: record, sleep, record) or "status" (also write status.observedGeneration with updateStatus
// from the cached object, so a concurrent change makes it conflict); SLEEP_MS (in each reconcile, default 0; the sleep
// ignores the shutdown signal, like a reconcile in the middle of its work); SHUTDOWN_TIMEOUT_MS (graceful limit).
// Stdout: one JSON line per event: ready, leading, start/end (key, pid, at), conflict-free logs (event "log"), exit,
// error.
import { loadKubeClient, newLogger } from "@crdgen/runtime";
import { runControllers, type Runnable } from "@crdgen/runtime/manager";
import { newMySQLClusterController } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.controller.js";

const env = (name: string) => process.env[name] || undefined;
const kubeconfig = env("KUBECONFIG_PATH");
if (!kubeconfig) throw new Error("operator-child: set KUBECONFIG_PATH");
const namespace = env("NAMESPACE");
const lease = env("LEASE");
const mode = env("MODE") ?? "record";
const sleepMs = Number(env("SLEEP_MS") ?? 0);
const shutdownTimeoutMs = env("SHUTDOWN_TIMEOUT_MS") ? Number(env("SHUTDOWN_TIMEOUT_MS")) : undefined;

const say = (event: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, pid: process.pid, at: Date.now(), ...extra })}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const kube = loadKubeClient({ kubeconfig });
// The controller's own log lines (reconcile errors and their requeues) go to stdout as "log" events for the test.
const logger = newLogger({ level: "info", write: (line) => say("log", { record: JSON.parse(line) as unknown }) });

const controller = newMySQLClusterController(
  kube,
  {
    async reconcile(ctx, obj) {
      const started = Date.now();
      say("start", {
        key: ctx.key,
        generation: obj.metadata.generation,
        resourceVersion: obj.metadata.resourceVersion,
      });
      try {
        if (sleepMs > 0) await sleep(sleepMs);
        if (mode === "status" && obj.status?.observedGeneration !== obj.metadata.generation) {
          // A full-object PUT of status carrying the cached resourceVersion: 409 Conflict if the object changed since.
          await ctx.client
            .namespace(ctx.namespace!)
            .updateStatus({ ...obj, status: { ...obj.status, observedGeneration: obj.metadata.generation ?? 0 } });
          say("status", { key: ctx.key, observedGeneration: obj.metadata.generation });
        }
      } finally {
        say("end", { key: ctx.key, start: started });
      }
    },
  },
  { logger, ...(namespace ? { namespace } : {}) },
);

// Announces when this process starts leading (runControllers runs the controllers only then).
const operator: Runnable = {
  name: controller.name,
  run: (signal) => {
    say("leading");
    return controller.run(signal);
  },
  inFlightKeys: () => controller.inFlightKeys(),
};

say("ready");
try {
  await runControllers([operator], {
    ...(shutdownTimeoutMs !== undefined ? { gracefulShutdownTimeoutMs: shutdownTimeoutMs } : {}),
    ...(lease
      ? {
          leaderElection: {
            kube,
            namespace: "default",
            name: lease,
            identity: `pid-${process.pid}`,
            leaseDurationMs: 3_000,
            renewDeadlineMs: 2_000,
            retryPeriodMs: 500,
            // As the generated main.ts: the process exits once runControllers returns, so SIGTERM frees the Lease.
            releaseOnCancel: true,
          },
        }
      : {}),
  });
  say("exit");
  process.exit(0);
} catch (error) {
  say("error", { message: String(error instanceof Error ? error.message : error) });
  process.exit(1);
}
