// The HTTPS server the API server calls (controller-runtime's webhook.Server): AdmissionReview and ConversionReview v1
// at the registrations' paths (review-handler.ts answers each request), and the serving certificate reloaded from its
// folder when its files change (certificate-watcher.ts; cert-manager rewrites a mounted Secret).
import type { ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Registry } from "prom-client";
import { type Clock, realClock } from "../clock/clock.js";
import { defaultLogger, type Logger } from "../log/logger.js";
import { webhookMetrics } from "../metrics/webhook.js";
import { readCertificate, watchCertificate, type CertificateWatcher } from "./certificate-watcher.js";
import { checkTlsReachable, localDialAddress } from "./reachable.js";
import type { WebhookRegistration } from "./registration.js";
import { reviewHandler, routeTable } from "./review-handler.js";
import { limitConnections, serverTimeouts, type ServerLimits } from "./server-limits.js";

/** controller-runtime's default webhook port. */
export const DEFAULT_WEBHOOK_PORT = 9443;
/** The API server's default webhook timeout (timeoutSeconds 10). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** controller-runtime's admission body limit (pkg/webhook/admission/http.go maxRequestSize): 7 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024;
/** How often the certificate files are compared even without a change event (controller-runtime's certwatcher: 10 s). */
export const DEFAULT_CERT_POLL_INTERVAL_MS = 10_000;

/** controller-runtime's default certificate folder: `<tmp>/k8s-webhook-server/serving-certs`. */
export function defaultWebhookCertDir(): string {
  return path.join(tmpdir(), "k8s-webhook-server", "serving-certs");
}

export interface WebhookServerOptions extends ServerLimits {
  /** What to serve; from admissionWebhooksFor and conversionWebhookFor. Several conversion webhooks share /convert. */
  webhooks: readonly WebhookRegistration[];
  /** Default 9443; 0 picks a free port (see WebhookServer.port). */
  port?: number;
  /** Default: all interfaces. */
  host?: string;
  /** The folder holding the serving certificate and key (a mounted Secret). Default defaultWebhookCertDir(). */
  certDir?: string;
  /** File names in certDir. Default tls.crt and tls.key (cert-manager's and kubebuilder's). */
  certName?: string;
  keyName?: string;
  /** A request not answered by then gets 503 and its hook's signal aborts. Default 10 s. */
  requestTimeoutMs?: number;
  /** A larger body gets 413. Default 7 MiB. */
  maxRequestBytes?: number;
  /** Fallback re-read of the certificate when no file event arrived. Default 10 s. */
  certPollIntervalMs?: number;
  logger?: Logger;
  /** Where the controller_runtime_webhook_* metrics go. Default: the crdgen registry. */
  registry?: Registry;
  /** Closes the server when aborted. */
  signal?: AbortSignal;
  /** Times each request's deadline and the drain on close (the linger, the cut of busy connections). Default real. */
  clock?: Clock;
}

export interface WebhookServer {
  /** The port actually bound. */
  readonly port: number;
  /** The paths served. */
  readonly paths: readonly string[];
  /** True while listening with a certificate loaded. */
  started(): boolean;
  /**
   * The manager's readiness check (controller-runtime's StartedChecker): rejects unless started and a TLS handshake
   * with the server completes within 10 s.
   */
  checkStarted(): Promise<void>;
  /** Reads the certificate files now and serves new connections with them if they changed (also automatic). */
  reloadCertificate(): Promise<void>;
  /**
   * Stops listening and watching the certificate folder, answers the reviews in flight (within the request timeout)
   * and ends every connection once idle.
   */
  close(): Promise<void>;
}

/** Starts the server; rejects when the certificate cannot be read or the port cannot be bound. */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const log = options.logger ?? defaultLogger();
  const certDir = options.certDir ?? defaultWebhookCertDir();
  const certFile = path.join(certDir, options.certName ?? "tls.crt");
  const keyFile = path.join(certDir, options.keyName ?? "tls.key");
  const routes = routeTable(options.webhooks);
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const handle = reviewHandler({
    routes,
    timeoutMs,
    clock: options.clock ?? realClock,
    maxBytes: options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    metrics: webhookMetrics(options.registry),
    log,
  });

  const initial = await readCertificate(certFile, keyFile);
  const server: Server = createServer(
    // The body may take as long as the answer's deadline, which starts once the headers are in.
    { cert: initial.cert, key: initial.key, ...serverTimeouts(options, timeoutMs) },
    (req, res) => void handle(req, res),
  );
  limitConnections(server, options, log);
  const certificate = watchCertificate(initial, {
    certDir,
    certFile,
    keyFile,
    pollIntervalMs: options.certPollIntervalMs ?? DEFAULT_CERT_POLL_INTERVAL_MS,
    log,
    onChange(pair) {
      server.setSecureContext({ cert: pair.cert, key: pair.key });
      // Idle keep-alive connections were made with the old certificate: close them, so the API server's next request
      // opens a connection served with the new one.
      server.closeIdleConnections();
    },
  });

  await listen(server, options.port ?? DEFAULT_WEBHOOK_PORT, options.host).catch((error: unknown) => {
    certificate.close();
    throw error;
  });
  server.on("error", (error) => log.error("webhook server error", { error }));
  const paths = [...routes.keys()];
  log.info("serving webhooks", { port: (server.address() as AddressInfo).port, paths, certDir });
  return runningServer(server, certificate, paths, options, timeoutMs);
}

function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** How long a closing server keeps its connections open, answering on them, before it ends the idle ones. */
const LINGER_MS = 2_000;

/**
 * The handle of a listening server; `signal` aborting closes it as close() does. Closing drains: every answer from
 * then on (the reviews in flight included) carries `Connection: close`, so the API server retires each connection to
 * this replica as it uses it, and opens the next one to another; the connections are kept for up to LINGER_MS
 * meanwhile. Only then, once every answer is out, are the idle ones ended: ending a keep-alive connection the API server
 * is about to reuse fails its call (the request meets a reset), and it does not retry a POST. Connections still busy
 * after `drainMs` are cut.
 */
function runningServer(
  server: Server,
  certificate: CertificateWatcher,
  paths: readonly string[],
  { signal, clock = realClock }: Pick<WebhookServerOptions, "signal" | "clock">,
  drainMs: number,
): WebhookServer {
  const { port, address } = server.address() as AddressInfo;
  let listening = true;
  let closing: Promise<void> | undefined;
  const connections = new Set<Socket>();
  let lastConnectionGone: () => void = () => undefined;
  server.on("connection", (socket: Socket) => {
    connections.add(socket);
    socket.once("close", () => {
      connections.delete(socket);
      if (connections.size === 0) lastConnectionGone();
    });
  });
  // The answers not yet sent: once closing, each tells the API server to drop its connection.
  const unanswered = new Set<ServerResponse>();
  const lastOnConnection = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader("Connection", "close");
  };
  let lastAnswerOut: () => void = () => undefined;
  server.on("request", (_req, res: ServerResponse) => {
    if (closing) lastOnConnection(res);
    unanswered.add(res);
    res.once("close", () => {
      unanswered.delete(res);
      if (unanswered.size === 0) lastAnswerOut();
    });
  });
  const drain = async () => {
    listening = false;
    certificate.close();
    unanswered.forEach(lastOnConnection);
    // Armed before close() returns, so that a caller on a fake clock can step past it at once.
    await new Promise<void>((resolve) => {
      if (connections.size === 0) {
        resolve();
        return;
      }
      const linger = clock.setTimeout(resolve, LINGER_MS);
      lastConnectionGone = () => {
        clock.clearTimeout(linger);
        resolve();
      };
    });
    await new Promise<void>((resolve) => {
      const cut = clock.setTimeout(() => server.closeAllConnections(), drainMs);
      // Node's timer must not hold the process alive on its own (the open connections do while they last).
      (cut as { unref?: () => void }).unref?.();
      // Node's close() ends every connection it counts idle, and that includes one whose answer is still queued for a
      // caller that reads slowly: it runs once every answer is out (a response closes when flushed) or was cut.
      const closeServer = () =>
        server.close(() => {
          clock.clearTimeout(cut);
          resolve();
        });
      if (unanswered.size === 0) closeServer();
      else lastAnswerOut = closeServer;
    });
  };
  const close = () => (closing ??= drain());
  signal?.addEventListener("abort", () => void close(), { once: true });
  return {
    port,
    paths,
    started: () => listening,
    checkStarted: () =>
      listening
        ? checkTlsReachable(localDialAddress(address), port)
        : Promise.reject(new Error("webhook server has not been started yet")),
    reloadCertificate: () => certificate.reload(),
    close,
  };
}
