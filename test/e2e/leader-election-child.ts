// Test helper (not a test): a child-process candidate that runs one probe controller under runControllers' leader
// election.
// argv: kubeconfig namespace lease identity. Prints one JSON line per event ({event:"start"|"stop"|"exit"|"error",
// at}).
import { loadKubeClient } from "@crdgen/runtime";
import { runControllers } from "@crdgen/runtime/manager";

const [kubeconfig, namespace, name, identity] = process.argv.slice(2);
if (!kubeconfig || !namespace || !name || !identity)
  throw new Error("usage: leader-election-child <kubeconfig> <namespace> <lease> <identity>");
const say = (event: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, at: Date.now(), ...extra })}\n`);

const kube = loadKubeClient({ kubeconfig });
const probe = {
  name: "probe",
  run: (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      say("start");
      signal.addEventListener(
        "abort",
        () => {
          say("stop");
          resolve();
        },
        { once: true },
      );
    }),
};
say("ready");
try {
  await runControllers([probe], {
    leaderElection: {
      kube,
      namespace,
      name,
      identity,
      leaseDurationMs: 3_000,
      renewDeadlineMs: 2_000,
      retryPeriodMs: 500,
      releaseOnCancel: true,
    },
  });
  say("exit");
  process.exit(0);
} catch (error) {
  say("error", { message: String(error instanceof Error ? error.message : error) });
  process.exit(1);
}
