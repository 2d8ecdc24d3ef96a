// startControlPlane({ controllers: true }): kube-controller-manager, kube-scheduler and, when its binary exists, kwok
// with one fake Node, so that workloads get pods, pods get scheduled, and kwok reports them Running and Ready.
import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import type { KubeClient } from "../client/kube-client.js";
import { isAlreadyExists } from "../client/api-error.js";
import { findBinary, MissingBinaryError } from "./binaries.js";
import type { ControlPlaneCerts } from "./certs.js";
import { kwokNode, kwokNodeAnnotation, kwokNodeAnnotationValue, kwokStagesFile } from "./kwok.js";
import { startProcess, type ManagedProcess } from "./process.js";
import { freePorts, httpOk, httpsOk, waitUntil } from "./util.js";

export interface ControllersContext {
  dir: string;
  kubeconfigPath: string;
  certs: ControlPlaneCerts;
  client: KubeClient;
  assetsDir?: string;
  startTimeoutMs: number;
  /** Every process started is pushed here, so that the caller stops it (also when this throws). */
  processes: ManagedProcess[];
  /** Run kwok with its fake node (default true); false when a real node takes its place. */
  kwok?: boolean;
}

export interface ControllersInfo {
  /** The kwok-managed Node pods are scheduled to; undefined when kwok is not running. */
  fakeNodeName?: string;
  /** Why kwok is not running (the missing binary and how to build it). */
  kwokUnavailable?: string;
}

/** The name of the one fake Node startControlPlane creates for kwok. */
export const fakeNodeName = "kwok-node-0";

interface NodeView {
  spec?: { taints?: Array<{ key: string }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

export async function startControllers(ctx: ControllersContext): Promise<ControllersInfo> {
  const controllerManagerBinary = findBinary("kube-controller-manager", ctx.assetsDir);
  const schedulerBinary = findBinary("kube-scheduler", ctx.assetsDir);
  const lookup: KwokLookup = ctx.kwok === false ? {} : findKwok(ctx.assetsDir);
  const [controllerManagerPort, schedulerPort, kwokPort] = (await freePorts(3)) as [number, number, number];
  // Started together, then waited for together.
  const waits = [
    startControllerManager(controllerManagerBinary, controllerManagerPort, ctx),
    startScheduler(schedulerBinary, schedulerPort, ctx),
  ];
  const kwok = lookup.found ? await startKwok(lookup.found, kwokPort, ctx) : undefined;
  await Promise.all(kwok ? [...waits, kwok.healthy] : waits);
  if (!kwok) return { kwokUnavailable: lookup.unavailable };
  await waitForFakeNode(kwok.process, ctx);
  return { fakeNodeName };
}

interface KwokLookup {
  found?: { binary: string; stages: string };
  unavailable?: string;
}

/** kwok and its stage definitions, or why kwok cannot run (the missing file and how to build it). */
function findKwok(assetsDir: string | undefined): KwokLookup {
  try {
    const binary = findBinary("kwok", assetsDir);
    const stages = kwokStagesFile(binary);
    if (stages) return { found: { binary, stages } };
    return {
      unavailable: `kwok's stage definitions (kwok-stages.yaml) are missing beside ${binary}; run \`npx crdgen envtest --controllers\` to extract them from the kwok module`,
    };
  } catch (error) {
    if (!(error instanceof MissingBinaryError)) throw error;
    return { unavailable: error.message };
  }
}

/**
 * Both serve /healthz on their secure port, with the apiserver's serving certificate (127.0.0.1, signed by our CA)
 * so the probe can verify it; /healthz is in --authorization-always-allow-paths by default.
 */
function servingFlags(certs: ControlPlaneCerts): string[] {
  return [
    `--tls-cert-file=${certs.servingCert}`,
    `--tls-private-key-file=${certs.servingKey}`,
    "--bind-address=127.0.0.1",
  ];
}

/** Starts a process on `port` and returns the wait for its HTTPS /healthz. */
function startHealthChecked(
  name: string,
  binary: string,
  args: string[],
  port: number,
  ctx: ControllersContext,
): Promise<void> {
  const log = path.join(ctx.dir, `${name}.log`);
  const p = startProcess(name, binary, args, log);
  ctx.processes.push(p);
  return waitUntil(
    () => httpsOk(`https://127.0.0.1:${port}/healthz`, ctx.certs),
    ctx.startTimeoutMs,
    `${name} /healthz`,
    p,
    log,
  );
}

function startControllerManager(binary: string, port: number, ctx: ControllersContext): Promise<void> {
  const { certs } = ctx;
  return startHealthChecked(
    "kube-controller-manager",
    binary,
    [
      `--kubeconfig=${ctx.kubeconfigPath}`,
      `--secure-port=${port}`,
      ...servingFlags(certs),
      // Every on-by-default controller: none needs a cloud (the cloud ones live in cloud-controller-manager now) and
      // node-ipam-controller does nothing without --allocate-node-cidrs. node-lifecycle-controller removes the
      // not-ready taint from the fake node once kwok reports it Ready.
      "--controllers=*",
      "--use-service-account-credentials=false",
      `--service-account-private-key-file=${certs.serviceAccountKey}`,
      `--root-ca-file=${certs.caCert}`,
      "--leader-elect=false",
    ],
    port,
    ctx,
  );
}

function startScheduler(binary: string, port: number, ctx: ControllersContext): Promise<void> {
  return startHealthChecked(
    "kube-scheduler",
    binary,
    [`--kubeconfig=${ctx.kubeconfigPath}`, `--secure-port=${port}`, ...servingFlags(ctx.certs), "--leader-elect=false"],
    port,
    ctx,
  );
}

/** Creates the fake Node and starts kwok managing it; `healthy` resolves once kwok's /healthz answers. */
async function startKwok(
  kwok: { binary: string; stages: string },
  port: number,
  ctx: ControllersContext,
): Promise<{ process: ManagedProcess; healthy: Promise<void> }> {
  // kwok's own folder, so that a ~/.kwok/kwok.yaml of the user is not loaded (KWOK_WORKDIR is where it looks).
  const kwokDir = path.join(ctx.dir, "kwok");
  await mkdir(kwokDir, { recursive: true });
  const kwokConfig = path.join(kwokDir, "kwok.yaml");
  await copyFile(kwok.stages, kwokConfig);
  try {
    await ctx.client.request({ method: "POST", path: "/api/v1/nodes", body: kwokNode(fakeNodeName) });
  } catch (error) {
    if (!isAlreadyExists(error))
      throw new Error(`creating the fake node ${fakeNodeName}: ${(error as Error).message}`, { cause: error });
  }
  const log = path.join(ctx.dir, "kwok.log");
  const p = startProcess(
    "kwok",
    kwok.binary,
    [
      `--kubeconfig=${ctx.kubeconfigPath}`,
      `--config=${kwokConfig}`,
      "--manage-all-nodes=false",
      `--manage-nodes-with-annotation-selector=${kwokNodeAnnotation}=${kwokNodeAnnotationValue}`,
      // Leases as a kubelet keeps them, so node-lifecycle-controller sees the node alive (its grace period is 50 s).
      "--node-lease-duration-seconds=40",
      "--cidr=10.244.0.0/16",
      `--server-address=127.0.0.1:${port}`,
    ],
    log,
    { KWOK_WORKDIR: kwokDir },
  );
  ctx.processes.push(p);
  const healthy = waitUntil(
    () => httpOk(`http://127.0.0.1:${port}/healthz`),
    ctx.startTimeoutMs,
    "kwok /healthz",
    p,
    log,
  );
  return { process: p, healthy };
}

/**
 * Ready: kwok initialised the node. Untainted: node-lifecycle-controller removed node.kubernetes.io/not-ready, which
 * the TaintNodesByCondition admission plugin put on it at creation; until then nothing is scheduled.
 */
function waitForFakeNode(kwok: ManagedProcess, ctx: ControllersContext): Promise<void> {
  return waitUntil(
    async () => {
      const node = await ctx.client
        .request<NodeView>({ method: "GET", path: `/api/v1/nodes/${fakeNodeName}` })
        .catch(() => undefined);
      const ready = node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
      const tainted = node?.spec?.taints?.some((t) => t.key.startsWith("node.kubernetes.io/"));
      return Boolean(ready && !tainted);
    },
    ctx.startTimeoutMs,
    `fake node ${fakeNodeName} Ready and without node.kubernetes.io taints`,
    kwok,
    path.join(ctx.dir, "kwok.log"),
  );
}
