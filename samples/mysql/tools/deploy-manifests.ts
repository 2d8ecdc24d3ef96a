// The sample operator's deployment manifests (samples/mysql/deploy/), built from what the operator is: the CRD it
// serves, the generated controller's resource and the hooks' owns / watches / finalize. `npm run deploy:manifests`
// writes them (write-deploy-manifests.ts); a test fails when the committed files are stale.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseDocument, stringify } from "yaml";
import { builtinResources } from "@crdgen/runtime";
import {
  leaderElectionRole,
  metricsAuthClusterRole,
  metricsReaderClusterRole,
  roleFor,
  type ControllerAccess,
} from "@crdgen/runtime/manager";
import { crdConversionFor, webhookConfigurationsFor, type WebhookClientConfig } from "@crdgen/runtime/webhook";
import { newWebhooks } from "../generated/webhooks.js";
import { mySQLClusterResource } from "../generated/example.com/v1/mysqlcluster.types.js";
import type { MySQLClusterHooks } from "../generated/example.com/v1/mysqlcluster.controller.js";
import * as mySQLClusterHooks from "../src/mysqlcluster.hooks.js";

/** samples/mysql, from dist/samples/mysql/tools where this runs. */
export const sampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../samples/mysql");
export const deployDir = path.join(sampleDir, "deploy");

/** Names every manifest shares. */
export const deployment = {
  namespace: "mysql-operator",
  /** ServiceAccount, ClusterRole, bindings and Deployment. */
  name: "mysql-operator",
  /** The leader election Lease; the Role may get/update only this one. */
  leaseName: "mysql-operator",
  image: `mysql-operator:${packageVersion()}`,
  /**
   * The namespaces whose MySQLClusters it serves (--watch-namespaces). Everything the controller touches, Secrets
   * included, is granted by a Role in each of them and nowhere else; add a namespace here to serve it.
   */
  watchNamespaces: ["databases"],
  /** HTTPS, TokenReview + SubjectAccessReview (kubebuilder's default secure metrics port). */
  metricsPort: 8443,
  healthProbePort: 8081,
  /** The webhook server (controller-runtime's default port) and the Service the API server calls it through. */
  webhookPort: 9443,
  webhookService: "mysql-operator-webhook",
  /** Where the webhook server reads tls.crt and tls.key: the Secret cert-manager writes, mounted. */
  webhookCertPath: "/tmp/k8s-webhook-server/serving-certs",
  webhookCertSecret: "mysql-operator-webhook-cert",
  /** The cert-manager Certificate whose CA cert-manager's cainjector copies into caBundle. */
  webhookCertificate: "mysql-operator-serving-cert",
} as const;

/**
 * Where the API server sends webhook requests: the Service in front of the operator's pods, port 443. No caBundle:
 * cert-manager's cainjector fills it in from the Certificate the inject-ca-from annotation names.
 */
const webhookClientConfig = (p: string): WebhookClientConfig => ({
  service: { name: deployment.webhookService, namespace: deployment.namespace, path: p, port: 443 },
});
const injectCaFrom = {
  "cert-manager.io/inject-ca-from": `${deployment.namespace}/${deployment.webhookCertificate}`,
};

const labels = { "app.kubernetes.io/name": "mysql-operator", "app.kubernetes.io/component": "operator" };

/** The hooks module as the generated controller reads it. */
const hooks: MySQLClusterHooks = mySQLClusterHooks;

/** What the operator's one controller touches, read from the CRD, the generated resource and the hooks. */
export function operatorAccess(): ControllerAccess[] {
  const crd = parse(readFileSync(path.join(sampleDir, "crd.yaml"), "utf8")) as {
    spec: { versions: Array<{ name: string; storage?: boolean; subresources?: { status?: unknown } }> };
  };
  const version = crd.spec.versions.find((v) => v.name === mySQLClusterResource.version);
  if (!version)
    throw new Error(`samples/mysql/crd.yaml: no version ${mySQLClusterResource.version} (the generated controller's)`);
  return [
    {
      resource: mySQLClusterResource,
      status: version.subresources?.status !== undefined,
      finalizer: typeof hooks.finalize === "function",
      owns: hooks.owns ?? [],
      watches: (hooks.watches ?? []).map((w) => w.resource),
      // What the hooks do that their exports cannot say (the e2e fails on a 403 if this falls behind, and on an unused
      // grant if it runs ahead): the generated root password Secret and the backup PVC are created and applied but are
      // watched rather than owned, since they carry an ownerReference only with reclaimPolicy Delete; and Secrets are
      // read
      // by GET (the user's Secret has no managed-by label, so the watch does not cache it).
      writes: [builtinResources.secrets, builtinResources.persistentVolumeClaims],
      reads: [builtinResources.secrets],
    },
  ];
}

/** File name → content; each starts with a line saying it is generated. */
export function deployManifests(): Map<string, string> {
  return new Map([...namespaceManifests(), ...accessManifests(), ...workloadManifests(), ...webhookManifests()]);
}

const header = (from?: string) =>
  `# Code generated by npm run deploy:manifests (samples/mysql/tools/deploy-manifests.ts)${from ? ` from ${from}` : ""}. DO NOT EDIT.\n`;
const yaml = (...docs: unknown[]) =>
  docs.map((d) => stringify(d, { lineWidth: 0, aliasDuplicateObjects: false })).join("---\n");
const serviceAccountSubject = { kind: "ServiceAccount", name: deployment.name, namespace: deployment.namespace };

/** The namespaces, the CRD and the operator's ServiceAccount. */
function namespaceManifests(): Array<[string, string]> {
  const { namespace, name } = deployment;
  return [
    [
      "00-namespace.yaml",
      header() +
        yaml(
          ...[namespace, ...deployment.watchNamespaces].map((n) => ({
            apiVersion: "v1",
            kind: "Namespace",
            metadata: { name: n, ...(n === namespace ? { labels } : {}) },
          })),
        ),
    ],
    ["01-crd.yaml", header("samples/mysql/crd.yaml and its conversion webhook") + crdWithConversion()],
    [
      "02-service-account.yaml",
      header() + yaml({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace, labels } }),
    ],
  ];
}

/** The RBAC: what the controller touches, its Lease, and the metrics server's checks of who scrapes it. */
function accessManifests(): Array<[string, string]> {
  const { namespace, name } = deployment;
  return [
    // No ClusterRole for what the controller touches: a Role per served namespace, so no Secret (or anything else)
    // outside those namespaces can be read, listed or watched by the operator.
    [
      "03-role.yaml",
      header("the CRD, the generated controller and the hooks' owns / watches / finalize") +
        yaml(
          ...deployment.watchNamespaces.flatMap((watched) => [
            roleFor(name, watched, operatorAccess(), { labels }),
            {
              apiVersion: "rbac.authorization.k8s.io/v1",
              kind: "RoleBinding",
              metadata: { name, namespace: watched, labels },
              roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
              subjects: [serviceAccountSubject],
            },
          ]),
        ),
    ],
    // Leases only in the operator's namespace, and get/update only on its own Lease: least privilege.
    [
      "04-leader-election-role.yaml",
      header() +
        yaml(leaderElectionRole(`${name}-leader-election`, namespace, deployment.leaseName, labels), {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name: `${name}-leader-election`, namespace, labels },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${name}-leader-election` },
          subjects: [serviceAccountSubject],
        }),
    ],
    // The secure metrics server asks the API server who a scraper is (TokenReview) and whether it may read /metrics
    // (SubjectAccessReview): both cluster-scoped, and all this ClusterRole grants.
    [
      "05-metrics-auth-role.yaml",
      header() +
        yaml(metricsAuthClusterRole(`${name}-metrics-auth`, labels), {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name: `${name}-metrics-auth`, labels },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `${name}-metrics-auth` },
          subjects: [serviceAccountSubject],
        }),
    ],
    // Bound to nobody here: bind it to the scraper's ServiceAccount (e.g. Prometheus') to let it read /metrics.
    ["06-metrics-reader-role.yaml", header() + yaml(metricsReaderClusterRole(`${name}-metrics-reader`, labels))],
  ];
}

/** The operator's Deployment and the Services in front of its metrics server and its webhook server. */
function workloadManifests(): Array<[string, string]> {
  const { namespace, name } = deployment;
  return [
    ["07-deployment.yaml", header() + yaml(operatorDeployment())],
    [
      "08-metrics-service.yaml",
      header() +
        yaml({
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: `${name}-metrics`, namespace, labels },
          spec: {
            selector: labels,
            ports: [{ name: "https", port: deployment.metricsPort, targetPort: "metrics", protocol: "TCP" }],
          },
        }),
    ],
    [
      "09-webhook-service.yaml",
      header() +
        yaml({
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: deployment.webhookService, namespace, labels },
          spec: { selector: labels, ports: [{ name: "https", port: 443, targetPort: "webhook", protocol: "TCP" }] },
        }),
    ],
  ];
}

/**
 * Apart, in webhooks/: these need cert-manager (its CRDs, and the caBundle it injects), and once applied the API
 * server calls the operator on every MySQLCluster write, so they go in with the operator (kubectl apply -f
 * deploy/webhooks/ after deploy/).
 */
function webhookManifests(): Array<[string, string]> {
  const { namespace, name } = deployment;
  return [
    [
      "webhooks/00-certificate.yaml",
      header() +
        yaml(
          {
            apiVersion: "cert-manager.io/v1",
            kind: "Issuer",
            metadata: { name: `${name}-selfsigned`, namespace, labels },
            spec: { selfSigned: {} },
          },
          {
            apiVersion: "cert-manager.io/v1",
            kind: "Certificate",
            metadata: { name: deployment.webhookCertificate, namespace, labels },
            spec: {
              dnsNames: [
                `${deployment.webhookService}.${namespace}.svc`,
                `${deployment.webhookService}.${namespace}.svc.cluster.local`,
              ],
              issuerRef: { kind: "Issuer", name: `${name}-selfsigned` },
              secretName: deployment.webhookCertSecret,
            },
          },
        ),
    ],
    [
      "webhooks/01-webhook-configurations.yaml",
      header("the generated webhooks (generated/webhooks.ts) with the sample's hooks") +
        yaml(...webhookConfigurations()),
    ],
  ];
}

/**
 * The Mutating- and ValidatingWebhookConfiguration of the operator's webhooks: failurePolicy Fail (a MySQLCluster is
 * not written unchecked while the operator is down), sideEffects None, 10 s, and only in the namespaces it serves.
 */
export function webhookConfigurations() {
  return webhookConfigurationsFor(newWebhooks(), {
    name: deployment.name,
    clientConfig: webhookClientConfig,
    failurePolicy: "Fail",
    sideEffects: "None",
    timeoutSeconds: 10,
    namespaceSelector: {
      matchExpressions: [
        { key: "kubernetes.io/metadata.name", operator: "In", values: [...deployment.watchNamespaces] },
      ],
    },
    annotations: injectCaFrom,
  });
}

/**
 * samples/mysql/crd.yaml (comments kept) with spec.conversion pointing at the operator's conversion webhook (strategy
 * Webhook, ConversionReview v1) and cert-manager's inject-ca-from annotation, when the operator serves one.
 */
export function crdWithConversion(): string {
  const document = parseDocument(readFileSync(path.join(sampleDir, "crd.yaml"), "utf8"));
  const conversion = newWebhooks().find((w) => w.type === "conversion");
  if (conversion) {
    document.setIn(["metadata", "annotations"], document.createNode(injectCaFrom));
    document.setIn(["spec", "conversion"], document.createNode(crdConversionFor(webhookClientConfig(conversion.path))));
  }
  return document.toString({ lineWidth: 0, flowCollectionPadding: false });
}

function operatorDeployment(): unknown {
  const { namespace, name, metricsPort, healthProbePort } = deployment;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace, labels },
    spec: {
      // One active reconciler; a second replica would be a standby (leader election), which is also safe.
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: {
          labels,
          annotations: {
            "kubectl.kubernetes.io/default-container": "manager",
            "prometheus.io/scrape": "true",
            "prometheus.io/scheme": "https",
            "prometheus.io/port": String(metricsPort),
            "prometheus.io/path": "/metrics",
          },
        },
        spec: {
          serviceAccountName: name,
          // Above the operator's 30 s graceful shutdown, so in-flight reconciles finish and the Lease is released.
          terminationGracePeriodSeconds: 40,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 1000,
            runAsGroup: 1000,
            seccompProfile: { type: "RuntimeDefault" },
          },
          containers: [
            {
              name: "manager",
              image: deployment.image,
              imagePullPolicy: "IfNotPresent",
              args: [
                "--leader-elect",
                `--leader-election-id=${deployment.leaseName}`,
                `--watch-namespaces=${deployment.watchNamespaces.join(",")}`,
                // HTTPS with a self-signed certificate; mount one and add --metrics-cert-path to use your own.
                `--metrics-bind-address=:${metricsPort}`,
                `--health-probe-bind-address=:${healthProbePort}`,
                `--webhook-cert-path=${deployment.webhookCertPath}`,
              ],
              env: [
                // The Lease lives in the pod's own namespace.
                { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
                // Keeps the V8 heap under the memory limit, leaving room for buffers and code.
                { name: "NODE_OPTIONS", value: "--max-old-space-size=192" },
              ],
              ports: [
                { name: "metrics", containerPort: metricsPort, protocol: "TCP" },
                { name: "health", containerPort: healthProbePort, protocol: "TCP" },
                { name: "webhook", containerPort: deployment.webhookPort, protocol: "TCP" },
              ],
              // cert-manager keeps the Secret current; the webhook server reloads the files when they change.
              volumeMounts: [{ name: "webhook-certs", mountPath: deployment.webhookCertPath, readOnly: true }],
              livenessProbe: {
                httpGet: { path: "/healthz", port: "health" },
                initialDelaySeconds: 15,
                periodSeconds: 20,
              },
              // Ready once the caches synced (or at once as a standby, so a rolling update can start the new pod).
              readinessProbe: {
                httpGet: { path: "/readyz", port: "health" },
                initialDelaySeconds: 5,
                periodSeconds: 10,
              },
              resources: { requests: { cpu: "50m", memory: "96Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ["ALL"] },
              },
            },
          ],
          volumes: [{ name: "webhook-certs", secret: { secretName: deployment.webhookCertSecret } }],
        },
      },
    },
  };
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(sampleDir, "../../package.json"), "utf8")) as { version: string };
  return pkg.version;
}
