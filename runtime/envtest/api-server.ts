// The control plane's kube-apiserver: its flags, and a process that can be stopped and started again on the same port
// (etcd, and so every object, stays).
import path from "node:path";
import type { ControlPlaneCerts } from "./certs.js";
import { startProcess, type ManagedProcess } from "./process.js";
import { realNodeGateway } from "./real-node.js";
import { httpsOk, waitUntil } from "./util.js";

export interface ApiServerFlagsOptions {
  /** The control plane's folder (--cert-dir). */
  dir: string;
  certs: ControlPlaneCerts;
  port: number;
  url: string;
  etcdEndpoint: string;
  /** A real node runs beside it: listen on every address and let its pods mount ServiceAccount tokens. */
  realNode: boolean;
  extraArgs: readonly string[];
}

export function apiServerFlags(o: ApiServerFlagsOptions): string[] {
  return [
    // A real node's pods reach the API server through the `kubernetes` Service, which kube-proxy leads to the
    // advertised address, the node's bridge gateway; the bridge appears later, so every address is bound.
    ...(o.realNode
      ? ["--bind-address=0.0.0.0", `--advertise-address=${realNodeGateway}`]
      : ["--bind-address=127.0.0.1"]),
    // A real kubelet (logs, exec, port-forward) takes only client certificates of our CA: the admin's is presented.
    // It is reached at the node's InternalIP (the bridge gateway): its hostname resolves nowhere.
    ...(o.realNode
      ? [
          `--kubelet-client-certificate=${o.certs.adminCert}`,
          `--kubelet-client-key=${o.certs.adminKey}`,
          "--kubelet-preferred-address-types=InternalIP",
        ]
      : []),
    `--secure-port=${o.port}`,
    `--cert-dir=${o.dir}`,
    `--tls-cert-file=${o.certs.servingCert}`,
    `--tls-private-key-file=${o.certs.servingKey}`,
    `--client-ca-file=${o.certs.caCert}`,
    `--etcd-servers=${o.etcdEndpoint}`,
    "--service-cluster-ip-range=10.0.0.0/24",
    "--allow-privileged=true",
    "--authorization-mode=RBAC",
    // Without a real node no pod runs, so none needs its ServiceAccount token mounted; a real node's pods do.
    ...(o.realNode ? [] : ["--disable-admission-plugins=ServiceAccount"]),
    `--service-account-issuer=${o.url}/`,
    `--service-account-key-file=${o.certs.serviceAccountPub}`,
    `--service-account-signing-key-file=${o.certs.serviceAccountKey}`,
    ...o.extraArgs,
  ];
}

export interface ApiServerOptions {
  binary: string;
  args: readonly string[];
  /** The control plane's folder: kube-apiserver.log goes in it. */
  dir: string;
  url: string;
  /** The admin's client certificate and the CA, to ask /readyz. */
  certs: ControlPlaneCerts;
  startTimeoutMs: number;
  /** The control plane's processes: each run of kube-apiserver joins them, so stop (or a failed start) ends it. */
  processes: ManagedProcess[];
}

/** kube-apiserver, stopped and started on demand with the same flags. */
export interface ApiServer {
  /** Starts it and waits until /readyz is ok. No-op if it is running. */
  start(): Promise<void>;
  /** Stops it. No-op if it is stopped. */
  stop(): Promise<void>;
}

export function apiServer(o: ApiServerOptions): ApiServer {
  const log = path.join(o.dir, "kube-apiserver.log");
  let running: ManagedProcess | undefined;
  return {
    async start() {
      if (running !== undefined) return;
      const p = startProcess("kube-apiserver", o.binary, [...o.args], log);
      o.processes.push(p);
      await waitUntil(() => httpsOk(`${o.url}/readyz`, o.certs), o.startTimeoutMs, "kube-apiserver /readyz", p, log);
      running = p;
    },
    async stop() {
      const p = running;
      running = undefined;
      await p?.stop();
    },
  };
}
