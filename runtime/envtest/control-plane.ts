// A real local Kubernetes control plane (etcd + kube-apiserver, no kubelet) for tests, benchmarks and the demo, like
// controller-runtime's envtest.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { HttpKubeClient, type KubeClient } from "../client/kube-client.js";
import { isAlreadyExists } from "../client/api-error.js";
import { apiServer, apiServerFlags, type ApiServer } from "./api-server.js";
import { findBinary } from "./binaries.js";
import { makeCerts, type ControlPlaneCerts } from "./certs.js";
import { startControllers, type ControllersInfo } from "./controllers.js";
import { startEtcd } from "./etcd.js";
import { startFakeVolumeProvisioner } from "./fake-volume-provisioner.js";
import type { ManagedProcess } from "./process.js";
import { startLocalPathProvisioner } from "./local-path-provisioner.js";
import { startRealNode, type RealNode } from "./real-node.js";
import { freePorts, retryOnPortClash, waitUntil } from "./util.js";

export interface ControlPlaneOptions {
  /** Folder holding etcd, kube-apiserver and kubectl (else TEST_ASSET_*, KUBEBUILDER_ASSETS, crdgen's build cache). */
  assetsDir?: string;
  /** CRD YAML files to install once the API server is ready; start resolves when discovery serves every served version. */
  crdFiles?: string[];
  /** Extra kube-apiserver flags, e.g. ["--feature-gates=..."]. */
  apiServerArgs?: string[];
  /** How long etcd and the apiserver may take to become ready. Default 60 s, or KUBEBUILDER_CONTROLPLANE_START_TIMEOUT (seconds). */
  startTimeoutMs?: number;
  /**
   * Also run kube-controller-manager (garbage collection, workload controllers: StatefulSet, Deployment, ...) and
   * kube-scheduler, after the CRDs are installed; and, when the kwok binary is found, kwok with one fake Node
   * (`fakeNodeName`) on which pods are scheduled and reported Running and Ready. Without kwok, pods stay Pending
   * and `kwokUnavailable` says why. These binaries come from `npx crdgen envtest --controllers`. Default false.
   */
  controllers?: boolean;
  /**
   * "real": also run a real node (kubelet, Debian's containerd and runc, a CNI bridge, kube-proxy, CoreDNS) instead
   * of kwok's fake one, with the controllers (as `controllers: true`). Pods are scheduled to it (`realNodeName`) and
   * run images of crdgen's image cache. As on a cluster: pods reach the API server through the `kubernetes` Service
   * with their ServiceAccount token (in-cluster config), ClusterIP Services (from pods and from this process: connect
   * to the Service's spec.clusterIP), cluster DNS (`<svc>.<ns>.svc.cluster.local`, `<pod>.<headless svc>`), and
   * the default StorageClass `crdgen-local-path` binds claims to folders of the node's folder. stop removes every
   * container, mount, veth, cgroup, iptables chain and folder it made. Linux and root only; needs
   * `bash controlplane/node/build.sh` (kubelet, kube-proxy, crictl, coredns, images) and the Debian packages
   * containerd, runc, containernetworking-plugins, iptables. One real node per machine. Default: kwok's fake node.
   */
  node?: "kwok" | "real";
  /** With `node: "real"`: the cached images to import (images.sh names, e.g. ["debian"]); default every one built. */
  nodeImages?: string[];
}

export interface ControlPlane {
  /** Folder with certificates, the kubeconfig, data and process logs (removed by stop). */
  readonly dir: string;
  readonly kubeconfigPath: string;
  readonly apiServerUrl: string;
  /** etcd's client URL, for tests that compact it to provoke 410 Gone. */
  readonly etcdEndpoint: string;
  /** With `controllers: true` and kwok running: the name of the kwok-managed fake Node (ready for pods). */
  readonly fakeNodeName?: string;
  /** With `controllers: true` but no kwok binary: why there is no fake node (names the binary and how to build it). */
  readonly kwokUnavailable?: string;
  /** With `node: "real"`: the real Node's name (Ready; the only node pods are scheduled to). */
  readonly realNodeName?: string;
  /** A KubeConfig for the `admin` user (group system:masters). */
  kubeConfig(): KubeConfig;
  kubeClient(): KubeClient;
  installCrds(files: string[]): Promise<void>;
  /** Stops and starts kube-apiserver on the same port, keeping etcd (and so every object). */
  restartApiServer(): Promise<void>;
  /** Stops kube-apiserver (etcd keeps running), so clients get connection refused until startApiServer. No-op if stopped. */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same port and waits until /readyz is ok. No-op if it is running. */
  startApiServer(): Promise<void>;
  stop(): Promise<void>;
}

const envStartTimeout = Number(process.env["KUBEBUILDER_CONTROLPLANE_START_TIMEOUT"] ?? "") * 1000;

/**
 * Starts etcd and kube-apiserver (and, with `controllers`, the rest) on free ports. A port is free when picked and
 * bound by the process a moment later; if another process took it in between, the whole start is tried again.
 */
export function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  return retryOnPortClash(() => startControlPlaneOnce(options));
}

async function startControlPlaneOnce(options: ControlPlaneOptions): Promise<ControlPlane> {
  const binaries = {
    etcd: findBinary("etcd", options.assetsDir),
    apiServer: findBinary("kube-apiserver", options.assetsDir),
  };
  const startTimeoutMs = options.startTimeoutMs ?? (envStartTimeout > 0 ? envStartTimeout : 60_000);
  const dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-envtest-"));
  const processes: ManagedProcess[] = [];
  try {
    const core = await startCore({ options, binaries, dir, startTimeoutMs, processes });
    const extras: Extras = { controllers: {}, stopProvisioner: () => undefined };
    const plane = controlPlaneOf(core, extras);
    if (options.crdFiles?.length) await plane.installCrds(options.crdFiles);
    const real = options.node === "real";
    if (options.controllers || real)
      await startClusterControllers(core, extras, { kwok: !real, assetsDir: options.assetsDir });
    if (real) await startRealNodeWithStorage(core, extras, options);
    return plane;
  } catch (error) {
    for (const p of processes.reverse()) await p.stop(2_000);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

interface StartContext {
  options: ControlPlaneOptions;
  binaries: { etcd: string; apiServer: string };
  dir: string;
  startTimeoutMs: number;
  processes: ManagedProcess[];
}

/** What every control plane runs: etcd and kube-apiserver, with the admin's kubeconfig and a client of it. */
interface Core {
  dir: string;
  startTimeoutMs: number;
  certs: ControlPlaneCerts;
  etcdEndpoint: string;
  apiServerUrl: string;
  apiServer: ApiServer;
  kubeconfigPath: string;
  client: HttpKubeClient;
  /** Every process started, in order; stop ends them in reverse. */
  processes: ManagedProcess[];
}

/** What start adds when asked (controllers, kwok, a real node, a volume provisioner) and stop takes down. */
interface Extras {
  controllers: ControllersInfo;
  realNode?: RealNode;
  stopProvisioner: () => void;
}

async function startCore({ options, binaries, dir, startTimeoutMs, processes }: StartContext): Promise<Core> {
  const certs = await makeCerts(dir);
  const [etcdClientPort, etcdPeerPort, apiPort] = (await freePorts(3)) as [number, number, number];
  const etcdEndpoint = await startEtcd({
    binary: binaries.etcd,
    dir,
    clientPort: etcdClientPort,
    peerPort: etcdPeerPort,
    startTimeoutMs,
    processes,
  });
  const apiServerUrl = `https://127.0.0.1:${apiPort}`;
  const args = apiServerFlags({
    dir,
    certs,
    port: apiPort,
    url: apiServerUrl,
    etcdEndpoint,
    realNode: options.node === "real",
    extraArgs: options.apiServerArgs ?? [],
  });
  const server = apiServer({
    binary: binaries.apiServer,
    args,
    dir,
    url: apiServerUrl,
    certs,
    startTimeoutMs,
    processes,
  });
  await server.start();
  const kubeconfigPath = path.join(dir, "kubeconfig");
  await writeFile(kubeconfigPath, await kubeconfigYaml(apiServerUrl, certs));
  const client = HttpKubeClient.fromKubeConfig(loadKubeConfig(kubeconfigPath));
  // The apiserver creates "default" shortly after it reports ready; tests expect it to exist.
  await waitUntilFound(client, "/api/v1/namespaces/default", startTimeoutMs, "namespace default");
  return {
    dir,
    startTimeoutMs,
    certs,
    etcdEndpoint,
    apiServerUrl,
    apiServer: server,
    kubeconfigPath,
    client,
    processes,
  };
}

/** The handle start returns; its getters read `extras`, which start fills in after this is made. */
function controlPlaneOf(core: Core, extras: Extras): ControlPlane {
  const { dir, kubeconfigPath, apiServerUrl, etcdEndpoint, client, processes } = core;
  const kubeConfig = () => loadKubeConfig(kubeconfigPath);
  const plane: ControlPlane = {
    dir,
    kubeconfigPath,
    apiServerUrl,
    etcdEndpoint,
    get fakeNodeName() {
      return extras.controllers.fakeNodeName;
    },
    get kwokUnavailable() {
      return extras.controllers.kwokUnavailable;
    },
    get realNodeName() {
      return extras.realNode?.name;
    },
    kubeConfig,
    kubeClient: () => HttpKubeClient.fromKubeConfig(kubeConfig()),
    installCrds: (files) => installCrds(client, files),
    async restartApiServer() {
      await plane.stopApiServer();
      await plane.startApiServer();
    },
    stopApiServer: () => core.apiServer.stop(),
    startApiServer: () => core.apiServer.start(),
    async stop() {
      extras.stopProvisioner();
      // The node first, while the API server still answers the kubelet; its stop rejects if anything stays.
      const node = extras.realNode;
      extras.realNode = undefined;
      await node?.stop();
      client.close();
      for (const p of [...processes].reverse()) await p.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return plane;
}

/** kube-controller-manager, kube-scheduler and (with `kwok`, when built) kwok's fake node with a volume provisioner. */
async function startClusterControllers(
  core: Core,
  extras: Extras,
  { kwok, assetsDir }: { kwok: boolean; assetsDir?: string | undefined },
): Promise<void> {
  const { dir, kubeconfigPath, certs, client, startTimeoutMs, processes } = core;
  extras.controllers = await startControllers({
    kwok,
    dir,
    kubeconfigPath,
    certs,
    client,
    assetsDir,
    startTimeoutMs,
    processes,
  });
  if (extras.controllers.fakeNodeName) extras.stopProvisioner = startFakeVolumeProvisioner(client);
}

/** A real node, its local-path volumes, and the default ServiceAccount its pods need; undone if any of them fails. */
async function startRealNodeWithStorage(core: Core, extras: Extras, options: ControlPlaneOptions): Promise<void> {
  const { dir, kubeconfigPath, client, startTimeoutMs } = core;
  try {
    const realNode = await startRealNode({
      dir: path.join(dir, "node"),
      kubeconfigPath,
      assetsDir: path.dirname(findBinary("kubectl", options.assetsDir)),
      ...(options.nodeImages ? { images: options.nodeImages } : {}),
      timeoutMs: Math.max(startTimeoutMs, 300_000),
    });
    extras.realNode = realNode;
    extras.stopProvisioner = await startLocalPathProvisioner({
      client,
      volumesDir: path.join(realNode.dir, "volumes"),
      nodeName: realNode.name,
    });
    // The ServiceAccount admission plugin rejects pods until kube-controller-manager made their namespace's
    // ServiceAccount: the default namespace's is there before start returns.
    await waitUntilFound(
      client,
      "/api/v1/namespaces/default/serviceaccounts/default",
      startTimeoutMs,
      "ServiceAccount default/default",
    );
  } catch (error) {
    extras.stopProvisioner();
    await extras.realNode?.stop().catch(() => undefined);
    client.close();
    throw error;
  }
}

function loadKubeConfig(kubeconfigPath: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return kc;
}

/** Polls until a GET of `apiPath` succeeds (the object exists). */
function waitUntilFound(client: KubeClient, apiPath: string, timeoutMs: number, what: string): Promise<void> {
  return waitUntil(
    () =>
      client.request({ method: "GET", path: apiPath }).then(
        () => true,
        () => false,
      ),
    timeoutMs,
    what,
  );
}

interface CrdDocument {
  kind?: string;
  metadata?: { name?: string };
  spec: { group: string; names: { plural: string }; versions: Array<{ name: string; served: boolean }> };
}

/** Creates (or keeps) each CRD, then waits until discovery serves every served version, as envtest's WaitForCRDs. */
async function installCrds(client: KubeClient, files: string[]): Promise<void> {
  const wanted: Array<{ group: string; version: string; plural: string }> = [];
  for (const file of files) {
    // Plain YAML parsing on purpose: client-node's loadAllYaml maps into its model classes, which rename `default` to
    // `_default`.
    for (const doc of parseAllDocuments(await readFile(file, "utf8")).map((d) => d.toJS() as CrdDocument | null)) {
      if (!doc || doc.kind !== "CustomResourceDefinition") continue;
      try {
        await client.request({
          method: "POST",
          path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
          body: doc,
        });
      } catch (error) {
        if (!isAlreadyExists(error))
          throw new Error(`installing ${doc.metadata?.name} from ${file}: ${(error as Error).message}`, {
            cause: error,
          });
      }
      for (const v of doc.spec.versions)
        if (v.served) wanted.push({ group: doc.spec.group, version: v.name, plural: doc.spec.names.plural });
    }
  }
  for (const w of wanted) {
    await waitUntil(
      async () => {
        const list = await client
          .request<{ resources?: Array<{ name: string }> }>({ method: "GET", path: `/apis/${w.group}/${w.version}` })
          .catch(() => undefined);
        return Boolean(list?.resources?.some((r) => r.name === w.plural));
      },
      30_000,
      `discovery of ${w.plural}.${w.group}/${w.version}`,
    );
  }
}

async function kubeconfigYaml(server: string, certs: ControlPlaneCerts): Promise<string> {
  const b64 = async (file: string) => (await readFile(file)).toString("base64");
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: envtest",
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${await b64(certs.caCert)}`,
    "users:",
    "- name: admin",
    "  user:",
    `    client-certificate-data: ${await b64(certs.adminCert)}`,
    `    client-key-data: ${await b64(certs.adminKey)}`,
    "contexts:",
    "- name: envtest",
    "  context: {cluster: envtest, user: admin}",
    "current-context: envtest",
    "",
  ].join("\n");
}
