// startControlPlane({ node: "real" }): a real node (kubelet + containerd + runc + CNI bridge) instead of kwok's fake
// one, run by the repository's controlplane/node/node.sh, which keeps all its state in one folder and removes
// everything it made (containers, mounts, veths, cgroups, kubelet's iptables chains) when stopped.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The real node's bridge address (the gateway of node.sh's pod range 10.200.0.0/24): pods reach the host, the API
 * server (which advertises this address to the `kubernetes` Service) and the cluster DNS server (port 53) there.
 */
export const realNodeGateway = "10.200.0.1";

export interface RealNode {
  /** The Node's name, as registered by its kubelet. */
  readonly name: string;
  /** The node's folder (containerd's root and state, kubelet's root, configs, logs); removed by stop. */
  readonly dir: string;
  /** Stops kubelet, tears every pod sandbox down, stops containerd and removes what they made; rejects if any stays. */
  stop(): Promise<void>;
}

/**
 * controlplane/node/node.sh of the repository this runtime was built in (envtest is a development tool; a published
 * runtime has no such script), or CRDGEN_NODE_SCRIPT.
 */
export function realNodeScript(): string {
  const script =
    process.env["CRDGEN_NODE_SCRIPT"] ??
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../controlplane/node/node.sh");
  if (!existsSync(script))
    throw new Error(
      `startControlPlane({ node: "real" }) needs controlplane/node/node.sh of the crdgen repository (looked at ` +
        `${script}); set CRDGEN_NODE_SCRIPT to its path`,
    );
  return script;
}

function runNodeScript(args: string[], env: Record<string, string>, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      [realNodeScript(), ...args],
      { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const tail = stderr.trim().split("\n").slice(-25).join("\n");
          reject(new Error(`node.sh ${args[0] ?? ""} failed (${error.message.split("\n")[0]}):\n${tail}`));
        } else resolve(stdout);
      },
    );
  });
}

export interface RealNodeOptions {
  /** Folder for the node's state (created). */
  dir: string;
  kubeconfigPath: string;
  /** Folder holding kubelet, kubectl and crictl (`bash controlplane/node/build.sh` fills crdgen's cache). */
  assetsDir: string;
  /** Images of crdgen's image cache to import (images.sh names: pause, debian, mariadb, operator); default all. */
  images?: string[];
  timeoutMs: number;
}

/** Starts containerd and kubelet through node.sh and resolves once the Node is Ready. */
export async function startRealNode(options: RealNodeOptions): Promise<RealNode> {
  const env: Record<string, string> = {
    KUBEBUILDER_ASSETS: options.assetsDir,
    ...(options.images ? { CRDGEN_NODE_IMAGES: options.images.join(" ") } : {}),
  };
  const dir = options.dir;
  try {
    const out = await runNodeScript(["start", dir, options.kubeconfigPath], env, options.timeoutMs);
    const name = out.trim().split("\n").pop() ?? "";
    return { name, dir, stop: () => runNodeScript(["stop", dir], env, 120_000).then(() => undefined) };
  } catch (error) {
    // A half-started node is stopped too (a stop failure would hide why the start failed).
    await runNodeScript(["stop", dir], env, 120_000).catch(() => undefined);
    throw error;
  }
}
