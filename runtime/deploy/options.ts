// What an operator's deploy/ manifests are made from, and the names and ports they share (kubebuilder's defaults).
import type { KubernetesObject } from "../client/types.js";
import type { ManagedController } from "../manager/manager.js";
import type { RbacOptions } from "../manager/rbac.js";
import type { WebhookRegistration } from "../webhook/registration.js";

export interface DeployOptions {
  /** The operator's name: its ServiceAccount, ClusterRole, Deployment, Services and leader election Lease. */
  name: string;
  /** Where the operator runs. Default `<name>-system`, as kubebuilder's config/default. */
  namespace?: string;
  /** The operator's image, e.g. `my-operator:0.1.0`. */
  image: string;
  /** The CustomResourceDefinitions the operator serves (readCrds reads them from a folder of YAML files). */
  crds: readonly KubernetesObject[];
  /**
   * The operator's controllers, e.g. the generated registry's `newControllers(offlineKubeClient())`: what each one
   * watches, owns and finalizes is its RBAC (Controller.access), so nothing else has to list it.
   */
  controllers: readonly ManagedController[];
  /**
   * The operator's webhooks (the generated `newWebhooks()`): adds their Service, a cert-manager Issuer and
   * Certificate, the webhook configurations and the CRDs' conversion stanza, all in webhooks/ (it needs cert-manager).
   */
  webhooks?: readonly WebhookRegistration[];
  /**
   * The namespaces it serves (--watch-namespaces): a Role in each instead of one ClusterRole, so it can read nothing
   * (no Secret in particular) anywhere else. Default: every namespace, a ClusterRole.
   */
  watchNamespaces?: readonly string[];
  /**
   * Also create the watchNamespaces (in 00-namespace.yaml): for namespaces that exist only for this operator, e.g. a
   * demo's. `undeploy` deletes them with everything in them, so leave it off for namespaces others use. Default false.
   */
  createWatchNamespaces?: boolean;
  /** What the controllers do that their declarations cannot say (rulesFor's extraRules and extraVerbs). */
  rbac?: Pick<RbacOptions, "extraRules" | "extraVerbs">;
  /**
   * Run `replicas` Pods that each reconcile their part of the objects (--sharding) instead of one leader
   * (--leader-elect): the Role then grants the group's member Leases instead of the leader election Lease.
   */
  sharding?: DeploySharding;
}

export interface DeploySharding {
  /** The Deployment's replicas. */
  replicas: number;
  /** The sharding group (--sharding): it prefixes the member Lease names. Default the operator's name. */
  group?: string;
}

/** Ports the manager listens on (runtime/manager's defaults), and where the webhook server reads its certificate. */
export const ports = { metrics: 8443, health: 8081, webhook: 9443 } as const;
export const webhookCertPath = "/tmp/k8s-webhook-server/serving-certs";

/** The names every manifest shares, derived from options. */
export interface DeployNames {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  serviceAccount: { kind: "ServiceAccount"; name: string; namespace: string };
  webhookService: string;
  webhookCertSecret: string;
  webhookCertificate: string;
}

export function deployNames(options: Pick<DeployOptions, "name" | "namespace">): DeployNames {
  const { name } = options;
  const namespace = options.namespace ?? `${name}-system`;
  return {
    name,
    namespace,
    labels: { "app.kubernetes.io/name": name, "app.kubernetes.io/component": "operator" },
    serviceAccount: { kind: "ServiceAccount", name, namespace },
    webhookService: `${name}-webhook`,
    webhookCertSecret: `${name}-webhook-cert`,
    webhookCertificate: `${name}-serving-cert`,
  };
}
