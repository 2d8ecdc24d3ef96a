// The project's deploy commands, kubebuilder's `make manifests` / `make install` / `make deploy`:
//   manifests [--check]  writes deploy/ from the CRDs and the controllers (--check: exit 1 if it is stale)
//   install              server-side applies deploy/'s CRDs to the current kubeconfig context
//   deploy               server-side applies all of deploy/ (webhooks/ last)
//   uninstall, undeploy  delete what install and deploy applied, in reverse order
// --kubeconfig and --context choose the cluster, as kubectl's flags do; $IMG overrides the image (make deploy IMG=).
import path from "node:path";
import { parseArgs } from "node:util";
import { loadKubeClient, type KubeClient } from "../client/kube-client.js";
import type { ManagedController } from "../manager/manager.js";
import { applyManifests, deleteManifests } from "./apply-manifests.js";
import { deployManifests, readCrds, readManifests, type ManifestFile } from "./manifests.js";
import type { DeployOptions } from "./options.js";
import { DeployError } from "./rbac-manifests.js";
import { manifestFilesUnder, writeManifests } from "./write-manifests.js";

export interface DeployCommandOptions extends Omit<DeployOptions, "crds" | "controllers"> {
  /** The project's CRD folder. Default "crds". */
  crdsDir?: string;
  /** Where the manifests go. Default "deploy". */
  deployDir?: string;
  /** The generated registry's newControllers; called with offlineKubeClient(), only to read what they touch. */
  newControllers: (kube: KubeClient) => readonly ManagedController[];
  /** What each file's header names as its maker. Default "npm run manifests". */
  by?: string;
  /** Where the command's output goes. Default process.stdout / process.stderr. */
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** A KubeClient that refuses every call: controllers built to read their access must not reach a cluster. */
export function offlineKubeClient(): KubeClient {
  const refuse = () => new DeployError("this client is offline: it only builds controllers to read what they touch");
  return {
    request: () => Promise.reject(refuse()),
    watch: () => {
      throw refuse();
    },
    defaultNamespace: undefined,
    close: () => undefined,
  };
}

const usage =
  "usage: manifests [--check] | install | deploy | uninstall | undeploy   [--kubeconfig <file>] [--context <name>]";

/** Runs one command; resolves with the exit code (0 done, 1 failed or stale, 2 bad usage). */
export async function runDeployCommand(argv: readonly string[], options: DeployCommandOptions): Promise<number> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { check: { type: "boolean" }, kubeconfig: { type: "string" }, context: { type: "string" } },
    });
  } catch (error) {
    err(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  const deployDir = options.deployDir ?? "deploy";
  try {
    if (command === "manifests" && rest.length === 0)
      return writeCommand(deployDir, options, parsed.values.check, out, err);
    if (command && applyCommands.has(command) && rest.length === 0) {
      const objects = manifestFilesUnder(deployDir).flatMap((f) => readManifests(path.join(deployDir, f)));
      const crdsOnly = command === "install" || command === "uninstall";
      const wanted = crdsOnly ? objects.filter((o) => o.kind === "CustomResourceDefinition") : objects;
      if (wanted.length === 0) throw new DeployError(`${deployDir}/ has nothing to apply: run npm run manifests first`);
      await withCluster(parsed.values, (kube) =>
        command === "install" || command === "deploy"
          ? applyManifests(kube, wanted, { onApplied: (o) => out(`${o.kind}/${o.metadata?.name} serverside-applied`) })
          : deleteManifests(kube, wanted, (o) => out(`${o.kind}/${o.metadata?.name} deleted`)),
      );
      return 0;
    }
  } catch (error) {
    err(error instanceof Error ? error.message : String(error));
    return 1;
  }
  err(usage);
  return 2;
}

/**
 * The manifests `manifests` writes for options (not yet rendered): the CRDs read from crdsDir, the controllers built
 * offline to read what they touch. For a project's own tools that need the same files, e.g. a staleness test.
 */
export function deployCommandManifests(options: DeployCommandOptions): ManifestFile[] {
  return deployManifests({
    ...options,
    crds: readCrds(options.crdsDir ?? "crds"),
    controllers: options.newControllers(offlineKubeClient()),
  });
}

function writeCommand(
  deployDir: string,
  options: DeployCommandOptions,
  check: boolean | undefined,
  out: (line: string) => void,
  err: (line: string) => void,
): number {
  const image = process.env["IMG"] || options.image;
  const files = deployCommandManifests({ ...options, image });
  const by = options.by ?? "npm run manifests";
  const result = writeManifests(deployDir, files, { by, check });
  const changes = [...result.changed, ...result.removed.map((f) => `${f} (no longer generated)`)];
  if (check && changes.length > 0) {
    err(`${deployDir}/ is stale; run ${by}. Would change:\n${changes.map((f) => `  ${f}`).join("\n")}`);
    return 1;
  }
  out(`${deployDir}/: ${changes.length} file(s) ${check ? "would change" : "written"}, ${result.unchanged} unchanged`);
  return 0;
}

const applyCommands = new Set(["install", "deploy", "uninstall", "undeploy"]);

/** The current kubeconfig context's cluster, or the one --kubeconfig / --context name. */
async function withCluster(
  flags: { kubeconfig?: string; context?: string },
  action: (kube: KubeClient) => Promise<void>,
): Promise<void> {
  const kube = loadKubeClient({ kubeconfig: flags.kubeconfig, context: flags.context });
  try {
    await action(kube);
  } finally {
    kube.close();
  }
}
