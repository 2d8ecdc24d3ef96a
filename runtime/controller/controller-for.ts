// controllerFor: the wiring every generated new<Kind>Controller shares (controller-runtime's builder For(kind)).
import type { KubeClient } from "../client/kube-client.js";
import { groupResource } from "../client/resource-client.js";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import type { SharedIndexInformer } from "../cache/informer.js";
import { SharedInformerFactory } from "../cache/informer-factory.js";
import { enqueueRequestForObject, type WatchSpec } from "../handler/event-handlers.js";
import { primaryPredicates } from "../handler/predicates.js";
import { newRateLimitingQueue } from "../workqueue/rate-limiting-queue.js";
import { Controller, type ControllerOptions } from "./controller.js";
import { shardedPrimaryInformer } from "./sharded.js";
import type { ReconcileContext, ReconcileResult } from "./reconcile.js";

/**
 * The hooks a user's hooks file exports for a kind T; Ctx is the generated context (ReconcileContext plus the
 * kind's typed client and lister). A generated `<Kind>Hooks` is this type with both filled in.
 */
export interface ControllerHooks<T extends KubernetesObject, Ctx extends ReconcileContext = ReconcileContext> {
  /**
   * Make the cluster match obj. Throw to retry with backoff; return { requeueAfter } to run again after that many ms,
   * or { requeue: true } to run again after the rate limiter's backoff.
   */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a reconcile that returns nothing is done; `undefined` would reject hooks typed Promise<void>
  reconcile(ctx: Ctx, obj: T): Promise<ReconcileResult | void>;
  /** Clean up before obj is deleted; the runtime holds a finalizer on obj until this resolves. */
  finalize?(ctx: Ctx, obj: T): Promise<void>;
  /**
   * Kinds reconcile creates with a controller ownerReference to obj (e.g. builtinResources.statefulSets): their
   * events reconcile the owner, so a change in a child's status needs no polling. Added to options.owns.
   */
  owns?: readonly ResourceDescriptor[];
  /** Other kinds whose events reconcile an object of kind T (mapToKeys gives its keys). Added to options.watches. */
  watches?: readonly WatchSpec[];
  /** The server-side apply field manager of ctx.children.apply. Default: the controller name. */
  fieldManager?: string;
}

/**
 * A controller of `resource`: its informer (the factory's, shared per scope through forResource), a rate-limited
 * queue the informer's events put keys on, and workers that call `hooks` with the context `extendContext` completes.
 * `extendContext` runs once, with the primary informer, and returns what Ctx adds to ReconcileContext (the typed
 * client and lister).
 *
 * @example
 * return controllerFor(kube, mySQLClusterResource, hooks, options, (informer) => ({
 *   client: newMySQLClusterClient(kube),
 *   lister: newMySQLClusterLister(informer.getIndexer()),
 * }));
 */
export function controllerFor<T extends KubernetesObject, Ctx extends ReconcileContext>(
  kube: KubeClient,
  resource: ResourceDescriptor<T>,
  hooks: ControllerHooks<T, Ctx>,
  options: ControllerOptions,
  extendContext: (informer: SharedIndexInformer<T>) => Omit<Ctx, keyof ReconcileContext>,
): Controller<T> {
  const name = options.name ?? groupResource(resource);
  const informerFactory = options.informerFactory ?? new SharedInformerFactory();
  // options.namespace narrows a namespaced kind's informer; a cluster-scoped kind has no namespace to narrow to.
  const namespace = resource.namespaced ? options.namespace : undefined;
  const informer = options.sharding
    ? shardedPrimaryInformer(kube, resource, informerFactory, options.sharding, { namespace, logger: options.logger })
    : informerFactory.forResource<T>(kube, resource, { namespace, logger: options.logger }).informer;
  const queue = newRateLimitingQueue<string>({ name, priorityQueue: options.usePriorityQueue });

  // Each event puts the object's namespace/name key on the queue. The queue dedups keys, so a burst of events is one
  // reconcile.
  // options.generationChangedOnly drops updates that leave metadata.generation alone (status-only writes).
  informer.addEventHandler(enqueueRequestForObject(queue, primaryPredicates<T>(options)));

  const extension = extendContext(informer);
  // Ctx is ReconcileContext plus exactly the fields extendContext returns.
  const typed = (ctx: ReconcileContext) => ({ ...ctx, ...extension }) as Ctx;
  return new Controller<T>({
    ...options,
    // Events of owned kinds enqueue their controller owner's key (one shared informer per kind).
    owns: [...(hooks.owns ?? []), ...(options.owns ?? [])],
    watches: [...(hooks.watches ?? []), ...(options.watches ?? [])],
    fieldManager: options.fieldManager ?? hooks.fieldManager,
    name,
    resource: {
      group: resource.group,
      version: resource.version,
      plural: resource.plural,
      kind: resource.kind,
      namespaced: resource.namespaced,
    },
    kube,
    informerFactory,
    informer,
    queue,
    // Workers call this with the object the cache holds for a key: reconcile is level-triggered, never fed the event
    // itself.
    reconcile: (ctx, obj) => hooks.reconcile(typed(ctx), obj),
    finalize: hooks.finalize
      ? async (ctx: ReconcileContext, obj: T) => {
          await hooks.finalize?.(typed(ctx), obj);
        }
      : undefined,
  });
}
