// User-owned: crdgen created this file once and never overwrites it. Starts the operator's controllers.
import { commandLineOptions, loadKubeClient, runManager } from "@crdgen/runtime";
import { KubeconfigError } from "@crdgen/runtime/client";
import { shardingFor } from "@crdgen/runtime/manager";
// The generated registry of every controller with your hooks: crdgen keeps it up to date as CRDs come and go.
import { newControllers } from "../generated/controllers.js";
// The generated registry of every webhook (admission, conversion) with mysqlcluster.webhooks.ts and .conversion.ts.
import { newWebhooks } from "../generated/webhooks.js";

// controller-runtime's flags, each also read from an environment variable (`--help` lists them):
// --metrics-bind-address (:8443), --metrics-secure (true: HTTPS, TokenReview + SubjectAccessReview of the caller),
// --metrics-cert-path (default a self-signed certificate), --health-probe-bind-address (:8081), --watch-namespaces
// (default all), --leader-elect, --leader-election-id, --leader-election-namespace (POD_NAMESPACE),
// --graceful-shutdown-timeout (30s), --webhook-cert-path (tls.crt, tls.key), --sharding, --sharding-field (uid),
// --kubeconfig, --kube-context.
// --help prints them and exits; a bad flag exits 2 with the reason.
const options = commandLineOptions("mysql-operator");

// --kubeconfig, $KUBECONFIG or ~/.kube/config (its --kube-context), else the in-cluster service account. Without a
// usable one, the reason on one line and exit 1 (as kubectl does), not a stack trace.
const kube = (() => {
  try {
    return loadKubeClient(options.kube);
  } catch (error) {
    if (!(error instanceof KubeconfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
})();

// With --sharding <name>, every replica reconciles its part of the objects (one Lease per replica, the API server
// filtering by shard where its ShardedListAndWatch gate is on); without it, one leader (--leader-elect) does it all.
const sharding = shardingFor(kube, options);

// With --watch-namespaces, one set of controllers per namespace, each caching only its namespace: the RBAC can then be
// a Role in each of them (see deploy/) instead of a ClusterRole that reads every namespace's Secrets.
const controllers =
  options.watchNamespaces.length === 0
    ? newControllers(kube, { sharding })
    : options.watchNamespaces.flatMap((namespace) => newControllers(kube, { namespace, sharding }));

// Serves /metrics, /healthz and /readyz (ready once the caches synced); with --leader-elect the controllers run only
// while this process holds the Lease. SIGINT/SIGTERM stop them gracefully: informers stop, in-flight reconciles finish,
// the Lease is released, then the process exits. Releasing on cancel is safe here only because nothing outlives the
// process once runManager returns: keep it so if you add work after it.
// The webhook server (HTTPS on :9443, tls.crt and tls.key from --webhook-cert-path, reloaded when they change) runs
// beside the controllers on every replica (the API server may call any of them), and /readyz waits for it.
// ENABLE_WEBHOOKS=false leaves it out (kubebuilder's switch), to run the controllers without a certificate.
const webhooks = process.env["ENABLE_WEBHOOKS"] === "false" ? undefined : { webhooks: newWebhooks() };

try {
  await runManager(controllers, { kube, options, leaderElectionReleaseOnCancel: true, webhooks, sharding });
} finally {
  kube.close();
}
