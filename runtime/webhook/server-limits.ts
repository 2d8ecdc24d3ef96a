// The limits controller-runtime puts on its webhook, metrics and probe servers (pkg/internal/httpserver.New:
// ReadHeaderTimeout 32 s, which Go's server also applies to the TLS handshake, and IdleTimeout 90 s), in Node's terms,
// and a cap on open connections. Node's own defaults hold a client that sends its headers a byte at a time for 60 s,
// checked every 30 s (90-100 s seen), an unfinished TLS handshake for 120 s, and any number of such connections.
import type { Server } from "node:net";
import type { Logger } from "../log/logger.js";

/** controller-runtime's ReadHeaderTimeout: a request's line and headers (and the TLS handshake) within 32 s. */
export const DEFAULT_HEADER_TIMEOUT_MS = 32_000;
/** controller-runtime's IdleTimeout, http.DefaultTransport's keep-alive: an idle connection is closed after 90 s. */
export const DEFAULT_IDLE_TIMEOUT_MS = 90_000;
/**
 * Open connections one server keeps; a new one past this is closed at once. The API server makes each concurrent
 * webhook call on its own HTTP/1.1 connection, and one API server runs up to 600 requests at once by default
 * (--max-requests-inflight 400 + --max-mutating-requests-inflight 200): 1024 leaves room above that, while a held TLS
 * connection costs 30-40 KB of resident memory (measured), so slow clients can hold at most ~40 MB of a 256 Mi Pod.
 */
export const DEFAULT_MAX_CONNECTIONS = 1024;

export interface ServerLimits {
  /** The request line and headers must arrive within this (and a TLS handshake finish). Default 32 s. */
  headerTimeoutMs?: number;
  /** A keep-alive connection with no request is closed after this. Default 90 s. */
  idleTimeoutMs?: number;
  /** Open connections at most; more are closed when accepted. Default 1024. */
  maxConnections?: number;
}

/**
 * Options for http.createServer / https.createServer. `bodyTimeoutMs`: how long the body may take after the headers
 * (the whole request must arrive within headerTimeoutMs + bodyTimeoutMs); 0 for servers that take no body.
 */
export function serverTimeouts(limits: ServerLimits, bodyTimeoutMs: number) {
  const headersTimeout = limits.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS;
  return {
    headersTimeout,
    requestTimeout: headersTimeout + bodyTimeoutMs,
    // Node enforces both timeouts when it sweeps its connections: sweep often enough to overshoot by ~3 % at most.
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 32))),
    handshakeTimeout: headersTimeout,
  };
}

/**
 * Sets the idle timeout and the connection cap on a created server; a refused connection is logged as a warning at
 * most once a minute (a burst of them is one event: slow clients or too small a cap).
 */
export function limitConnections(
  server: Server & { keepAliveTimeout: number },
  limits: ServerLimits,
  log: Logger | undefined,
): void {
  server.keepAliveTimeout = limits.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  server.maxConnections = limits.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  let lastWarning = -Infinity;
  server.on("drop", () => {
    const now = performance.now();
    if (now - lastWarning < 60_000) return;
    lastWarning = now;
    log?.warn("connection refused: the server holds its maximum of open connections", {
      maxConnections: server.maxConnections,
    });
  });
}
