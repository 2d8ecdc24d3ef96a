// Finds the control plane binaries the envtest way: TEST_ASSET_<NAME>, then KUBEBUILDER_ASSETS, then crdgen's build
// cache.
import { accessSync, constants } from "node:fs";
import os from "node:os";
import path from "node:path";

export type ControlPlaneBinary =
  "etcd" | "kube-apiserver" | "kubectl" | "kube-controller-manager" | "kube-scheduler" | "kwok";

/** Needed only by `startControlPlane({ controllers: true })`; setup-envtest's folders do not have them. */
const controllerBinaries: ReadonlySet<ControlPlaneBinary> = new Set([
  "kube-controller-manager",
  "kube-scheduler",
  "kwok",
]);

/** The Kubernetes release `crdgen envtest` (controlplane/build.sh) builds by default (keep the two in step). */
export const defaultKubeVersion = "1.37.2";

/** crdgen's build cache: `${CRDGEN_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/crdgen}/controlplane/<version>`. */
export function controlPlaneCacheDir(version = process.env["CRDGEN_KUBE_VERSION"] ?? defaultKubeVersion): string {
  const root =
    process.env["CRDGEN_CACHE_DIR"] ??
    path.join(process.env["XDG_CACHE_HOME"] ?? path.join(os.homedir(), ".cache"), "crdgen");
  return path.join(root, "controlplane", version.replace(/^v/, ""));
}

export class MissingBinaryError extends Error {
  constructor(
    readonly binary: ControlPlaneBinary,
    readonly looked: string[],
  ) {
    super(
      `the control plane binary ${binary} was not found (looked at: ${looked.join(", ")}). ` +
        (controllerBinaries.has(binary)
          ? `startControlPlane({ controllers: true }) needs it; build it with \`npx crdgen envtest --controllers\` (setup-envtest's folders do not have it), or set TEST_ASSET_${envSuffix(binary)}.`
          : "Build it with `npx crdgen envtest` (Go needed; `npm run controlplane:build` in crdgen's own repository), or point KUBEBUILDER_ASSETS at a folder holding etcd, kube-apiserver and kubectl."),
    );
    this.name = "MissingBinaryError";
  }
}

export function findBinary(binary: ControlPlaneBinary, assetsDir?: string): string {
  const envName = `TEST_ASSET_${envSuffix(binary)}`;
  const candidates = [
    process.env[envName],
    assetsDir && path.join(assetsDir, binary),
    process.env["KUBEBUILDER_ASSETS"] && path.join(process.env["KUBEBUILDER_ASSETS"], binary),
    path.join(controlPlaneCacheDir(), binary),
  ].filter((c): c is string => Boolean(c));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // try the next place
    }
  }
  throw new MissingBinaryError(binary, candidates);
}

function envSuffix(binary: ControlPlaneBinary): string {
  return binary.toUpperCase().replace(/-/g, "_");
}
