// The webhook server's serving certificate, re-read when its folder changes (controller-runtime's certwatcher): a
// mounted Secret that cert-manager rewrites changes by swapping a symlink, so the folder is watched, not the files,
// and a poll catches what the watch misses.
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { createSecureContext } from "node:tls";
import type { Logger } from "../log/logger.js";

/** A PEM certificate (chain) and its private key. */
export interface CertificatePair {
  cert: string;
  key: string;
}

export interface CertificateWatcherOptions {
  certDir: string;
  certFile: string;
  keyFile: string;
  /** Fallback re-read when no file event arrived. */
  pollIntervalMs: number;
  log: Logger;
  /** Called with a pair that differs from the last one; the pair counts as current only once this returned. */
  onChange(pair: CertificatePair): void;
}

export interface CertificateWatcher {
  /** Reads the files now and calls onChange if they changed; rejects when they are no certificate and key. */
  reload(): Promise<void>;
  /** Stops watching and polling. */
  close(): void;
}

/** Watches `certDir` for a pair other than `initial` (what the server was started with). */
export function watchCertificate(initial: CertificatePair, o: CertificateWatcherOptions): CertificateWatcher {
  let current = initial;
  const reload = async () => {
    const next = await readCertificate(o.certFile, o.keyFile);
    if (next.cert === current.cert && next.key === current.key) return;
    o.onChange(next);
    current = next;
    o.log.info("webhook serving certificate reloaded", { cert: o.certFile });
  };
  // Several events arrive for one change: reload once, 100 ms after the last.
  let pending: NodeJS.Timeout | undefined;
  const reloadSoon = () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      reload().catch((error: unknown) =>
        // A half-written pair (key updated, certificate not yet) fails to load; the next event or poll retries.
        o.log.debug("webhook serving certificate not reloaded yet", { error: error as Error }),
      );
    }, 100);
  };
  const watcher = watchFolder(o.certDir, reloadSoon, o.log);
  const poll = setInterval(reloadSoon, o.pollIntervalMs);
  poll.unref();
  return {
    reload,
    close() {
      watcher?.close();
      clearInterval(poll);
      clearTimeout(pending);
    },
  };
}

/** fs.watch of the folder, or undefined (with a warning) where it cannot be watched: the poll then does the work. */
function watchFolder(dir: string, onEvent: () => void, log: Logger): FSWatcher | undefined {
  try {
    const watcher = watch(dir, onEvent);
    watcher.on("error", (error) => log.warn("cannot watch the webhook certificate folder", { certDir: dir, error }));
    return watcher;
  } catch (error) {
    log.warn("cannot watch the webhook certificate folder; polling it", { certDir: dir, error: error as Error });
    return undefined;
  }
}

/** Reads the pair; rejects, naming the files, when either is missing or they are no certificate and its key. */
export async function readCertificate(certFile: string, keyFile: string): Promise<CertificatePair> {
  const read = async (file: string) => {
    try {
      return await readFile(file, "utf8");
    } catch (error) {
      throw new Error(`webhook server: cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
  };
  const pair = { cert: await read(certFile), key: await read(keyFile) };
  try {
    createSecureContext(pair);
  } catch (error) {
    throw new Error(
      `webhook server: ${certFile} and ${keyFile} are not a certificate and its key: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return pair;
}
