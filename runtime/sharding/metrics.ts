// The sharding gauges and counter, one set per registry: how many members, how much of the hash space and how many
// objects this member owns, how often the assignment changed, and whether the API server filtered by shard.
import { Counter, Gauge, type Registry } from "../metrics/prom-client.js";
import { metricsRegistry } from "../metrics/prometheus.js";

export interface ShardingMetrics {
  /** crdgen_sharding_members{sharding}: live members this member sees. */
  readonly members: Gauge<"sharding">;
  /** crdgen_sharding_owned_fraction{sharding}: the part of the hash space this member reconciles (0..1). */
  readonly ownedFraction: Gauge<"sharding">;
  /** crdgen_sharding_rebalances_total{sharding}: times the assignment changed (a member joined or left). */
  readonly rebalances: Counter<"sharding">;
  /** crdgen_sharding_objects_owned{controller}: cached primary objects in the ranges this member reconciles. */
  readonly objectsOwned: Gauge<"controller">;
  /**
   * crdgen_sharding_server_filtered{controller}: 1 when the API server applied the shardSelector (KEP-5866, gate
   * ShardedListAndWatch), 0 when it sent everything and the client filtered.
   */
  readonly serverFiltered: Gauge<"controller">;
}

const byRegistry = new WeakMap<Registry, ShardingMetrics>();
/** Per registry, per controller: how to count its owned objects when the registry is scraped. */
const ownedCounters = new WeakMap<Registry, Map<string, OwnedCount>>();
/** A count, or its promise when the count walks a large cache in chunks. */
type OwnedCount = () => number | Promise<number>;

/** crdgen_sharding_objects_owned{controller} is count(), read at each scrape. */
export function registerObjectsOwned(registry: Registry | undefined, controller: string, count: OwnedCount): void {
  const r = registry ?? metricsRegistry;
  shardingMetrics(r);
  let counters = ownedCounters.get(r);
  if (!counters) {
    counters = new Map<string, OwnedCount>();
    ownedCounters.set(r, counters);
  }
  counters.set(controller, count);
}

export function shardingMetrics(registry: Registry = metricsRegistry): ShardingMetrics {
  let metrics = byRegistry.get(registry);
  if (!metrics) {
    const registers = [registry];
    metrics = {
      members: new Gauge({
        name: "crdgen_sharding_members",
        help: "Live members of the sharding group.",
        labelNames: ["sharding"],
        registers,
      }),
      ownedFraction: new Gauge({
        name: "crdgen_sharding_owned_fraction",
        help: "Fraction of the 64-bit hash space this member reconciles.",
        labelNames: ["sharding"],
        registers,
      }),
      rebalances: new Counter({
        name: "crdgen_sharding_rebalances_total",
        help: "Times the assignment of the hash space among members changed.",
        labelNames: ["sharding"],
        registers,
      }),
      objectsOwned: new Gauge({
        name: "crdgen_sharding_objects_owned",
        help: "Cached primary objects in the hash ranges this member reconciles.",
        labelNames: ["controller"],
        registers,
        async collect() {
          for (const [controller, count] of ownedCounters.get(registry) ?? []) this.set({ controller }, await count());
        },
      }),
      serverFiltered: new Gauge({
        name: "crdgen_sharding_server_filtered",
        help: "1 if the API server filtered the primary LIST/WATCH by shardSelector, 0 if the client did.",
        labelNames: ["controller"],
        registers,
      }),
    };
    byRegistry.set(registry, metrics);
  }
  return metrics;
}
