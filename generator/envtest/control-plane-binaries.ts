// Where a project's envtest binaries come from (setup-envtest's `use`): KUBEBUILDER_ASSETS when it is set, else
// crdgen's cache, which the build script the package ships fills from Go modules.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { UserError } from "../user-error.js";

export interface BinariesOptions {
  /** Build nothing: only say whether the binaries are there. */
  printOnly: boolean;
  /** Also kube-controller-manager, kube-scheduler and kwok (startControlPlane({ controllers: true })). */
  controllers: boolean;
}

/** What every envtest test needs, and all a setup-envtest folder holds. */
const envtestBinaries = ["etcd", "kube-apiserver", "kubectl"];
const controllerBinaries = ["kube-controller-manager", "kube-scheduler", "kwok"];

/** The way to the binaries that needs neither Go nor bash, said wherever the build cannot run. */
const otherwise = "or set KUBEBUILDER_ASSETS to a folder holding etcd, kube-apiserver and kubectl (setup-envtest's)";

/** controlplane/build.sh of this package: this file is dist/generator/envtest/control-plane-binaries.js in it. */
const buildScript = fileURLToPath(new URL("../../../controlplane/build.sh", import.meta.url));

/** The folder holding the binaries, prepared if need be; a UserError says why there is none. */
export async function controlPlaneBinaries(options: BinariesOptions): Promise<string> {
  const assets = process.env["KUBEBUILDER_ASSETS"];
  if (assets) return checkedAssets(assets, options.controllers);
  if (options.printOnly) return cachedBinaries(options.controllers);
  return build(options.controllers);
}

/** A KUBEBUILDER_ASSETS folder is used as it is, once it holds what the tests will look for. */
function checkedAssets(assets: string, controllers: boolean): string {
  if (!isFolder(assets)) throw new UserError(`KUBEBUILDER_ASSETS is set to '${assets}', which is not a folder`);
  const missing = missingIn(assets, controllers);
  if (missing.length > 0)
    throw new UserError(
      `KUBEBUILDER_ASSETS is set to '${assets}', which has no ${missing.join(", ")}: unset it to build them`,
    );
  return path.resolve(assets);
}

/** --print-only: crdgen's cache folder if it holds the binaries (by name; the build also checks their versions). */
async function cachedBinaries(controllers: boolean): Promise<string> {
  const { controlPlaneCacheDir } = await import("@crdgen/runtime/envtest");
  const folder = controlPlaneCacheDir();
  const missing = missingIn(folder, controllers);
  if (missing.length > 0)
    throw new UserError(
      `${folder} has no ${missing.join(", ")}: crdgen envtest builds them (it needs Go), ${otherwise}`,
    );
  return folder;
}

/**
 * Runs the build script: it reuses what is cached and builds the rest, logging on stderr and printing the folder last
 * on stdout. Without Go only a complete cache can do, so its log is kept back and a failure told in one line.
 */
async function build(controllers: boolean): Promise<string> {
  const goMissing = !onPath("go");
  const run = await runScript({ ...process.env, CRDGEN_CONTROLLERS: controllers ? "1" : "0" }, goMissing);
  if (run.code === 0) {
    if (goMissing) process.stderr.write(run.stderr);
    const folder = run.stdout.trim().split("\n").at(-1);
    if (folder) return folder;
    throw new UserError(`${buildScript} printed no folder`);
  }
  const reason = run.stderr
    .split("\n")
    .findLast((line) => line.includes("FAILED: "))
    ?.replace(/^.*?FAILED: /, "");
  if (goMissing) throw new UserError(`${reason ?? "the control plane binaries could not be built"}; ${otherwise}`);
  throw new UserError(`building the control plane failed (see above); ${otherwise}`);
}

interface ScriptRun {
  code: number | null;
  stdout: string;
  /** Only when it was kept back. */
  stderr: string;
}

function runScript(env: NodeJS.ProcessEnv, keepLog: boolean): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [buildScript], { env, stdio: ["ignore", "pipe", keepLog ? "pipe" : "inherit"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "ENOENT"
          ? new UserError(`crdgen envtest runs ${buildScript} with bash, which is not on PATH; ${otherwise}`)
          : error,
      ),
    );
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function missingIn(folder: string, controllers: boolean): string[] {
  const wanted = controllers ? [...envtestBinaries, ...controllerBinaries] : envtestBinaries;
  return wanted.filter((binary) => !isExecutable(path.join(folder, binary)));
}

/** Whether `command` is an executable in a folder of PATH. */
function onPath(command: string): boolean {
  const names = process.platform === "win32" ? [`${command}.exe`, command] : [command];
  return (process.env["PATH"] ?? "")
    .split(path.delimiter)
    .some((dir) => dir !== "" && names.some((name) => isExecutable(path.join(dir, name))));
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
