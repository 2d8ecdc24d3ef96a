// The process and Node.js runtime series an operator is run by: prom-client's default collectors. The process ones
// carry the names of Go's process collector (process_resident_memory_bytes, process_cpu_seconds_total,
// process_open_fds, process_max_fds, process_virtual_memory_bytes, process_start_time_seconds), the runtime ones are
// nodejs_* (heap and heap spaces, GC durations by kind, event-loop lag, active handles), in place of Go's go_*.
import { collectDefaultMetrics, type Registry } from "./prom-client.js";
import { metricsRegistry } from "./prometheus.js";

const collecting = new WeakSet<Registry>();

/** Registers the process and Node.js runtime collectors on registry, once (a second call is a no-op). */
export function processMetrics(registry: Registry = metricsRegistry): void {
  if (collecting.has(registry)) return;
  collecting.add(registry);
  collectDefaultMetrics({ register: registry });
}
