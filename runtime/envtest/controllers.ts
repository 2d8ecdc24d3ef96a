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
  let kwokBinary: string | undefined;
  let kwokUnavailable: string | undefined;
  let kwokStages: string | undefined;
  try {
    kwokBinary = ctx.kwok === false ? undefined : findBinary("kwok", ctx.assetsDir);
    kwokStages = kwokBinary && kwokStagesFile(kwokBinary);
    if (kwokBinary && !kwokStages) {
      kwokUnavailable = `kwok's stage definitions (kwok-stages.yaml) are missing beside ${kwokBinary}; run \`npm run controlplane:build\` to extract them from the kwok module`;
      kwokBinary = undefined;
    }
  } catch (error) {
    if (!(error instanceof MissingBinaryError)) throw error;
    kwokUnavailable = error.message;
  }
  const { dir, certs, kubeconfigPath, startTimeoutMs } = ctx;
  const [controllerManagerPort, schedulerPort, kwokPort] = await freePorts(3);
  // Both serve /healthz on their secure port, with the apiserver's serving certificate (127.0.0.1, signed by our CA)
  // so the probe can verify it; /healthz is in --authorization-always-allow-paths by default.
  const serving = [
    `--tls-cert-file=${certs.servingCert}`,
    `--tls-private-key-file=${certs.servingKey}`,
    "--bind-address=127.0.0.1",
  ];
  const waits: Array<Promise<void>> = [];

  const controllerManagerLog = path.join(dir, "kube-controller-manager.log");
  const controllerManager = startProcess(
    "kube-controller-manager",
    controllerManagerBinary,
    [
      `--kubeconfig=${kubeconfigPath}`,
      `--secure-port=${controllerManagerPort}`,
      ...serving,
      // Every on-by-default controller: none needs a cloud (the cloud ones live in cloud-controller-manager now) and
      // node-ipam-controller does nothing without --allocate-node-cidrs. node-lifecycle-controller removes the
      // not-ready taint from the fake node once kwok reports it Ready.
      "--controllers=*",
      "--use-service-account-credentials=false",
      `--service-account-private-key-file=${certs.serviceAccountKey}`,
      `--root-ca-file=${certs.caCert}`,
      "--leader-elect=false",
    ],
    controllerManagerLog,
  );
  ctx.processes.push(controllerManager);
  waits.push(
    waitUntil(
      () => httpsOk(`https://127.0.0.1:${controllerManagerPort}/healthz`, certs),
      startTimeoutMs,
      "kube-controller-manager /healthz",
      controllerManager,
      controllerManagerLog,
    ),
  );

  const schedulerLog = path.join(dir, "kube-scheduler.log");
  const scheduler = startProcess(
    "kube-scheduler",
    schedulerBinary,
    [`--kubeconfig=${kubeconfigPath}`, `--secure-port=${schedulerPort}`, ...serving, "--leader-elect=false"],
    schedulerLog,
  );
  ctx.processes.push(scheduler);
  waits.push(
    waitUntil(
      () => httpsOk(`https://127.0.0.1:${schedulerPort}/healthz`, certs),
      startTimeoutMs,
      "kube-scheduler /healthz",
      scheduler,
      schedulerLog,
    ),
  );

  let kwok: ManagedProcess | undefined;
  const kwokLog = path.join(dir, "kwok.log");
  if (kwokBinary) {
    // kwok's own folder, so that a ~/.kwok/kwok.yaml of the user is not loaded (KWOK_WORKDIR is where it looks).
    const kwokDir = path.join(dir, "kwok");
    await mkdir(kwokDir, { recursive: true });
    const kwokConfig = path.join(kwokDir, "kwok.yaml");
    await copyFile(kwokStages!, kwokConfig);
    try {
      await ctx.client.request({ method: "POST", path: "/api/v1/nodes", body: kwokNode(fakeNodeName) });
    } catch (error) {
      if (!isAlreadyExists(error))
        throw new Error(`creating the fake node ${fakeNodeName}: ${(error as Error).message}`, { cause: error });
    }
    kwok = startProcess(
      "kwok",
      kwokBinary,
      [
        `--kubeconfig=${kubeconfigPath}`,
        `--config=${kwokConfig}`,
        "--manage-all-nodes=false",
        `--manage-nodes-with-annotation-selector=${kwokNodeAnnotation}=${kwokNodeAnnotationValue}`,
        // Leases as a kubelet keeps them, so node-lifecycle-controller sees the node alive (its grace period is 50 s).
        "--node-lease-duration-seconds=40",
        "--cidr=10.244.0.0/16",
        `--server-address=127.0.0.1:${kwokPort}`,
      ],
      kwokLog,
      { KWOK_WORKDIR: kwokDir },
    );
    ctx.processes.push(kwok);
    waits.push(
      waitUntil(() => httpOk(`http://127.0.0.1:${kwokPort}/healthz`), startTimeoutMs, "kwok /healthz", kwok, kwokLog),
    );
  }
  await Promise.all(waits);

  if (kwok) {
    // Ready: kwok initialised the node. Untainted: node-lifecycle-controller removed node.kubernetes.io/not-ready,
    // which the TaintNodesByCondition admission plugin put on it at creation; until then nothing is scheduled.
    await waitUntil(
      async () => {
        const node = await ctx.client
          .request<NodeView>({ method: "GET", path: `/api/v1/nodes/${fakeNodeName}` })
          .catch(() => undefined);
        const ready = node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
        const tainted = node?.spec?.taints?.some((t) => t.key.startsWith("node.kubernetes.io/"));
        return Boolean(ready && !tainted);
      },
      startTimeoutMs,
      `fake node ${fakeNodeName} Ready and without node.kubernetes.io taints`,
      kwok,
      kwokLog,
    );
    return { fakeNodeName };
  }
  return { kwokUnavailable };
}
