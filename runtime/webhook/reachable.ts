// Whether a TLS server answers a handshake: the webhook server's readiness, as controller-runtime's StartedChecker
// dials its own server (a listening socket whose event loop is stuck, or whose certificate cannot be served, is not
// ready).
import { connect } from "node:tls";

/** controller-runtime's StartedChecker dial timeout. */
export const STARTED_CHECK_TIMEOUT_MS = 10_000;

/** Where to dial a server bound to `address`: a wildcard address means this host. */
export function localDialAddress(address: string): string {
  if (address === "" || address === "0.0.0.0") return "127.0.0.1";
  if (address === "::") return "::1";
  return address;
}

/**
 * Resolves once a TLS handshake with host:port completes (the certificate is not verified: only that the server
 * serves); rejects with `webhook server is not reachable: <reason>` otherwise.
 */
export function checkTlsReachable(host: string, port: number, timeoutMs = STARTED_CHECK_TIMEOUT_MS): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = connect({ host, port, rejectUnauthorized: false, timeout: timeoutMs }, () => {
      socket.end();
      resolve();
    });
    socket.once("timeout", () => socket.destroy(new Error(`no TLS handshake within ${timeoutMs} ms`)));
    socket.once("error", (error: Error) => reject(new Error(`webhook server is not reachable: ${error.message}`)));
    // A server that closes the connection before the handshake: no error event from tls in every Node version.
    socket.once("close", () => reject(new Error("webhook server is not reachable: connection closed")));
  });
}
