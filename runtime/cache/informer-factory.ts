// Shares one informer per resource/namespace/selector key among controllers, and starts and stops them together (client-go SharedInformerFactory).
import type { KubernetesObject } from "../client/types.js";
import { fanOutSignal } from "./fan-out-signal.js";
import type { SharedIndexInformer } from "./informer.js";

export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer<KubernetesObject>>();
  private readonly running = new Map<string, Promise<void>>();
  /** Aborted by shutdown(): stops every informer this factory started. */
  private readonly shutdownSignal = fanOutSignal();

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

  /** Starts every informer not started yet; they run until signal aborts or shutdown(). No-op after shutdown(). */
  start(signal: AbortSignal): void {
    if (this.shutdownSignal.signal.aborted) return;
    // Every informer listens on this one signal, which follows the caller's and shutdown().
    const informers = fanOutSignal(signal);
    this.shutdownSignal.signal.addEventListener("abort", () => informers.abort(), { once: true }); // one per start()
    for (const [key, informer] of this.informers) {
      if (this.running.has(key)) continue;
      this.running.set(key, informer.run(informers.signal));
    }
  }

  /** Resolves true once every started informer has synced; false if signal aborts or one stops first. */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const waiters = fanOutSignal(signal);
    try {
      const results = await Promise.all(
        Array.from(this.running.keys()).map((key) => (this.informers.get(key) as SharedIndexInformer<KubernetesObject>).waitForCacheSync(waiters.signal)),
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
