// client-go's tools/metrics hooks (RequestResult, RequestLatency): what the client reports of each request, recorded
// by whoever registers (runtime/metrics' rest_client_* series; the manager registers them), so the client itself
// imports no metrics library.

/** The receiver of client-go's rest client metrics; host is the API server URL's host (host:port). */
export interface RequestMetrics {
  /** One request or watch got its answer: code is the HTTP status, or "<error>" when none came (client-go's). */
  requestResult(code: string, method: string, host: string): void;
  /** One non-watch request ended (its body read, or failed), `seconds` after it was sent. */
  requestLatency(verb: string, host: string, seconds: number): void;
}

const noop: RequestMetrics = { requestResult() {}, requestLatency() {} };
let registered: RequestMetrics = noop;

/** Where every HttpKubeClient reports from now on (client-go's metrics.Register); the last registration wins. */
export function registerRequestMetrics(metrics: RequestMetrics): void {
  registered = metrics;
}

/** The registered receiver (a no-op until one is registered). */
export function requestMetrics(): RequestMetrics {
  return registered;
}
