// @crdgen/runtime/metrics: the crdgen Prometheus registry, the workqueue and controller metrics on it, and the provider interfaces.
export {
  type MetricsProvider,
  type GaugeMetric,
  type SettableGaugeMetric,
  type CounterMetric,
  type HistogramMetric,
  type DepthMetricWithPriority,
  noopMetricsProvider,
  setDefaultMetricsProvider,
  defaultMetricsProvider,
} from "./provider.js";
export {
  ControllerMetrics,
  METRIC_NAMES,
  RECONCILE_TIME_BUCKETS,
  type ReconcileOutcome,
  Registry,
  WORKQUEUE_DURATION_BUCKETS,
  controllerMetrics,
  metricsRegistry,
  workqueueMetricsProvider,
} from "./prometheus.js";
export { LEADER_ELECTION_MASTER_STATUS, type LeaderElectionMetric, leaderElectionMetric } from "./leader-election.js";
export { WEBHOOK_METRIC_NAMES, WebhookMetrics, webhookMetrics } from "./webhook.js";
export {
  REST_CLIENT_DURATION_BUCKETS,
  REST_CLIENT_METRIC_NAMES,
  RestClientMetrics,
  restClientMetrics,
} from "./rest-client.js";
export { processMetrics } from "./process.js";
