// The ReconcileContext a hook unit test hands reconcile: what controllerFor builds for a controller's workers, over a
// FakeCluster instead of an API server. A generated new<Kind>TestContext completes it with the kind's typed client and
// lister, as the generated controller completes controllerFor's.
import type { Indexer } from "../cache/indexer.js";
import { objectKey } from "../cache/keys.js";
import type { KubeClient } from "../client/kube-client.js";
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import type { ReconcileContext } from "../controller/reconcile.js";
import { newEventRecorder } from "../events/event-recorder.js";
import { type Logger, newLogger } from "../log/logger.js";
import type { FakeCluster, FakeResourceOptions } from "./fake-cluster.js";
import { fakeChildObjects } from "./fake-children.js";

export interface TestContextOptions extends FakeResourceOptions {
  /** ctx.children's server-side apply field manager (default "test-operator"). */
  fieldManager?: string;
  /** ctx.log (default: a logger that writes nothing). */
  log?: Logger;
  /** ctx.signal (default: never aborted). */
  signal?: AbortSignal;
}

/**
 * The context reconcile receives for `obj`, with the runtime's parts over `cluster` (which registers `resource`):
 * ctx.kube is the cluster's KubeClient, ctx.children applies and deletes in it, and `extend` adds the kind's own parts
 * from that client and an Indexer the cluster keeps in step with its objects (see FakeCluster.indexer).
 */
export function newTestContext<T extends KubernetesObject, Ctx extends ReconcileContext>(
  cluster: FakeCluster,
  resource: ResourceDescriptor<T>,
  obj: T,
  extend: (kube: KubeClient, indexer: Indexer<T>) => Omit<Ctx, keyof ReconcileContext>,
  options: TestContextOptions = {},
): Ctx {
  const { fieldManager, log = newLogger({ write: () => undefined }), signal, ...resourceOptions } = options;
  cluster.register(resource, resourceOptions);
  const kube = cluster.kubeClient();
  const name = obj.metadata?.name;
  if (!name) throw new Error(`newTestContext: the ${resource.kind} to reconcile has no metadata.name`);
  const namespace = resource.namespaced ? obj.metadata?.namespace : undefined;
  const base: ReconcileContext = {
    key: objectKey(namespace, name),
    namespace,
    name,
    log,
    recorder: newEventRecorder(kube, fieldManager ?? "test-operator", log),
    kube,
    children: fakeChildObjects(cluster, fieldManager),
    signal: signal ?? new AbortController().signal,
  };
  // Ctx is ReconcileContext plus exactly the fields extend returns.
  return { ...base, ...extend(kube, cluster.indexer(resource)) } as Ctx;
}
