// The sample operator's deploy/ (samples/mysql/deploy/), made by @crdgen/runtime/deploy as a crdgen init project's
// `npm run manifests` makes its own: the CRD with its conversion webhook, RBAC from what the generated controller
// watches, owns and finalizes, the Deployment, its Services, and the webhooks' certificate and configurations.
// `npm run deploy:manifests` writes them (write-deploy-manifests.ts); a test fails when the committed files are stale.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { builtinResources } from "@crdgen/runtime";
import { accessVerbs, type ControllerAccess, type PolicyRule } from "@crdgen/runtime/manager";
import {
  controllerAccess,
  deployCommandManifests,
  deployNames,
  offlineKubeClient,
  ports,
  readCrds,
  renderManifest,
  webhookCertPath,
  type DeployCommandOptions,
} from "@crdgen/runtime/deploy";
import { newControllers } from "../generated/controllers.js";
import { newWebhooks } from "../generated/webhooks.js";

/** samples/mysql, from dist/samples/mysql/tools where this runs. */
export const sampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../samples/mysql");
export const deployDir = path.join(sampleDir, "deploy");
/** The same operator as 3 sharded replicas (--sharding), each reconciling a third of the MySQLClusters. */
export const shardedDeployDir = path.join(sampleDir, "deploy-sharded");
/** What each file's first line names as its maker. */
const by = "npm run deploy:manifests";

/**
 * What the hooks do that their owns / watches cannot say (the e2e fails on a 403 if this falls behind, and on an
 * unused grant if it runs ahead): the generated root password Secret and the backup PVC are created and applied but
 * watched rather than owned, since they carry an ownerReference only with reclaimPolicy Delete; and Secrets are read
 * by GET (the user's Secret has no managed-by label, so the watch does not cache it).
 */
const undeclared = {
  writes: [builtinResources.secrets, builtinResources.persistentVolumeClaims],
  reads: [builtinResources.secrets],
};
const coreRule = (resources: string[], verbs: readonly string[]): PolicyRule => ({
  apiGroups: [""],
  resources,
  verbs: [...verbs],
});

/** The sample's deploy command options: what a project's src/deploy.ts passes to runDeployCommand. */
export const sampleDeploy = {
  name: "mysql-operator",
  namespace: "mysql-operator",
  image: `mysql-operator:${packageVersion()}`,
  crdsDir: sampleDir,
  deployDir,
  by,
  newControllers: (kube) => newControllers(kube),
  webhooks: newWebhooks(),
  /**
   * The namespaces whose MySQLClusters it serves (--watch-namespaces). Everything the controller touches, Secrets
   * included, is granted by a Role in each of them and nowhere else; add a namespace here to serve it. They exist for
   * the sample only, so deploy/ creates them.
   */
  watchNamespaces: ["databases"] as const,
  createWatchNamespaces: true,
  rbac: {
    extraRules: [
      coreRule(
        undeclared.writes.map((r) => r.plural),
        accessVerbs.written,
      ),
      coreRule(
        undeclared.reads.map((r) => r.plural),
        accessVerbs.read,
      ),
    ],
  },
} satisfies DeployCommandOptions;

/** deploy-sharded/: deploy/ with 3 replicas that split the MySQLClusters (--sharding) instead of one leader. */
export const shardedDeploy = {
  ...sampleDeploy,
  deployDir: shardedDeployDir,
  sharding: { replicas: 3 },
} satisfies DeployCommandOptions;

const names = deployNames(sampleDeploy);

/** Names and ports every manifest shares, for the tools and tests that use the deployed operator. */
export const deployment = {
  namespace: names.namespace,
  /** ServiceAccount, Deployment, Services, and the leader election Lease (the Role may get/update only this one). */
  name: names.name,
  leaseName: names.name,
  image: sampleDeploy.image,
  watchNamespaces: sampleDeploy.watchNamespaces,
  metricsPort: ports.metrics,
  healthProbePort: ports.health,
  webhookPort: ports.webhook,
  /** The Service the API server calls the webhooks through, the Secret cert-manager writes and where it is mounted. */
  webhookService: names.webhookService,
  webhookCertPath,
  webhookCertSecret: names.webhookCertSecret,
  /** The cert-manager Certificate whose CA cert-manager's cainjector copies into caBundle. */
  webhookCertificate: names.webhookCertificate,
} as const;

/** What the operator's one controller touches: what it declares, plus what the hooks do undeclared. */
export function operatorAccess(): ControllerAccess[] {
  const declared = controllerAccess(newControllers(offlineKubeClient()), readCrds(sampleDir));
  return declared.map((access) => ({ ...access, ...undeclared }));
}

/** File name (relative to deploy/, or deploy-sharded/) → content, as npm run deploy:manifests writes it. */
export function deployManifests(options: DeployCommandOptions = sampleDeploy): Map<string, string> {
  return new Map(deployCommandManifests(options).map((f) => [f.file, renderManifest(f, options.by ?? by)]));
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(sampleDir, "../../package.json"), "utf8")) as { version: string };
  return pkg.version;
}
