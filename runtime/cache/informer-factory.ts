// Shares one informer per resource/namespace/selector key among controllers, and starts and stops them together
// (client-go SharedInformerFactory).
import type { KubeClient } from "../client/kube-client.js";
import { ResourceClient, apiVersionOf, groupResource } from "../client/resource-client.js";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import { fanOutSignal } from "./fan-out-signal.js";
import { SharedIndexInformer } from "./informer.js";
import { ClusterLister, Lister } from "./lister.js";
import { informerKey, listerWatcherFor, type InformerOptions } from "./resource-lister-watcher.js";

/** A namespaced kind's lister is a Lister, a cluster-scoped kind's a ClusterLister; either when the scope is not known. */
type ListerOf<T extends KubernetesObject, Namespaced extends boolean> = [Namespaced] extends [true]
  ? Lister<T>
  : [Namespaced] extends [false]
    ? ClusterLister<T>
    : Lister<T> | ClusterLister<T>;

/**
 * An informer of one resource and its lister (client-go's GenericInformer). Namespaced is the descriptor's
 * `namespaced` (a literal for typed descriptors), which picks the lister's type.
 */
export interface GenericInformer<T extends KubernetesObject, Namespaced extends boolean = boolean> {
  readonly informer: SharedIndexInformer<T>;
  readonly lister: ListerOf<T, Namespaced>;
}

export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer<KubernetesObject>>();
  private readonly running = new Map<string, Promise<void>>();
  /** Aborted by shutdown(): stops every informer this factory started. */
  private readonly shutdownSignal = fanOutSignal();
  /** Per caller's signal, the one signal its informers run on; dropped once it aborts. */
  private readonly runSignals = new Map<AbortSignal, AbortSignal>();

  /**
   * The informer for key (e.g. "example.com/v1/mysqlclusters|ns=default|l=app=x"), created by create() on first
   * use. Every caller asking for the same key shares that informer. Call start() again after adding informers
   * to a started factory.
   */
  informerFor<T extends KubernetesObject>(key: string, create: () => SharedIndexInformer<T>): SharedIndexInformer<T> {
    let informer = this.informers.get(key);
    if (!informer) {
      informer = create() as unknown as SharedIndexInformer<KubernetesObject>;
      this.informers.set(key, informer);
    }
    return informer as unknown as SharedIndexInformer<T>;
  }

  /**
   * The informer of `resource` in this scope (client-go's ForResource): one per group/version/plural, namespace and
   * selectors, created on first use with the rest of `options` (logger, transform, ...) and shared afterwards, so
   * a controller's primary informer and a generated `<kind>InformerFor` of the same scope are one watch.
   *
   * T is inferred from a typed descriptor: forResource(kube, builtinResources.deployments) lists V1Deployment objects
   * through a Lister (a namespaced kind), forResource(kube, builtinResources.namespaces) through a ClusterLister.
   *
   * @example const { informer, lister } = factory.forResource<MySQLCluster>(kube, mySQLClusterResource, { namespace: "db" });
   */
  forResource<T extends KubernetesObject, Namespaced extends boolean = boolean>(
    kube: KubeClient,
    resource: ResourceDescriptor<T> & { readonly namespaced: Namespaced },
    options: InformerOptions<T> = {},
  ): GenericInformer<T, Namespaced> {
    const { namespace, labelSelector, fieldSelector, ...informerOptions } = options;
    const scope = { namespace, labelSelector, fieldSelector };
    const informer = this.informerFor<T>(
      informerKey(apiVersionOf(resource), resource.plural, scope),
      () =>
        new SharedIndexInformer<T>({
          name: groupResource(resource),
          listerWatcher: listerWatcherFor(new ResourceClient<T>(kube, resource), scope),
          ...informerOptions,
        }),
    );
    const indexer = informer.getIndexer();
    const lister = resource.namespaced ? new Lister<T>(indexer) : new ClusterLister<T>(indexer);
    return { informer, lister: lister as ListerOf<T, Namespaced> };
  }

  /** Starts every informer not started yet; they run until signal aborts or shutdown(). No-op after shutdown(). */
  start(signal: AbortSignal): void {
    if (this.shutdownSignal.signal.aborted) return;
    for (const [key, informer] of this.informers) {
      if (this.running.has(key)) continue;
      this.running.set(key, informer.run(this.runSignalFor(signal)));
    }
  }

  /**
   * The signal informers started with `caller` run on: it follows the caller's signal and shutdown(). One per caller
   * signal however often start() is called, so neither signal collects a listener per call.
   */
  private runSignalFor(caller: AbortSignal): AbortSignal {
    const existing = this.runSignals.get(caller);
    if (existing) return existing;
    const run = fanOutSignal(caller);
    const onShutdown = (): void => run.abort();
    this.shutdownSignal.signal.addEventListener("abort", onShutdown, { once: true });
    const release = (): void => {
      // Nothing of this caller's is left to stop: let go of both signals.
      this.shutdownSignal.signal.removeEventListener("abort", onShutdown);
      run.dispose();
      this.runSignals.delete(caller);
    };
    if (run.signal.aborted) release();
    else {
      run.signal.addEventListener("abort", release, { once: true });
      this.runSignals.set(caller, run.signal);
    }
    return run.signal;
  }

  /** Resolves true once every started informer has synced; false if signal aborts or one stops first. */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const waiters = fanOutSignal(signal);
    try {
      const results = await Promise.all(
        Array.from(this.running.keys()).map((key) =>
          (this.informers.get(key) as SharedIndexInformer<KubernetesObject>).waitForCacheSync(waiters.signal),
        ),
      );
      return results.every(Boolean);
    } finally {
      waiters.dispose();
    }
  }

  /** Stops every informer this factory started and waits until they have all returned. */
  async shutdown(): Promise<void> {
    this.shutdownSignal.abort();
    await Promise.all(this.running.values());
  }
}
