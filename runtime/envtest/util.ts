// Helpers shared by the control plane's start code: free ports, health probes, polling.
import { readFile } from "node:fs/promises";
import https from "node:https";
import net from "node:net";
import { retryOnError } from "../client/retry.js";
import { PollTimeoutError, pollUntil } from "../wait/poll-until.js";
import type { ControlPlaneCerts } from "./certs.js";
import type { ManagedProcess } from "./process.js";

export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer();
          s.once("error", reject);
          s.listen(0, "127.0.0.1", () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Runs `start` again at once (up to `attempts` in all) while it fails because a process found its port taken. */
export function retryOnPortClash<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  // waitUntil's error carries the log's tail, where etcd and the kube binaries report a failed bind.
  const portTaken = (error: unknown): boolean =>
    /address already in use/.test(String((error as Error | null | undefined)?.message));
  return retryOnError(portTaken, start, { steps: attempts, initialMs: 0, factor: 1, jitter: 0 });
}

export function httpOk(url: string): Promise<boolean> {
  return fetch(url).then(
    (r) => r.ok,
    () => false,
  );
}

export function httpsOk(url: string, certs: ControlPlaneCerts): Promise<boolean> {
  return Promise.all([readFile(certs.caCert), readFile(certs.adminCert), readFile(certs.adminKey)]).then(
    ([ca, cert, key]) =>
      new Promise<boolean>((resolve) => {
        const req = https.get(url, { ca, cert, key, timeout: 2_000 }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        });
        req.on("error", () => resolve(false));
        req.on("timeout", () => req.destroy());
      }),
  );
}

/** Polls every 100 ms (envtest's interval); fails early, with the log's tail, when the process died. */
export async function waitUntil(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  proc?: ManagedProcess,
  logFile?: string,
): Promise<void> {
  const exited = () => proc !== undefined && (proc.child.exitCode !== null || proc.child.signalCode !== null);
  const outcome = await pollUntil(async () => ((await check()) ? "ready" : exited() && "exited"), {
    intervalMs: 100,
    timeoutMs,
  }).catch((error: unknown) => {
    if (error instanceof PollTimeoutError) return "timeout";
    throw error;
  });
  if (outcome === "ready") return;
  const tail = logFile ? (await readFile(logFile, "utf8").catch(() => "")).split("\n").slice(-15).join("\n") : "";
  throw new Error(
    `control plane: ${what} ${outcome === "exited" ? `failed: ${proc?.name} exited` : `not ready after ${timeoutMs / 1000}s`}${tail ? `\n--- last lines of ${logFile}:\n${tail}` : ""}`,
  );
}

/**
 * Runs `round` every intervalMs (a round that fails is simply tried again by the next) until the returned function
 * is called; a stop interrupts the wait, so nothing is left pending.
 */
export function pollUntilStopped(intervalMs: number, round: (signal: AbortSignal) => Promise<void>): () => void {
  const stop = new AbortController();
  const { signal } = stop;
  const roundIgnoringErrors = async (): Promise<undefined> => {
    await round(signal).catch(() => undefined);
    return undefined;
  };
  // Never done: the poll ends only by the abort, whose rejection is the expected end.
  void pollUntil(roundIgnoringErrors, { intervalMs, signal }).catch(() => undefined);
  return () => stop.abort();
}
