// controller-runtime's webhook metrics (pkg/webhook/internal/metrics/metrics.go), same names and labels: `webhook` is
// the URL path, `code` the HTTP status code answered.
import { Counter, Gauge, Histogram, type Registry } from "./prom-client.js";
import { metricsRegistry } from "./prometheus.js";

export const WEBHOOK_METRIC_NAMES = {
  requestsTotal: "controller_runtime_webhook_requests_total",
  latency: "controller_runtime_webhook_latency_seconds",
  inFlight: "controller_runtime_webhook_requests_in_flight",
  panics: "controller_runtime_webhook_panics_total",
  conversionPanics: "controller_runtime_conversion_webhook_panics_total",
} as const;

/** Records one registry's webhook metrics; shared by every webhook server using that registry. */
export class WebhookMetrics {
  private readonly total: Counter<"webhook" | "code">;
  private readonly latency: Histogram<"webhook">;
  private readonly inFlight: Gauge<"webhook">;
  private readonly panics: Counter;
  private readonly conversionPanics: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.total = new Counter({
      name: WEBHOOK_METRIC_NAMES.requestsTotal,
      help: "Total number of admission requests by HTTP status code.",
      labelNames: ["webhook", "code"],
      registers,
    });
    // Prometheus' default buckets, as controller-runtime's histogram has no buckets of its own.
    this.latency = new Histogram({
      name: WEBHOOK_METRIC_NAMES.latency,
      help: "Histogram of the latency of processing admission requests",
      labelNames: ["webhook"],
      registers,
    });
    this.inFlight = new Gauge({
      name: WEBHOOK_METRIC_NAMES.inFlight,
      help: "Current number of admission requests being served.",
      labelNames: ["webhook"],
      registers,
    });
    // Without labels, as controller-runtime's (admission and conversion webhooks each have their own counter).
    this.panics = new Counter({
      name: WEBHOOK_METRIC_NAMES.panics,
      help: "Total number of webhook panics",
      registers,
    });
    this.conversionPanics = new Counter({
      name: WEBHOOK_METRIC_NAMES.conversionPanics,
      help: "Total number of conversion webhook panics",
      registers,
    });
  }

  /** A hook of an admission (mutating, validating) or conversion webhook panicked and the panic was recovered. */
  panicked(type: "mutating" | "validating" | "conversion"): void {
    (type === "conversion" ? this.conversionPanics : this.panics).inc();
  }

  /** A request to `webhook` started; call the returned function with the HTTP status code once answered. */
  started(webhook: string): (code: number) => void {
    this.inFlight.inc({ webhook });
    const stop = this.latency.startTimer({ webhook });
    return (code) => {
      stop();
      this.inFlight.dec({ webhook });
      this.total.inc({ webhook, code: String(code) });
    };
  }
}

const recorders = new WeakMap<Registry, WebhookMetrics>();

/** The webhook metrics recording into registry (default: the crdgen registry). */
export function webhookMetrics(registry: Registry = metricsRegistry): WebhookMetrics {
  let recorder = recorders.get(registry);
  if (!recorder) recorders.set(registry, (recorder = new WebhookMetrics(registry)));
  return recorder;
}
