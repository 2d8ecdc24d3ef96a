// ResourceClient: the generic typed client for one resource (URL building, verbs, subresources); generated clients wrap
// it.
import type { V1Scale } from "@kubernetes/client-node";
import type { KubeClient, Query } from "./kube-client.js";
import { PATCH_CONTENT_TYPES, type Patch } from "./patch.js";
import { reviveObjectMeta, reviveWatchEvents } from "./object-meta-dates.js";
import type { KubernetesList, KubernetesObject, ListOptions, ResourceDescriptor, Status, WatchEvent } from "./types.js";

export type Subresource = "status" | "scale";

/** Query options shared by the writing verbs. */
export interface WriteOptions {
  /** Validate and admit but do not persist (`dryRun=All`). */
  dryRun?: boolean;
  fieldManager?: string;
  /** How the server treats unknown or duplicate fields (default on current servers: Warn). */
  fieldValidation?: "Ignore" | "Warn" | "Strict";
}

/** Patch options; for an apply patch the field manager comes from the patch itself. */
export type PatchOptions = WriteOptions;

export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

/** meta/v1 DeleteOptions, sent as the DELETE body. */
export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid / resourceVersion (otherwise 409 Conflict). */
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export type DeleteCollectionOptions = ListOptions & DeleteOptions;

export interface WatchResourceOptions extends ListOptions {
  /** See WatchOptions.idleTimeoutMs. */
  idleTimeoutMs?: number;
}

/** A descriptor's apiVersion: "v1" for the core group, "<group>/<version>" otherwise. */
export function apiVersionOf(r: ResourceDescriptor): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** A descriptor's "<plural>.<group>" ("pods" for the core group): client-go's GroupResource, and a CRD's name. */
export function groupResource(r: ResourceDescriptor): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}

/**
 * The URL of a resource, its collection or a subresource:
 * `/apis/{group}/{version}[/namespaces/{ns}]/{plural}[/{name}[/{subresource}]]`, `/api/{version}/...` for the core
 * group.
 */
export function resourcePath(
  r: ResourceDescriptor,
  namespace: string | undefined,
  name?: string,
  subresource?: Subresource,
): string {
  let p = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  if (namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${r.plural}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

/**
 * Typed access to one resource. Every method takes the namespace first; cluster-scoped kinds pass undefined.
 * For a namespaced kind, undefined (or "") means all namespaces in list and watch, and is an error elsewhere.
 * T is inferred from a typed descriptor: `new ResourceClient(kube, builtinResources.deployments)` serves V1Deployment.
 */
export class ResourceClient<T extends KubernetesObject, TList extends KubernetesList<T> = KubernetesList<T>> {
  constructor(
    readonly client: KubeClient,
    readonly resource: ResourceDescriptor<T>,
  ) {}

  async get(namespace: string | undefined, name: string, signal?: AbortSignal): Promise<T> {
    return reviveObjectMeta(
      await this.client.request<T>({ method: "GET", path: this.itemPath(namespace, name), ...sig(signal) }),
    );
  }

  async list(namespace: string | undefined, opts: ListOptions = {}, signal?: AbortSignal): Promise<TList> {
    // Each item is revived as it is decoded, while the rest of the list is still arriving.
    return this.client.request<TList>({
      method: "GET",
      path: this.collectionPath(namespace, true),
      query: listQuery(opts),
      listItem: reviveObjectMeta,
      ...sig(signal),
    });
  }

  async create(namespace: string | undefined, obj: T, opts: WriteOptions = {}): Promise<T> {
    return reviveObjectMeta(
      await this.client.request<T>({
        method: "POST",
        path: this.collectionPath(namespace, false),
        query: writeQuery(opts),
        body: obj,
      }),
    );
  }

  /** PUT; the name is taken from obj.metadata.name. Send metadata.resourceVersion to get optimistic concurrency (409 on conflict). */
  async update(namespace: string | undefined, obj: T, opts: WriteOptions = {}): Promise<T> {
    return reviveObjectMeta(
      await this.client.request<T>({
        method: "PUT",
        path: this.itemPath(namespace, nameOf(obj)),
        query: writeQuery(opts),
        body: obj,
      }),
    );
  }

  async patch(namespace: string | undefined, name: string, patch: Patch<T>, opts: PatchOptions = {}): Promise<T> {
    return reviveObjectMeta(
      await this.client.request<T>({
        method: "PATCH",
        path: this.itemPath(namespace, name),
        ...patchRequest(patch, opts),
      }),
    );
  }

  /** Returns the object (still present while finalizers run) or a Status, as the server chooses. */
  async delete(namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    return this.client.request<T | Status>({
      method: "DELETE",
      path: this.itemPath(namespace, name),
      query: { dryRun: opts.dryRun ? "All" : undefined },
      body: deleteBody(opts),
    });
  }

  /** Deletes every object matching the selectors. A namespaced kind needs a namespace here. */
  async deleteCollection(namespace: string | undefined, opts: DeleteCollectionOptions = {}): Promise<TList | Status> {
    const { propagationPolicy, gracePeriodSeconds, preconditions, dryRun, ...list } = opts;
    return this.client.request<TList | Status>({
      method: "DELETE",
      path: this.collectionPath(namespace, false),
      query: { ...listQuery(list), dryRun: dryRun ? "All" : undefined },
      body: deleteBody({ propagationPolicy, gracePeriodSeconds, preconditions }),
    });
  }

  /** WATCH from opts.resourceVersion; ends when the server closes the stream or the signal aborts. */
  watch(
    namespace: string | undefined,
    opts: WatchResourceOptions = {},
    signal?: AbortSignal,
  ): AsyncIterable<WatchEvent<T>> {
    const { idleTimeoutMs, ...list } = opts;
    return reviveWatchEvents(
      this.client.watch<T>({
        path: this.collectionPath(namespace, true),
        query: { ...listQuery(list), watch: true },
        ...sig(signal),
        idleTimeoutMs,
      }),
    );
  }

  /** PUT .../status: only status changes are kept (the main resource ignores status when the subresource is on). */
  async updateStatus(namespace: string | undefined, obj: T, opts: WriteOptions = {}): Promise<T> {
    return reviveObjectMeta(
      await this.client.request<T>({
        method: "PUT",
        path: this.itemPath(namespace, nameOf(obj), "status"),
        query: writeQuery(opts),
        body: obj,
      }),
    );
  }

  async patchStatus(namespace: string | undefined, name: string, patch: Patch<T>, opts: PatchOptions = {}): Promise<T> {
    return reviveObjectMeta(
      await this.client.request<T>({
        method: "PATCH",
        path: this.itemPath(namespace, name, "status"),
        ...patchRequest(patch, opts),
      }),
    );
  }

  /** GET .../scale (autoscaling/v1 Scale), for kinds whose CRD enables the scale subresource. */
  async getScale(namespace: string | undefined, name: string): Promise<V1Scale> {
    return reviveObjectMeta(
      await this.client.request<V1Scale>({ method: "GET", path: this.itemPath(namespace, name, "scale") }),
    );
  }

  async updateScale(
    namespace: string | undefined,
    name: string,
    scale: V1Scale,
    opts: WriteOptions = {},
  ): Promise<V1Scale> {
    return reviveObjectMeta(
      await this.client.request<V1Scale>({
        method: "PUT",
        path: this.itemPath(namespace, name, "scale"),
        query: writeQuery(opts),
        body: scale,
      }),
    );
  }

  private itemPath(namespace: string | undefined, name: string, sub?: Subresource): string {
    if (!name) throw new Error(`${this.resource.kind}: a name is required`);
    return resourcePath(this.resource, this.checkNamespace(namespace, false), name, sub);
  }

  private collectionPath(namespace: string | undefined, allowAll: boolean): string {
    return resourcePath(this.resource, this.checkNamespace(namespace, allowAll));
  }

  // A wrong scope would silently hit another URL (404 or all namespaces), so it fails loudly instead.
  private checkNamespace(namespace: string | undefined, allowAll: boolean): string | undefined {
    const ns = namespace || undefined;
    const { kind, namespaced } = this.resource;
    if (!namespaced && ns !== undefined)
      throw new Error(`${kind} is cluster-scoped: pass undefined, not namespace "${ns}"`);
    if (namespaced && ns === undefined && !allowAll) throw new Error(`${kind} is namespaced: a namespace is required`);
    return ns;
  }
}

function sig(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}

function nameOf(obj: KubernetesObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error(`${obj.kind ?? "object"}: metadata.name is required`);
  return name;
}

function listQuery(o: ListOptions): Query {
  return {
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    limit: o.limit,
    continue: o.continue,
    resourceVersion: o.resourceVersion,
    resourceVersionMatch: o.resourceVersionMatch,
    timeoutSeconds: o.timeoutSeconds,
    allowWatchBookmarks: o.allowWatchBookmarks,
    sendInitialEvents: o.sendInitialEvents,
    shardSelector: o.shardSelector,
  };
}

function writeQuery(o: WriteOptions): Query {
  return { dryRun: o.dryRun ? "All" : undefined, fieldManager: o.fieldManager, fieldValidation: o.fieldValidation };
}

function patchRequest<T extends KubernetesObject>(
  patch: Patch<T>,
  opts: PatchOptions,
): { query: Query; body: unknown; contentType: string } {
  const contentType = PATCH_CONTENT_TYPES[patch.type];
  switch (patch.type) {
    case "json":
      return { query: writeQuery(opts), body: patch.ops, contentType };
    case "merge":
      return { query: writeQuery(opts), body: patch.body, contentType };
    case "apply":
      return {
        query: { ...writeQuery(opts), fieldManager: patch.fieldManager, force: patch.force },
        body: patch.body,
        contentType,
      };
  }
}

// kind/apiVersion as client-go's dynamic client encodes DeleteOptions (legacy "v1"), accepted for every group.
function deleteBody(o: DeleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: "DeleteOptions", apiVersion: "v1" };
  if (o.propagationPolicy !== undefined) body["propagationPolicy"] = o.propagationPolicy;
  if (o.gracePeriodSeconds !== undefined) body["gracePeriodSeconds"] = o.gracePeriodSeconds;
  if (o.preconditions !== undefined) body["preconditions"] = o.preconditions;
  return body;
}
