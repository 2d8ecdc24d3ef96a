// The operator's Deployment and the Services in front of its metrics server and (with webhooks) its webhook server.
import type { KubernetesObject } from "../client/types.js";
import { defaultGracefulShutdownTimeoutMs } from "../manager/options.js";
import { ports, webhookCertPath, type DeployNames, type DeployOptions } from "./options.js";

/**
 * How long a Pod marked for deletion keeps running before its SIGTERM: the endpoint controllers and every node's
 * kube-proxy take it out of its Services meanwhile, so the API server's webhook calls (and scrapes) go to the other
 * replicas instead of a process that has stopped listening. The kubelet sleeps itself (the lifecycle `sleep` action,
 * without a feature gate in kube 1.37.2): the image needs no sleep binary.
 */
const preStopSleepSeconds = 5;
/** The preStop, then the manager's default graceful shutdown, then its servers' drain and the exit. */
const terminationGracePeriodSeconds = preStopSleepSeconds + defaultGracefulShutdownTimeoutMs / 1000 + 10;

/** The manager's flags (runtime/manager/options.ts) as the Deployment passes them. */
function managerArgs(names: DeployNames, options: DeployOptions): string[] {
  const sharding = options.sharding;
  return [
    ...(sharding
      ? [`--sharding=${sharding.group ?? names.name}`]
      : ["--leader-elect", `--leader-election-id=${names.name}`]),
    ...((options.watchNamespaces ?? []).length > 0 ? [`--watch-namespaces=${options.watchNamespaces!.join(",")}`] : []),
    // HTTPS with a self-signed certificate, callers checked by TokenReview + SubjectAccessReview.
    `--metrics-bind-address=:${ports.metrics}`,
    `--health-probe-bind-address=:${ports.health}`,
    ...(options.webhooks?.length ? [`--webhook-cert-path=${webhookCertPath}`] : []),
  ];
}

function container(names: DeployNames, options: DeployOptions): object {
  const webhooks = (options.webhooks?.length ?? 0) > 0;
  return {
    name: "manager",
    image: options.image,
    imagePullPolicy: "IfNotPresent",
    args: managerArgs(names, options),
    env: [
      // The Lease lives in the pod's own namespace.
      { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
      // Keeps the V8 heap under the memory limit, leaving room for buffers and code.
      { name: "NODE_OPTIONS", value: "--max-old-space-size=192" },
    ],
    ports: [
      { name: "metrics", containerPort: ports.metrics, protocol: "TCP" },
      { name: "health", containerPort: ports.health, protocol: "TCP" },
      ...(webhooks ? [{ name: "webhook", containerPort: ports.webhook, protocol: "TCP" }] : []),
    ],
    // cert-manager keeps the Secret current; the webhook server reloads the files when they change.
    ...(webhooks ? { volumeMounts: [{ name: "webhook-certs", mountPath: webhookCertPath, readOnly: true }] } : {}),
    lifecycle: { preStop: { sleep: { seconds: preStopSleepSeconds } } },
    livenessProbe: { httpGet: { path: "/healthz", port: "health" }, initialDelaySeconds: 15, periodSeconds: 20 },
    // Ready once the caches synced (or at once as a standby, so a rolling update can start the new pod).
    readinessProbe: { httpGet: { path: "/readyz", port: "health" }, initialDelaySeconds: 5, periodSeconds: 10 },
    resources: { requests: { cpu: "50m", memory: "96Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } },
  };
}

export function operatorDeployment(names: DeployNames, options: DeployOptions): KubernetesObject {
  const { name, namespace, labels } = names;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace, labels },
    spec: {
      // One active reconciler (a second replica would be a standby, which is also safe); sharded, each reconciles a part.
      replicas: options.sharding?.replicas ?? 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: { "kubectl.kubernetes.io/default-container": "manager" } },
        spec: {
          serviceAccountName: name,
          terminationGracePeriodSeconds,
          // The image's user `node` (1000), numeric so runAsNonRoot can check it.
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 1000,
            runAsGroup: 1000,
            seccompProfile: { type: "RuntimeDefault" },
          },
          containers: [container(names, options)],
          ...(options.webhooks?.length
            ? { volumes: [{ name: "webhook-certs", secret: { secretName: names.webhookCertSecret } }] }
            : {}),
        },
      },
    },
  } as KubernetesObject;
}

const service = (names: DeployNames, name: string, port: number, targetPort: string): KubernetesObject =>
  ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: names.namespace, labels: names.labels },
    spec: { selector: names.labels, ports: [{ name: "https", port, targetPort, protocol: "TCP" }] },
  }) as KubernetesObject;

export const metricsService = (names: DeployNames) => service(names, `${names.name}-metrics`, ports.metrics, "metrics");
/** The API server calls webhooks on port 443 of this Service. */
export const webhookService = (names: DeployNames) => service(names, names.webhookService, 443, "webhook");
