// client-go's rest client metrics under its names, labels and buckets (k8s.io/component-base
// metrics/prometheus/restclient), so dashboards built for Go operators find them: recorded from runtime/client's
// request hook, which the manager registers.
import { Counter, Histogram, type Registry } from "./prom-client.js";
import { metricsRegistry } from "./prometheus.js";

export const REST_CLIENT_METRIC_NAMES = {
  requestsTotal: "rest_client_requests_total",
  requestDuration: "rest_client_request_duration_seconds",
} as const;

/** client-go's rest_client_request_duration_seconds buckets, 5 ms to 60 s. */
export const REST_CLIENT_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0,
];

/** Records one registry's rest client metrics; structurally runtime/client's RequestMetrics (metrics imports no client). */
export class RestClientMetrics {
  private readonly total: Counter<"code" | "method" | "host">;
  private readonly duration: Histogram<"verb" | "host">;

  constructor(registry: Registry) {
    const registers = [registry];
    // component-base's HELP texts, word for word.
    this.total = new Counter({
      name: REST_CLIENT_METRIC_NAMES.requestsTotal,
      help: "Number of HTTP requests, partitioned by status code, method, and host.",
      labelNames: ["code", "method", "host"],
      registers,
    });
    this.duration = new Histogram({
      name: REST_CLIENT_METRIC_NAMES.requestDuration,
      help: "Request latency in seconds. Broken down by verb, and host.",
      labelNames: ["verb", "host"],
      buckets: [...REST_CLIENT_DURATION_BUCKETS],
      registers,
    });
  }

  requestResult(code: string, method: string, host: string): void {
    this.total.inc({ code, method, host });
  }

  requestLatency(verb: string, host: string, seconds: number): void {
    this.duration.observe({ verb, host }, seconds);
  }
}

const recorders = new WeakMap<Registry, RestClientMetrics>();

/** The rest client metrics recording into registry (default: the crdgen registry). */
export function restClientMetrics(registry: Registry = metricsRegistry): RestClientMetrics {
  let recorder = recorders.get(registry);
  if (!recorder) recorders.set(registry, (recorder = new RestClientMetrics(registry)));
  return recorder;
}
