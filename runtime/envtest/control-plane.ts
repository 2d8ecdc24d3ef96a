// A real local Kubernetes control plane (etcd + kube-apiserver, no kubelet) for tests, benchmarks and the demo, like
// controller-runtime's envtest.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { HttpKubeClient, type KubeClient } from "../client/kube-client.js";
import { isAlreadyExists } from "../client/api-error.js";
import { findBinary } from "./binaries.js";
import { makeCerts, type ControlPlaneCerts } from "./certs.js";
import { startControllers, type ControllersInfo } from "./controllers.js";
import { startFakeVolumeProvisioner } from "./fake-volume-provisioner.js";
import { startProcess, type ManagedProcess } from "./process.js";
import { startLocalPathProvisioner } from "./local-path-provisioner.js";
import { realNodeGateway, startRealNode, type RealNode } from "./real-node.js";
import { freePorts, httpOk, httpsOk, retryOnPortClash, waitUntil } from "./util.js";

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
   * and `kwokUnavailable` says why. These binaries come from `npm run controlplane:build`. Default false.
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
  const etcdBinary = findBinary("etcd", options.assetsDir);
  const apiServerBinary = findBinary("kube-apiserver", options.assetsDir);
  const startTimeoutMs = options.startTimeoutMs ?? (envStartTimeout > 0 ? envStartTimeout : 60_000);
  const dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-envtest-"));
  const processes: ManagedProcess[] = [];
  try {
    const certs = await makeCerts(dir);
    const [etcdClientPort, etcdPeerPort, apiPort] = await freePorts(3);
    const etcdEndpoint = `http://127.0.0.1:${etcdClientPort}`;
    const etcd = startProcess(
      "etcd",
      etcdBinary,
      [
        `--data-dir=${path.join(dir, "etcd-data")}`,
        `--listen-client-urls=${etcdEndpoint}`,
        `--advertise-client-urls=${etcdEndpoint}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-cluster=default=http://127.0.0.1:${etcdPeerPort}`,
        "--unsafe-no-fsync=true",
      ],
      path.join(dir, "etcd.log"),
    );
    processes.push(etcd);
    await waitUntil(
      () => httpOk(`${etcdEndpoint}/health`),
      startTimeoutMs,
      "etcd /health",
      etcd,
      path.join(dir, "etcd.log"),
    );

    const apiServerUrl = `https://127.0.0.1:${apiPort}`;
    const real = options.node === "real";
    const apiServerArgs = [
      // A real node's pods reach the API server through the `kubernetes` Service, which kube-proxy leads to the
      // advertised address, the node's bridge gateway; the bridge appears later, so every address is bound.
      ...(real ? ["--bind-address=0.0.0.0", `--advertise-address=${realNodeGateway}`] : ["--bind-address=127.0.0.1"]),
      `--secure-port=${apiPort}`,
      `--cert-dir=${dir}`,
      `--tls-cert-file=${certs.servingCert}`,
      `--tls-private-key-file=${certs.servingKey}`,
      `--client-ca-file=${certs.caCert}`,
      `--etcd-servers=${etcdEndpoint}`,
      "--service-cluster-ip-range=10.0.0.0/24",
      "--allow-privileged=true",
      "--authorization-mode=RBAC",
      // Without a real node no pod runs, so none needs its ServiceAccount token mounted; a real node's pods do.
      ...(real ? [] : ["--disable-admission-plugins=ServiceAccount"]),
      `--service-account-issuer=${apiServerUrl}/`,
      `--service-account-key-file=${certs.serviceAccountPub}`,
      `--service-account-signing-key-file=${certs.serviceAccountKey}`,
      ...(options.apiServerArgs ?? []),
    ];
    const apiServerLog = path.join(dir, "kube-apiserver.log");
    const startApiServer = async () => {
      const p = startProcess("kube-apiserver", apiServerBinary, apiServerArgs, apiServerLog);
      processes.push(p);
      await waitUntil(
        () => httpsOk(`${apiServerUrl}/readyz`, certs),
        startTimeoutMs,
        "kube-apiserver /readyz",
        p,
        apiServerLog,
      );
      return p;
    };
    let apiServer: ManagedProcess | undefined = await startApiServer();

    const kubeconfigPath = path.join(dir, "kubeconfig");
    await writeFile(kubeconfigPath, await kubeconfigYaml(apiServerUrl, certs));
    const kubeConfig = () => {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      return kc;
    };
    const client = HttpKubeClient.fromKubeConfig(kubeConfig());
    // The apiserver creates "default" shortly after it reports ready; tests expect it to exist.
    await waitUntil(
      async () =>
        await client.request({ method: "GET", path: "/api/v1/namespaces/default" }).then(
          () => true,
          () => false,
        ),
      startTimeoutMs,
      "namespace default",
    );

    let controllers: ControllersInfo = {};
    let realNode: RealNode | undefined;
    let stopProvisioner = (): void => undefined;
    const plane: ControlPlane = {
      dir,
      kubeconfigPath,
      apiServerUrl,
      etcdEndpoint,
      get fakeNodeName() {
        return controllers.fakeNodeName;
      },
      get kwokUnavailable() {
        return controllers.kwokUnavailable;
      },
      get realNodeName() {
        return realNode?.name;
      },
      kubeConfig,
      kubeClient: () => HttpKubeClient.fromKubeConfig(kubeConfig()),
      installCrds: (files) => installCrds(client, files),
      async restartApiServer() {
        await plane.stopApiServer();
        await plane.startApiServer();
      },
      async stopApiServer() {
        const p = apiServer;
        apiServer = undefined;
        await p?.stop();
      },
      async startApiServer() {
        if (apiServer !== undefined) return;
        apiServer = await startApiServer();
      },
      async stop() {
        stopProvisioner();
        // The node first, while the API server still answers the kubelet; its stop rejects if anything stays.
        const node = realNode;
        realNode = undefined;
        await node?.stop();
        client.close();
        for (const p of [...processes].reverse()) await p.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
    if (options.crdFiles?.length) await plane.installCrds(options.crdFiles);
    if (options.controllers || real) {
      controllers = await startControllers({
        kwok: !real,
        dir,
        kubeconfigPath,
        certs,
        client,
        assetsDir: options.assetsDir,
        startTimeoutMs,
        processes,
      });
      if (controllers.fakeNodeName) stopProvisioner = startFakeVolumeProvisioner(client);
    }
    if (real) {
      try {
        realNode = await startRealNode({
          dir: path.join(dir, "node"),
          kubeconfigPath,
          assetsDir: path.dirname(findBinary("kubectl", options.assetsDir)),
          ...(options.nodeImages ? { images: options.nodeImages } : {}),
          timeoutMs: Math.max(startTimeoutMs, 300_000),
        });
        stopProvisioner = await startLocalPathProvisioner({
          client,
          volumesDir: path.join(realNode.dir, "volumes"),
          nodeName: realNode.name,
        });
        // The ServiceAccount admission plugin rejects pods until kube-controller-manager made their namespace's
        // ServiceAccount: the default namespace's is there before start returns.
        await waitUntil(
          () =>
            client.request({ method: "GET", path: "/api/v1/namespaces/default/serviceaccounts/default" }).then(
              () => true,
              () => false,
            ),
          startTimeoutMs,
          "ServiceAccount default/default",
        );
      } catch (error) {
        stopProvisioner();
        await realNode?.stop().catch(() => undefined);
        client.close();
        throw error;
      }
    }
    return plane;
  } catch (error) {
    for (const p of processes.reverse()) await p.stop(2_000);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
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
