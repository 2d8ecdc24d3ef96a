// One HTTP server for /metrics, /healthz and /readyz (controller-runtime pkg/healthz/healthz.go and the manager's probe
// server).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createSecureServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { Logger } from "../log/logger.js";
import { metricsRegistry } from "../metrics/prometheus.js";
import { limitConnections, serverTimeouts, type ServerLimits } from "../webhook/server-limits.js";
import type { MetricsAuthorizer } from "./metrics-auth.js";
import type { ServingCert } from "./serving-cert.js";

/** A check passes when it returns true or nothing; it fails when it returns false, throws or rejects (the message is the reason). */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a check may be a procedure that returns nothing; `undefined` would reject functions typed `() => void`
export type CheckFn = () => boolean | void | Promise<boolean | void>;

export interface HealthCheck {
  /** Shown in the response body and reachable as /healthz/<name> or /readyz/<name>. */
  name: string;
  check: CheckFn;
}

export interface ProbeServerOptions extends ServerLimits {
  /** 0 picks a free port (see ProbeServer.port). controller-runtime's usual probe port is 8081, metrics 8080. */
  port: number;
  /** Default: all interfaces. */
  host?: string;
  /** Served at /metrics. Default: the crdgen registry. */
  registry?: Registry;
  checks?: {
    /** Liveness. Default: [ping]. */
    healthz?: HealthCheck[];
    /** Readiness, e.g. cacheSyncedCheck(controllers). Default: none (always ready). */
    readyz?: HealthCheck[];
  };
  /** Closes the server when aborted. */
  signal?: AbortSignal;
  /** Which endpoints to answer (others get 404), e.g. ["metrics"] on a separate metrics port. Default: all three. */
  serve?: ReadonlyArray<"metrics" | "healthz" | "readyz">;
  /** Serve HTTPS with this certificate instead of HTTP. */
  tls?: ServingCert;
  /** Asked before /metrics is answered (metricsAuthorizer: TokenReview + SubjectAccessReview); probes stay open. */
  authorizeMetrics?: MetricsAuthorizer;
  /** Where refused connections are reported (see ServerLimits.maxConnections). */
  logger?: Logger;
}

export interface ProbeServer {
  readonly server: Server;
  /** The port actually bound. */
  readonly port: number;
  close(): Promise<void>;
}

/** Always passes: the process answers HTTP (controller-runtime healthz.Ping). */
export const ping: HealthCheck = { name: "ping", check: () => true };

/**
 * Passes once every source reports its cache synced: Controllers (hasSynced after run() saw the caches sync)
 * or SharedIndexInformers.
 */
export function cacheSyncedCheck(
  sources: ReadonlyArray<{ hasSynced(): boolean; readonly name?: string }>,
  name = "informer-sync",
): HealthCheck {
  return {
    name,
    check: () => {
      const waiting = sources.filter((s) => !s.hasSynced());
      if (waiting.length === 0) return true;
      const names = waiting.map((s, i) => s.name ?? `#${i}`).join(", ");
      throw new Error(`caches not synced yet: ${names}`);
    },
  };
}

interface CheckOutcome {
  name: string;
  ok: boolean;
  reason?: string;
}

async function runCheck(c: HealthCheck): Promise<CheckOutcome> {
  try {
    const result = await c.check();
    return result === false ? { name: c.name, ok: false, reason: "check returned false" } : { name: c.name, ok: true };
  } catch (error) {
    return { name: c.name, ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Answers /<endpoint>, /<endpoint>/<check>, ?exclude=<check> and ?verbose like controller-runtime's healthz handler. */
async function serveChecks(
  endpoint: string,
  checks: HealthCheck[],
  sub: string,
  url: URL,
  res: ServerResponse,
): Promise<void> {
  if (sub !== "") {
    const one = checks.find((c) => c.name === sub);
    if (one === undefined) {
      text(res, 404, `${endpoint}: no check named ${sub}\n`);
      return;
    }
    const outcome = await runCheck(one);
    if (outcome.ok) text(res, 200, "ok");
    else text(res, 500, `internal server error: ${outcome.reason}\n`);
    return;
  }
  const excluded = new Set(url.searchParams.getAll("exclude"));
  const outcomes = await Promise.all(checks.filter((c) => !excluded.has(c.name)).map(runCheck));
  const failed = outcomes.some((o) => !o.ok);
  if (!failed && !url.searchParams.has("verbose")) {
    text(res, 200, "ok");
    return;
  }
  const lines = outcomes.map((o) => (o.ok ? `[+]${o.name} ok` : `[-]${o.name} failed: ${o.reason}`));
  for (const name of excluded) lines.push(`[+]${name} excluded: ok`);
  lines.push(failed ? `${endpoint} check failed` : `${endpoint} check passed`);
  text(res, failed ? 500 : 200, lines.join("\n") + "\n");
}

function text(res: ServerResponse, status: number, body: string, contentType = "text/plain; charset=utf-8"): void {
  res.writeHead(status, { "Content-Type": contentType, "X-Content-Type-Options": "nosniff" });
  res.end(body);
}

/** Starts the probe and metrics server; resolves once it listens. */
export async function startProbeServer(options: ProbeServerOptions): Promise<ProbeServer> {
  const registry = options.registry ?? metricsRegistry;
  const healthz = options.checks?.healthz ?? [ping];
  const readyz = options.checks?.readyz ?? [];
  const serve = new Set(options.serve ?? ["metrics", "healthz", "readyz"]);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method !== "GET" && req.method !== "HEAD") {
      text(res, 405, "method not allowed\n");
      return;
    }
    const [, first = "", ...rest] = url.pathname.split("/");
    const sub = rest.join("/");
    if (!serve.has(first)) {
      text(res, 404, "not found\n");
      return;
    }
    if (first === "metrics" && sub === "") {
      const refusal = await options.authorizeMetrics?.(req);
      if (refusal) {
        text(res, refusal.status, `${refusal.message}\n`);
        return;
      }
      text(res, 200, await registry.metrics(), registry.contentType);
      return;
    }
    if (first === "healthz") return serveChecks("healthz", healthz, sub, url, res);
    if (first === "readyz") return serveChecks("readyz", readyz, sub, url, res);
    text(res, 404, "not found\n");
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        text(res, 500, `internal server error: ${error instanceof Error ? error.message : String(error)}\n`);
      else res.destroy();
    });
  };
  // Probes and metrics are GETs: no body time beyond the headers'.
  const timeouts = serverTimeouts(options, 0);
  const server: Server = options.tls
    ? createSecureServer({ cert: options.tls.cert, key: options.tls.key, minVersion: "TLSv1.2", ...timeouts }, listener)
    : createServer(timeouts, listener);
  limitConnections(server, options, options.logger);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  if (options.signal !== undefined) {
    if (options.signal.aborted) await close();
    else options.signal.addEventListener("abort", () => void close(), { once: true });
  }
  return { server, port: (server.address() as AddressInfo).port, close };
}
