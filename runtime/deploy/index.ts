// @crdgen/runtime/deploy: an operator's deploy/ manifests from what it is (its CRDs, its controllers' declared kinds,
// its webhooks), and server-side apply of them with the runtime's own client: a project's `npm run manifests`,
// `npm run install:crds` and `npm run deploy` (kubebuilder's make manifests / install / deploy) call runDeployCommand.
export { type ApplyOptions, Discovery, applyManifests, deleteManifests } from "./apply-manifests.js";
export { type DeployCommandOptions, deployCommandManifests, offlineKubeClient, runDeployCommand } from "./command.js";
export {
  type ManifestFile,
  deployManifests,
  generatedHeader,
  readCrds,
  readManifests,
  renderManifest,
} from "./manifests.js";
export {
  type DeployNames,
  type DeployOptions,
  type DeploySharding,
  deployNames,
  ports,
  webhookCertPath,
} from "./options.js";
export { DeployError, controllerAccess } from "./rbac-manifests.js";
export { type WriteResult, manifestFilesUnder, writeManifests } from "./write-manifests.js";
