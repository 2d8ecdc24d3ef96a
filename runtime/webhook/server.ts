// The HTTPS server the API server calls (controller-runtime's webhook.Server): AdmissionReview and ConversionReview v1
// at the registrations' paths, a timeout and a body limit per request, a log line and metrics per request, and the
// serving certificate reloaded from its folder when its files change (cert-manager rewrites a mounted Secret).
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSecureContext } from "node:tls";
import type { Registry } from "prom-client";
import type { Status } from "../client/types.js";
import { defaultLogger, type Logger } from "../log/logger.js";
import { webhookMetrics } from "../metrics/webhook.js";
import { describePanic } from "../panic/panic.js";
import { conversionReviewGroupKind } from "./conversion.js";
import { checkTlsReachable, localDialAddress } from "./reachable.js";
import { BadRequest, type WebhookRegistration } from "./registration.js";

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

export interface WebhookServerOptions {
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
  /** Stops listening, ends open connections, stops watching the certificate folder. */
  close(): Promise<void>;
}

/** Starts the server; rejects when the certificate cannot be read or the port cannot be bound. */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const log = options.logger ?? defaultLogger();
  const certDir = options.certDir ?? defaultWebhookCertDir();
  const certFile = path.join(certDir, options.certName ?? "tls.crt");
  const keyFile = path.join(certDir, options.keyName ?? "tls.key");
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const maxBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const metrics = webhookMetrics(options.registry);
  const routes = routeTable(options.webhooks);

  let current = await readCertificate(certFile, keyFile);
  const server: Server = createServer({ cert: current.cert, key: current.key }, (req, res) => {
    void serve(req, res);
  });

  let listening = false;
  const reloadCertificate = async () => {
    const next = await readCertificate(certFile, keyFile);
    if (next.cert === current.cert && next.key === current.key) return;
    server.setSecureContext({ cert: next.cert, key: next.key });
    current = next;
    // Idle keep-alive connections were made with the old certificate: close them, so the API server's next request
    // opens a connection served with the new one.
    server.closeIdleConnections();
    log.info("webhook serving certificate reloaded", { cert: certFile });
  };
  // A mounted Secret changes by swapping a symlink, so watch the folder, not the files; several events arrive at once.
  let pending: NodeJS.Timeout | undefined;
  const reloadSoon = () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      reloadCertificate().catch((error: unknown) =>
        // A half-written pair (key updated, certificate not yet) fails to load; the next event or poll retries.
        log.debug("webhook serving certificate not reloaded yet", { error: error as Error }),
      );
    }, 100);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(certDir, reloadSoon);
    watcher.on("error", (error) => log.warn("cannot watch the webhook certificate folder", { certDir, error }));
  } catch (error) {
    log.warn("cannot watch the webhook certificate folder; polling it", { certDir, error: error as Error });
  }
  const poll = setInterval(reloadSoon, options.certPollIntervalMs ?? DEFAULT_CERT_POLL_INTERVAL_MS);
  poll.unref();

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = (req.url ?? "/").split("?")[0]!;
    const candidates = routes.get(url);
    if (!candidates) {
      send(res, 404, failure(404, "NotFound", `no webhook is served at ${url}`));
      return;
    }
    const done = metrics.started(url);
    const started = performance.now();
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new Error(`the webhook did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    res.on("close", () => {
      clearTimeout(timer);
      if (!res.writableFinished) abort.abort(new Error("the caller closed the connection"));
    });
    let code = 500;
    let uid: string | undefined;
    let requestLog = log.child({ webhook: url });
    try {
      if (req.method !== "POST") {
        res.setHeader("Allow", "POST");
        code = send(res, 405, failure(405, "MethodNotAllowed", `${req.method ?? ""} is not allowed: use POST`));
        return;
      }
      const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim();
      if (type !== "application/json") {
        code = send(
          res,
          415,
          failure(415, "UnsupportedMediaType", `content-type ${type || "(none)"}: expected application/json`),
        );
        return;
      }
      const body = await readBody(req, maxBytes, abort.signal);
      if (body === "too large") {
        code = send(
          res,
          413,
          failure(413, "RequestEntityTooLarge", `request entity is too large; limit is ${maxBytes} bytes`),
        );
        return;
      }
      let review: unknown;
      try {
        review = JSON.parse(body.toString("utf8"));
      } catch (error) {
        throw new BadRequest(`the body is not JSON: ${(error as Error).message}`);
      }
      uid = (review as { request?: { uid?: unknown } } | null)?.request?.uid as string | undefined;
      if (typeof uid === "string") requestLog = requestLog.child({ uid });
      const registration = pick(candidates, review);
      const onPanic = (value: unknown) => {
        metrics.panicked(registration.type);
        // As client-go's panic handlers: at error level, with the stack when there is one.
        const stack = value instanceof Error ? { stack: value.stack } : {};
        requestLog.error(`Observed a panic in webhook: ${describePanic(value)}`, stack);
      };
      const answer = await Promise.race([
        registration.handle(review, { signal: abort.signal, log: requestLog, onPanic }),
        new Promise<never>((_, reject) => {
          const fail = () => reject(abort.signal.reason as Error);
          if (abort.signal.aborted) fail();
          else abort.signal.addEventListener("abort", fail, { once: true });
        }),
      ]);
      code = send(res, 200, answer);
      requestLog.debug("webhook request answered", { durationMs: performance.now() - started, ...summary(answer) });
    } catch (error) {
      if (error instanceof BadRequest) code = send(res, 400, failure(400, "BadRequest", error.message));
      else if (abort.signal.aborted && error === abort.signal.reason) {
        code = send(res, 503, failure(503, "ServiceUnavailable", (error as Error).message));
        requestLog.error("webhook request not answered in time", { timeoutMs });
      } else {
        code = send(res, 500, failure(500, "InternalError", error instanceof Error ? error.message : String(error)));
        requestLog.error("webhook request failed", { error: error as Error });
      }
    } finally {
      clearTimeout(timer);
      done(code);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_WEBHOOK_PORT, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  }).catch((error: unknown) => {
    watcher?.close();
    clearInterval(poll);
    throw error;
  });
  listening = true;
  server.on("error", (error) => log.error("webhook server error", { error }));
  const { port, address } = server.address() as AddressInfo;
  log.info("serving webhooks", { port, paths: [...routes.keys()], certDir });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      listening = false;
      watcher?.close();
      clearInterval(poll);
      clearTimeout(pending);
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  options.signal?.addEventListener("abort", () => void close(), { once: true });
  return {
    port,
    paths: [...routes.keys()],
    started: () => listening,
    checkStarted: () =>
      listening
        ? checkTlsReachable(localDialAddress(address), port)
        : Promise.reject(new Error("webhook server has not been started yet")),
    reloadCertificate,
    close,
  };
}

/** Registrations by path; only conversion webhooks may share one (they are told apart by the objects' kind). */
function routeTable(webhooks: readonly WebhookRegistration[]): Map<string, WebhookRegistration[]> {
  if (webhooks.length === 0) throw new Error("startWebhookServer: no webhooks to serve");
  const routes = new Map<string, WebhookRegistration[]>();
  for (const w of webhooks) {
    const list = routes.get(w.path) ?? [];
    const clash = list.find((o) => w.type !== "conversion" || o.type !== "conversion" || sameKind(o, w));
    if (clash)
      throw new Error(`startWebhookServer: two webhooks at ${w.path} (${clash.resource.kind} and ${w.resource.kind})`);
    list.push(w);
    routes.set(w.path, list);
  }
  return routes;
}

const sameKind = (a: WebhookRegistration, b: WebhookRegistration) =>
  a.resource.group === b.resource.group && a.resource.kind === b.resource.kind;

function pick(candidates: readonly WebhookRegistration[], review: unknown): WebhookRegistration {
  if (candidates.length === 1) return candidates[0]!;
  const gk = conversionReviewGroupKind(review);
  const match = gk && candidates.find((c) => c.resource.group === gk.group && c.resource.kind === gk.kind);
  if (!match)
    throw new BadRequest(
      `no conversion webhook for ${gk ? `${gk.kind}.${gk.group}` : "this review"}; served: ${candidates.map((c) => `${c.resource.kind}.${c.resource.group}`).join(", ")}`,
    );
  return match;
}

async function readCertificate(certFile: string, keyFile: string): Promise<{ cert: string; key: string }> {
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
      {
        cause: error,
      },
    );
  }
  return pair;
}

async function readBody(req: IncomingMessage, limit: number, signal: AbortSignal): Promise<Buffer | "too large"> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return "too large";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    if (signal.aborted) throw signal.reason as Error;
    size += chunk.length;
    if (size > limit) return "too large";
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function failure(code: number, reason: string, message: string): Status {
  return { kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message };
}

/** Writes a JSON response; returns the status code (for the metric). */
function send(res: ServerResponse, code: number, body: unknown): number {
  if (res.headersSent || res.destroyed) return code;
  const text = JSON.stringify(body);
  res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
  return code;
}

/** What a log line says about an answer: allowed or refused (admission), success or failure (conversion). */
function summary(answer: unknown): Record<string, unknown> {
  const response = (answer as { response?: Record<string, unknown> } | null)?.response;
  if (!response) return {};
  if ("allowed" in response) {
    const status = response["status"] as Status | undefined;
    return {
      allowed: response["allowed"],
      ...(status?.code ? { code: status.code } : {}),
      patched: "patch" in response,
    };
  }
  const result = response["result"] as Status | undefined;
  return { result: result?.status, ...(result?.message ? { message: result.message } : {}) };
}
