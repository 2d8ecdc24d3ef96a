// controller-runtime's leader election gauge (pkg/metrics/leaderelection.go), recorded by runtime/leaderelection's
// LeaderElector through its `metric` option.
import { Gauge, type Registry } from "./prom-client.js";
import { metricsRegistry } from "./prometheus.js";

export const LEADER_ELECTION_MASTER_STATUS = "leader_election_master_status";

/** Structurally runtime/leaderelection's LeaderMetric (metrics may not import leaderelection). */
export interface LeaderElectionMetric {
  on(name: string): void;
  off(name: string): void;
}

const gauges = new WeakMap<Registry, LeaderElectionMetric>();

/** leader_election_master_status{name}: 1 while leading the Lease `name`, 0 otherwise; one gauge per registry. */
export function leaderElectionMetric(registry: Registry = metricsRegistry): LeaderElectionMetric {
  let metric = gauges.get(registry);
  if (metric === undefined) {
    const gauge = new Gauge<"name">({
      name: LEADER_ELECTION_MASTER_STATUS,
      // controller-runtime's HELP, word for word: dashboards and alerts match on the metric, not the text, but the
      // exposition should read the same as a Go operator's.
      help:
        "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. " +
        "'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ["name"],
      registers: [registry],
    });
    metric = { on: (name) => gauge.set({ name }, 1), off: (name) => gauge.set({ name }, 0) };
    gauges.set(registry, metric);
  }
  return metric;
}
