// A controller's side of sharding: its informers list and watch the member's ranges (the API server filtering where it
// can), a key starts only while the member may reconcile its hash, buckets gained are queued, and owned objects'
// events reach only the member of their owner.
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import {
  SharedIndexInformer as Informer,
  type SharedIndexInformer,
  type ResourceEventHandler,
} from "../cache/informer.js";
import type { SharedInformerFactory } from "../cache/informer-factory.js";
import { informerKey, listerWatcherFor } from "../cache/resource-lister-watcher.js";
import type { KubeClient } from "../client/kube-client.js";
import { ResourceClient, apiVersionOf, groupResource } from "../client/resource-client.js";
import type { ShardFilter } from "../cache/listerwatcher.js";
import { metaNamespaceKeyFunc, splitMetaNamespaceKey, unwrapDeleted } from "../cache/keys.js";
import { forEachSteps, runSteps } from "../cache/paced.js";
import { controllerOwnerRef } from "../handler/event-handlers.js";
import type { Logger } from "../log/logger.js";
import type { Sharding } from "../sharding/member.js";
import { fnv1a64, shardHashOf } from "../sharding/hash.js";
import { rangesContain, shardSelector, type HashRange } from "../sharding/ranges.js";
import { registerObjectsOwned, shardingMetrics } from "../sharding/metrics.js";

/** Matches only hash 0 (no uid hashes to it in practice): what a member with no ranges asks the server for. */
const NOTHING = "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001')";

/** The server's selector and the same test client-side, for the objects whose hash is in `ranges`. */
function rangeFilter<T extends KubernetesObject>(
  ranges: readonly HashRange[],
  field: Sharding["field"],
): ShardFilter<T> {
  return {
    selector: ranges.length === 0 ? NOTHING : shardSelector(ranges, field),
    matches: (obj) => rangesContain(ranges, shardHashOf(obj, field)),
  };
}

/** The informer key suffix of a sharded informer: it must not be shared with an unsharded one of the same scope. */
export function shardedInformerKey(key: string, sharding: Sharding): string {
  return `${key}&shard=${sharding.name}`;
}

export class ControllerShard {
  private readonly informers = new Set<SharedIndexInformer<KubernetesObject>>();
  /** The hash of each key being reconciled: the member keeps those buckets until they finish. */
  private readonly inFlight = new Map<string, bigint>();
  private ranges: readonly HashRange[];
  private serverFiltered: boolean | undefined;

  constructor(
    private readonly sharding: Sharding,
    private readonly controller: string,
    private readonly primary: SharedIndexInformer<KubernetesObject>,
    private readonly enqueue: (key: string) => void,
    private readonly log: Logger,
  ) {
    this.ranges = sharding.watchRanges();
    registerObjectsOwned(sharding.registry, controller, () => this.objectsOwned());
  }

  get field(): Sharding["field"] {
    return this.sharding.field;
  }

  /** The filter for the current ranges, for an informer being created. */
  filter<T extends KubernetesObject>(ranges: readonly HashRange[] = this.ranges): ShardFilter<T> {
    return {
      ...rangeFilter<T>(ranges, this.sharding.field),
      reportServerFiltered: (filtered) => this.reportServerFiltered(filtered),
    };
  }

  /** Informers to move with the ranges: the primary's, and in namespace mode the owned and watched kinds'. */
  track(informer: SharedIndexInformer<KubernetesObject>): void {
    this.informers.add(informer);
  }

  /** Follows the member until the returned function is called. */
  start(): () => void {
    const detach = this.sharding.attach({ inFlightHashes: () => this.inFlight.values() });
    const unsubscribe = this.sharding.subscribe({
      rangesChanged: (ranges, gained) => this.moveTo(ranges, gained),
      acquired: (ranges) => this.queueCached(ranges),
    });
    // The member may have moved since the informers were made; and the controller's filter reports to its metrics.
    const now = this.sharding.watchRanges();
    this.moveTo(now, now === this.ranges ? [] : now);
    this.queueCached(now);
    return () => {
      unsubscribe();
      detach();
    };
  }

  /** True when key may be reconciled now; then it counts as in flight until end(key). */
  begin(key: string): boolean {
    const hash = this.hashOfKey(key);
    // Not cached (deleted, or not in our ranges): the reconcile finds nothing to do, whoever runs it.
    if (hash === undefined) return true;
    if (!this.sharding.mayStart(hash)) return false;
    this.inFlight.set(key, hash);
    return true;
  }

  end(key: string): void {
    this.inFlight.delete(key);
  }

  /**
   * An owned kind's handler that passes on only events of children whose controller owner (of ownerType) hashes into
   * this member's ranges (uid mode; in namespace mode the children's informer is itself sharded).
   */
  routeByOwner<C extends KubernetesObject>(
    handler: ResourceEventHandler<C>,
    ownerType: Pick<ResourceDescriptor, "group" | "kind">,
  ): ResourceEventHandler<C> {
    if (this.sharding.field !== "uid") return handler;
    const mine = (obj: KubernetesObject): boolean => {
      const owner = controllerOwnerRef(obj, ownerType);
      return owner !== undefined && rangesContain(this.ranges, fnv1a64(owner.uid));
    };
    return {
      addFunc: (obj, initial) => (mine(obj) ? handler.addFunc?.(obj, initial) : undefined),
      updateFunc: (oldObj, newObj) => (mine(newObj) || mine(oldObj) ? handler.updateFunc?.(oldObj, newObj) : undefined),
      deleteFunc: (obj) => (mine(unwrapDeleted(obj)) ? handler.deleteFunc?.(obj) : undefined),
    };
  }

  private hashOfKey(key: string): bigint | undefined {
    if (this.sharding.field === "namespace") return fnv1a64(splitMetaNamespaceKey(key).namespace);
    const obj = this.primary.getIndexer().getByKey(key);
    return obj ? shardHashOf(obj, "uid") : undefined;
  }

  private moveTo(ranges: readonly HashRange[], gained: readonly HashRange[]): void {
    this.ranges = ranges;
    const next = this.filter(ranges);
    const more = gained.length > 0 ? this.filter(gained) : undefined;
    for (const informer of this.informers) informer.reshard(next, more);
  }

  /**
   * Queues every cached primary object in ranges: they may start now. A large cache is walked in chunks with a turn of
   * the event loop between them (the member's Lease renewals run meanwhile); a key queued late is checked at its
   * start like any other.
   */
  private queueCached(ranges: readonly HashRange[]): void {
    if (ranges.length === 0) return;
    const queued = runSteps(
      forEachSteps(this.primary.getIndexer().list(), (obj) => {
        if (rangesContain(ranges, shardHashOf(obj, this.sharding.field))) this.enqueue(metaNamespaceKeyFunc(obj));
      }),
    );
    queued?.catch((error: unknown) => this.log.error("could not queue the objects of acquired ranges", { error }));
  }

  /** Counted in chunks, as queueCached walks: a scrape must not hold the event loop for a whole cache. */
  private objectsOwned(): number | Promise<number> {
    let owned = 0;
    const counted = runSteps(
      forEachSteps(this.primary.getIndexer().list(), (obj) => {
        if (this.sharding.mayStart(shardHashOf(obj, this.sharding.field))) owned++;
      }),
    );
    return counted ? counted.then(() => owned) : owned;
  }

  private reportServerFiltered(filtered: boolean): void {
    shardingMetrics(this.sharding.registry).serverFiltered.set({ controller: this.controller }, filtered ? 1 : 0);
    if (filtered === this.serverFiltered) return;
    this.serverFiltered = filtered;
    if (filtered) this.log.info("the API server filters LIST and WATCH by shardSelector");
    else
      this.log.warn(
        "the API server ignored shardSelector (feature gate ShardedListAndWatch off, or older than 1.36): " +
          "it sends every object and this member filters them, so traffic and memory are not divided",
      );
  }
}

/**
 * A sharded controller's primary informer: its own (never shared with an unsharded one of the same scope), starting
 * on the member's ranges of the moment; the controller moves it when they change.
 */
export function shardedPrimaryInformer<T extends KubernetesObject>(
  kube: KubeClient,
  resource: ResourceDescriptor<T>,
  factory: SharedInformerFactory,
  sharding: Sharding,
  scope: { namespace?: string; logger?: Logger },
): SharedIndexInformer<T> {
  const ranges = sharding.watchRanges();
  const key = shardedInformerKey(informerKey(apiVersionOf(resource), resource.plural, scope), sharding);
  return factory.informerFor<T>(
    key,
    () =>
      new Informer<T>({
        name: groupResource(resource),
        listerWatcher: listerWatcherFor(new ResourceClient<T>(kube, resource), scope),
        logger: scope.logger,
        // Replaced by the controller's own filter (which reports to its metrics) when it starts.
        reflector: {
          shard: rangeFilter<T>(ranges, sharding.field),
        },
      }),
  );
}
