// The control plane's etcd: one member on loopback, data in the control plane's folder, no fsync (test data only).
import path from "node:path";
import { startProcess, type ManagedProcess } from "./process.js";
import { httpOk, waitUntil } from "./util.js";

export interface EtcdOptions {
  binary: string;
  /** The control plane's folder: etcd-data/ and etcd.log go in it. */
  dir: string;
  clientPort: number;
  peerPort: number;
  startTimeoutMs: number;
  /** The control plane's processes: etcd joins them as soon as it runs, so a failed start stops it too. */
  processes: ManagedProcess[];
}

/** Starts etcd and waits until /health answers; returns its client URL. */
export async function startEtcd(options: EtcdOptions): Promise<string> {
  const endpoint = `http://127.0.0.1:${options.clientPort}`;
  const peer = `http://127.0.0.1:${options.peerPort}`;
  const log = path.join(options.dir, "etcd.log");
  const etcd = startProcess(
    "etcd",
    options.binary,
    [
      `--data-dir=${path.join(options.dir, "etcd-data")}`,
      `--listen-client-urls=${endpoint}`,
      `--advertise-client-urls=${endpoint}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      "--unsafe-no-fsync=true",
    ],
    log,
  );
  options.processes.push(etcd);
  await waitUntil(() => httpOk(`${endpoint}/health`), options.startTimeoutMs, "etcd /health", etcd, log);
  return endpoint;
}
