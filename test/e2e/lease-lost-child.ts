// Test helper (not a test): an operator process shaped like the generated main.ts (runManager inside try/finally, no
// catch) leading with one probe controller. Its reconcile "hangs" for a minute once stopped, like one waiting on an
// API server that went away. argv: kubeconfig namespace lease. Prints {event:"start"} on stdout once leading; the
// manager logs to stderr.
import { loadKubeClient, runManager } from "@crdgen/runtime";

const [kubeconfig, namespace, lease] = process.argv.slice(2);
if (!kubeconfig || !namespace || !lease) throw new Error("usage: lease-lost-child <kubeconfig> <namespace> <lease>");

const kube = loadKubeClient({ kubeconfig });
const probe = {
  name: "probe",
  hasSynced: () => true,
  run: (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      process.stdout.write(`${JSON.stringify({ event: "start", at: Date.now() })}\n`);
      signal.addEventListener("abort", () => setTimeout(resolve, 60_000), { once: true });
    }),
};
try {
  await runManager([probe], {
    kube,
    options: {
      metricsBindAddress: "0",
      healthProbeBindAddress: "0",
      leaderElect: true,
      leaderElectionId: lease,
      leaderElectionNamespace: namespace,
    },
    leaseDurationMs: 3_000,
    renewDeadlineMs: 2_000,
    retryPeriodMs: 500,
    leaderElectionReleaseOnCancel: true,
  });
} finally {
  kube.close();
}
