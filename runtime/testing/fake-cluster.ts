// An in-memory API server for unit tests of reconcile hooks: typed verbs with the API server's rules that hooks
// depend on (resourceVersion and 409 conflicts, generation, the status subresource, selectors, patches, watches),
// and a fake KubeClient so ResourceClient and generated clients run against the same objects.
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
// fast-json-patch is CommonJS: Node gives its exports as the default import only.
import jsonPatch, { type Operation } from "fast-json-patch";
import { Indexer, metaNamespaceIndexFunc, NamespaceIndex } from "../cache/indexer.js";
import { objectKey as key } from "../cache/keys.js";
import { ApiError } from "../client/api-error.js";
import { bindResourceVerbs, type ObjectVerbs, type StatusVerbs } from "../client/bound-verbs.js";
import { builtinResources } from "../client/builtin-resources.js";
import type { KubeClient, RequestOptions, WatchOptions } from "../client/kube-client.js";
import { reviveListMeta, reviveObjectMeta, reviveWatchEvents } from "../client/object-meta-dates.js";
import type { Patch, JsonPatchOperation } from "../client/patch.js";
import type {
  DeleteCollectionOptions,
  DeleteOptions,
  PatchOptions,
  WatchResourceOptions,
  WriteOptions,
} from "../client/resource-client.js";
import { apiVersionOf } from "../client/resource-client.js";
import type {
  KubernetesList,
  KubernetesObject,
  ListOptions,
  ResourceDescriptor,
  Status,
  WatchEvent,
} from "../client/types.js";
import { applyMergePatch } from "./merge-patch.js";
import { fieldSelectorMatcher, labelSelectorMatcher } from "./selectors.js";

type Obj = KubernetesObject & {
  metadata: Record<string, unknown> & { name: string };
  status?: unknown;
  [k: string]: unknown;
};
type Meta = Record<string, unknown>;
/** What the verbs return for a descriptor of T: a T whose metadata.name is set and whose other fields stay readable. */
type Served<T extends KubernetesObject> = T & Obj;

export interface FakeResourceOptions {
  /** The status subresource is enabled (default true, as crdgen's kinds with `subresources.status` have it). */
  status?: boolean;
}

interface Stored {
  resource: ResourceDescriptor;
  status: boolean;
  objects: Map<string, Obj>; // key namespace/name
  history: Array<{ rv: number; type: "ADDED" | "MODIFIED" | "DELETED"; object: Obj; previous: Obj | undefined }>;
  watchers: Set<(e: Stored["history"][number]) => void>;
  indexer?: Indexer<KubernetesObject>; // made on the first FakeCluster.indexer call
}

/** Every object of every resource in one resourceVersion sequence, as in etcd. */
export class FakeCluster {
  private rv = 0;
  private readonly resources = new Map<string, Stored>();

  constructor() {
    for (const r of Object.values(builtinResources))
      this.register(r, {
        status:
          r.group !== "" ||
          r.plural === "pods" ||
          r.plural === "services" ||
          r.plural === "persistentvolumeclaims" ||
          r.plural === "namespaces",
      });
    this.register(
      { group: "events.k8s.io", version: "v1", plural: "events", kind: "Event", namespaced: true },
      { status: false },
    );
  }

  /** Declares a resource (idempotent); the fake KubeClient only serves registered resources. */
  register(resource: ResourceDescriptor, options: FakeResourceOptions = {}): void {
    const id = resourceId(resource);
    if (this.resources.has(id)) return;
    this.resources.set(id, {
      resource,
      status: options.status ?? true,
      objects: new Map(),
      history: [],
      watchers: new Set(),
    });
  }

  /** A client of one resource with ResourceClient's namespace-first verbs and the generated clients' bound verbs. */
  client<T extends KubernetesObject, TList extends KubernetesList<T> = KubernetesList<T>>(
    resource: ResourceDescriptor<T>,
    options: FakeResourceOptions = {},
  ): FakeResourceClient<T, TList> {
    this.register(resource, options);
    return new FakeResourceClient<T, TList>(this, resource);
  }

  /**
   * A KubeClient whose request() and watch() are served from this cluster, so `new ResourceClient(kube, ...)`,
   * generated `new<Kind>Client(kube)` and the event recorder work unchanged.
   */
  kubeClient(): KubeClient {
    return {
      // eslint-disable-next-line @typescript-eslint/require-await -- async so that the fake's errors reject, as the real request()'s do
      request: async <R>(opts: RequestOptions): Promise<R> => {
        const answer = this.serve(opts) as { items?: unknown };
        // Like HttpKubeClient: each item of a list answer passes through listItem (the fake's items are fresh clones).
        if (opts.listItem && Array.isArray(answer.items)) answer.items = answer.items.map(opts.listItem);
        return answer as R;
      },
      watch: <R extends KubernetesObject>(opts: WatchOptions): AsyncIterable<WatchEvent<R>> => {
        const route = this.route("GET", opts.path);
        return this.watchStore(
          route.store,
          route.namespace,
          queryListOptions(opts.query),
          opts.signal,
          false,
        ) as AsyncIterable<WatchEvent<R>>;
      },
      defaultNamespace: undefined,
      close: () => undefined,
    };
  }

  /**
   * An Indexer of `resource` that this cluster keeps in step with every write, as an informer's cache follows the API
   * server, only at once: an object written is in it when the write returns. A generated lister over it reads the
   * cluster's objects in a hook test, as the controller's lister reads its informer's. One Indexer per resource: every
   * call returns the same one, so a test that builds a context per case adds no watcher per case.
   */
  indexer<T extends KubernetesObject>(r: ResourceDescriptor<T>): Indexer<T> {
    const s = this.store(r);
    s.indexer ??= this.followedIndexer(s);
    return s.indexer as unknown as Indexer<T>; // the store holds objects of its descriptor, T
  }

  private followedIndexer(s: Stored): Indexer<KubernetesObject> {
    const indexer = new Indexer<KubernetesObject>({ indexers: { [NamespaceIndex]: metaNamespaceIndexFunc } });
    // Cached as the informer caches them: copies with ObjectMeta dates revived.
    const cached = (o: Obj) => reviveObjectMeta(clone(o)) as KubernetesObject;
    indexer.replace([...s.objects.values()].map(cached));
    s.watchers.add((h) => (h.type === "DELETED" ? indexer.delete(cached(h.object)) : indexer.update(cached(h.object))));
    return indexer;
  }

  // ---- the verbs, namespace-first, on plain JSON objects (dates as RFC 3339 strings) ----
  // Each is typed by its descriptor (builtinResources.deployments: V1Deployment): the store holds what was written.

  get<T extends KubernetesObject>(r: ResourceDescriptor<T>, ns: string | undefined, name: string): Served<T> {
    const s = this.store(r);
    const obj = s.objects.get(key(this.scope(s, ns), name));
    if (!obj) throw notFound(s.resource, name);
    return clone(obj) as Served<T>;
  }

  list<T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    opts: ListOptions = {},
  ): KubernetesList<Served<T>> {
    const s = this.store(r);
    const matches = this.matcher(s, ns, opts);
    const items = [...s.objects.values()].filter(matches).sort(byKey).map(clone) as Array<Served<T>>;
    return {
      apiVersion: apiVersionOf(s.resource),
      kind: `${s.resource.kind}List`,
      metadata: { resourceVersion: String(this.rv) },
      items,
    };
  }

  create<T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    input: T,
    opts: WriteOptions = {},
  ): Served<T> {
    const s = this.store(r);
    const obj = clone(input as unknown as Obj);
    const meta: Meta = (obj as { metadata?: Meta }).metadata ?? {}; // a create body may lack metadata
    obj.metadata = meta as Obj["metadata"];
    const namespace = this.scope(s, ns ?? (meta["namespace"] as string | undefined));
    if (meta["namespace"] !== undefined && s.resource.namespaced && meta["namespace"] !== namespace) {
      throw apiError(
        400,
        "BadRequest",
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    if (!meta["name"]) {
      if (!meta["generateName"])
        throw invalid(s.resource, "", "metadata.name: Required value: name or generateName is required");
      meta["name"] = `${meta["generateName"] as string}${randomUUID().replace(/-/g, "").slice(0, 5)}`;
    }
    const name = meta["name"] as string;
    if (s.objects.has(key(namespace, name)))
      throw apiError(409, "AlreadyExists", `${s.resource.plural} "${name}" already exists`, s.resource, name);
    if (meta["resourceVersion"])
      throw invalid(s.resource, name, "metadata.resourceVersion: Invalid value: must be unspecified on create");
    if (s.status) delete obj.status; // the status subresource: create ignores status, as the API server's strategy does
    obj.apiVersion ??= apiVersionOf(s.resource);
    obj.kind ??= s.resource.kind;
    Object.assign(meta, {
      ...(s.resource.namespaced ? { namespace } : {}),
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z"),
    });
    delete meta["deletionTimestamp"];
    if (opts.dryRun) return clone(obj) as Served<T>;
    return this.commit(s, "ADDED", obj, undefined) as Served<T>;
  }

  /** PUT: resourceVersion required and checked (409 when stale); status kept from the stored object when the subresource is on. */
  update<T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    input: T,
    opts: WriteOptions = {},
  ): Served<T> {
    const s = this.store(r);
    const current = this.current(s, ns, nameOf(input));
    checkResourceVersion(s, current, input, true);
    const next = clone(input as unknown as Obj);
    if (s.status) setStatus(next, current.status);
    return this.write(s, current, next, opts) as Served<T>;
  }

  /** PUT .../status: only input.status is kept; T's status type checks it. */
  updateStatus<T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    input: T,
    opts: WriteOptions = {},
  ): Served<T> {
    const s = this.statusStore(r);
    const current = this.current(s, ns, nameOf(input));
    checkResourceVersion(s, current, input, false);
    const next = clone(current);
    setStatus(next, (input as unknown as Obj).status);
    return this.write(s, current, next, opts) as Served<T>;
  }

  patch<T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    name: string,
    patch: Patch<T>,
    opts: PatchOptions = {},
  ): Served<T> {
    const s = this.store(r);
    if (patch.type === "apply" && !s.objects.has(key(this.scope(s, ns), name))) {
      const body = patch.body as KubernetesObject;
      return this.create(r, ns, { ...body, metadata: { ...(body.metadata as Meta), name } } as T, opts);
    }
    const current = this.current(s, ns, name);
    const next = patched(s, current, patch, name);
    checkResourceVersion(s, current, next, false);
    if (s.status) setStatus(next, current.status);
    return this.write(s, current, next, opts) as Served<T>;
  }

  /**
   * PATCH .../status: only the patched status is kept. The patch is T's (a merge body's status is checked against
   * T's status type), so a typed descriptor or a generated kind's refuses a status of another shape.
   */
  patchStatus<T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    name: string,
    patch: Patch<T>,
    opts: PatchOptions = {},
  ): Served<T> {
    const s = this.statusStore(r);
    const current = this.current(s, ns, name);
    const next = patched(s, current, patch, name);
    checkResourceVersion(s, current, next, false);
    const result = clone(current);
    setStatus(result, next.status);
    return this.write(s, current, result, opts) as Served<T>;
  }

  /** With finalizers the object only gets a deletionTimestamp (and is returned); otherwise it goes (a Success Status). */
  delete<T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ): Served<T> | Status {
    const s = this.store(r);
    const current = this.current(s, ns, name);
    const pre = opts.preconditions;
    if (
      (pre?.uid && pre.uid !== current.metadata["uid"]) ||
      (pre?.resourceVersion && pre.resourceVersion !== current.metadata["resourceVersion"])
    ) {
      throw apiError(
        409,
        "Conflict",
        `Precondition failed: UID or ResourceVersion in precondition does not match for ${s.resource.plural} "${name}"`,
        s.resource,
        name,
      );
    }
    if ((current.metadata["finalizers"] ?? []).length > 0) {
      if (current.metadata["deletionTimestamp"] || opts.dryRun) return clone(current);
      const next = clone(current);
      (next.metadata as Meta)["deletionTimestamp"] = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
      next.metadata["deletionGracePeriodSeconds"] = 0;
      return this.commit(s, "MODIFIED", next, current);
    }
    if (!opts.dryRun) this.remove(s, current);
    return {
      kind: "Status",
      apiVersion: "v1",
      status: "Success",
      details: { name, kind: s.resource.plural, group: s.resource.group },
    };
  }

  deleteCollection<T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    opts: DeleteCollectionOptions = {},
  ): KubernetesList<Served<T>> {
    const {
      propagationPolicy: _propagationPolicy,
      gracePeriodSeconds: _gracePeriodSeconds,
      preconditions: _preconditions,
      dryRun,
      ...listOptions
    } = opts;
    const list = this.list(r, ns, listOptions);
    for (const item of list.items) this.delete(r, item.metadata.namespace, item.metadata.name, { dryRun });
    return list;
  }

  /**
   * Without resourceVersion (or with "0") the watch starts with an ADDED per existing object; with one, it replays
   * what happened after it. Objects moving in or out of a label selector arrive as ADDED / DELETED, as on the server.
   */
  watch<T extends KubernetesObject>(
    r: ResourceDescriptor<T>,
    ns: string | undefined,
    opts: WatchResourceOptions = {},
    signal?: AbortSignal,
  ): AsyncIterable<WatchEvent<Served<T>>> {
    const { idleTimeoutMs: _idleTimeoutMs, ...list } = opts;
    return this.watchStore(this.store(r), ns, list, signal, true) as AsyncIterable<WatchEvent<Served<T>>>;
  }

  // ---- internals ----

  private watchStore(
    s: Stored,
    ns: string | undefined,
    opts: ListOptions,
    signal: AbortSignal | undefined,
    revive: boolean,
  ): AsyncIterable<WatchEvent<Obj>> {
    const matches = this.matcher(s, ns, opts);
    const pending: Array<WatchEvent<Obj>> = [];
    let wake: (() => void) | undefined;
    const push = (e: WatchEvent<Obj>) => {
      pending.push({ type: e.type, object: clone(e.object as Obj) } as WatchEvent<Obj>);
      wake?.();
    };
    const translate = (h: Stored["history"][number]) => {
      const now = h.type !== "DELETED" && matches(h.object);
      const before = h.previous !== undefined && matches(h.previous);
      if (h.type === "DELETED") {
        if (matches(h.object)) push({ type: "DELETED", object: h.object });
        return;
      }
      if (now && before) push({ type: "MODIFIED", object: h.object });
      else if (now) push({ type: "ADDED", object: h.object });
      else if (before) push({ type: "DELETED", object: h.object });
    };
    const from = opts.resourceVersion;
    if (from === undefined || from === "" || from === "0") {
      for (const o of [...s.objects.values()].filter(matches).sort(byKey)) push({ type: "ADDED", object: o });
    } else {
      const since = Number(from);
      for (const h of s.history) if (h.rv > since) translate(h);
    }
    s.watchers.add(translate);
    const stop = () => {
      s.watchers.delete(translate);
      wake?.();
    };
    signal?.addEventListener("abort", stop, { once: true });
    async function* events(): AsyncGenerator<WatchEvent<Obj>> {
      try {
        while (!signal?.aborted) {
          const next = pending.shift();
          if (next) {
            yield next;
            continue;
          }
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        stop();
        signal?.removeEventListener("abort", stop);
      }
    }
    return revive ? reviveWatchEvents(events()) : events();
  }

  private matcher(s: Stored, ns: string | undefined, opts: ListOptions): (o: Obj) => boolean {
    const namespace = s.resource.namespaced ? ns || undefined : undefined;
    if (!s.resource.namespaced && ns)
      throw new Error(`${s.resource.kind} is cluster-scoped: pass undefined, not namespace "${ns}"`);
    const labels = labelSelectorMatcher(opts.labelSelector);
    const fields = fieldSelectorMatcher(opts.fieldSelector);
    return (o) => (namespace === undefined || o.metadata["namespace"] === namespace) && labels(o) && fields(o);
  }

  private write(s: Stored, current: Obj, next: Obj, opts: WriteOptions): Obj {
    // Server-managed metadata survives every write; the rest of metadata comes from the new object.
    const keep = [
      "uid",
      "creationTimestamp",
      "generation",
      "deletionTimestamp",
      "deletionGracePeriodSeconds",
      "namespace",
      "name",
    ];
    for (const k of keep) {
      if (current.metadata[k] === undefined) Reflect.deleteProperty(next.metadata, k);
      else next.metadata[k] = current.metadata[k];
    }
    next.metadata["resourceVersion"] = current.metadata["resourceVersion"];
    next.apiVersion = current.apiVersion;
    next.kind = current.kind;
    if (isDeepStrictEqual(next, current)) return clone(current); // a no-op write keeps the resourceVersion
    // generation counts changes of everything but metadata (and status, when that is a subresource)
    const spec = (o: Obj) =>
      Object.fromEntries(Object.entries(o).filter(([k]) => k !== "metadata" && !(s.status && k === "status")));
    if (!isDeepStrictEqual(spec(next), spec(current)))
      next.metadata["generation"] = (current.metadata["generation"] ?? 0) + 1;
    if (opts.dryRun) return clone(next);
    if (next.metadata["deletionTimestamp"] && (next.metadata["finalizers"] ?? []).length === 0) {
      this.remove(s, next);
      return clone(next);
    }
    return this.commit(s, "MODIFIED", next, current);
  }

  private commit(s: Stored, type: "ADDED" | "MODIFIED", obj: Obj, previous: Obj | undefined): Obj {
    obj.metadata["resourceVersion"] = String(++this.rv);
    s.objects.set(key(obj.metadata["namespace"], obj.metadata.name), obj);
    this.notify(s, { rv: this.rv, type, object: obj, previous });
    return clone(obj);
  }

  private remove(s: Stored, obj: Obj): void {
    const gone = clone(obj);
    gone.metadata["resourceVersion"] = String(++this.rv);
    s.objects.delete(key(obj.metadata["namespace"], obj.metadata.name));
    this.notify(s, { rv: this.rv, type: "DELETED", object: gone, previous: obj });
  }

  private notify(s: Stored, h: Stored["history"][number]): void {
    s.history.push(h);
    for (const w of [...s.watchers]) w(h);
  }

  private current(s: Stored, ns: string | undefined, name: string): Obj {
    const obj = s.objects.get(key(this.scope(s, ns), name));
    if (!obj) throw notFound(s.resource, name);
    return obj;
  }

  private scope(s: Stored, ns: string | undefined): string | undefined {
    const namespace = ns || undefined;
    if (!s.resource.namespaced && namespace !== undefined)
      throw new Error(`${s.resource.kind} is cluster-scoped: pass undefined, not namespace "${namespace}"`);
    if (s.resource.namespaced && namespace === undefined)
      throw new Error(`${s.resource.kind} is namespaced: a namespace is required`);
    return namespace;
  }

  private store(r: ResourceDescriptor): Stored {
    const s = this.resources.get(resourceId(r));
    if (!s)
      throw apiError(
        404,
        "NotFound",
        `the server could not find the requested resource (${r.plural}.${r.group || "core"})`,
      );
    return s;
  }

  private statusStore(r: ResourceDescriptor): Stored {
    const s = this.store(r);
    if (!s.status)
      throw apiError(
        404,
        "NotFound",
        `the server could not find the requested resource (${r.plural}.${r.group || "core"}/status)`,
      );
    return s;
  }

  // The fake KubeClient: `/api/v1/...` or `/apis/{group}/{version}/...` paths to the verbs above.
  private route(
    method: string,
    path: string,
  ): { store: Stored; namespace: string | undefined; name: string | undefined; sub: string | undefined } {
    const parts = path
      .split("/")
      .filter((p) => p !== "")
      .map(decodeURIComponent);
    let group = "";
    if (parts[0] === "api") parts.shift();
    else if (parts[0] === "apis") {
      parts.shift();
      group = parts.shift() ?? "";
    } else throw apiError(404, "NotFound", `${method} ${path}: not an API path`);
    const version = parts.shift() ?? "";
    let namespace: string | undefined;
    if ((parts[0] as string | undefined) === "namespaces" && parts.length >= 3) {
      parts.shift();
      namespace = parts.shift();
    }
    const [plural, name, sub] = parts;
    const store = [...this.resources.values()].find(
      (s) => s.resource.group === group && s.resource.version === version && s.resource.plural === plural,
    );
    if (!store) throw apiError(404, "NotFound", `${method} ${path}: the server could not find the requested resource`);
    return { store, namespace, name, sub };
  }

  private serve(opts: RequestOptions): unknown {
    const { store, namespace, name, sub } = this.route(opts.method, opts.path);
    const r = store.resource;
    const q = opts.query ?? {};
    const write: WriteOptions = { ...(q["dryRun"] === "All" ? { dryRun: true } : {}) };
    if (sub !== undefined && sub !== "status")
      throw apiError(404, "NotFound", `subresource ${sub} is not served by the fake`);
    switch (opts.method) {
      case "GET":
        return name === undefined ? this.list(r, namespace, queryListOptions(q)) : this.get(r, namespace, name);
      case "POST":
        return this.create(r, namespace, opts.body as KubernetesObject, write);
      case "PUT":
        return sub === "status"
          ? this.updateStatus(r, namespace, opts.body as KubernetesObject, write)
          : this.update(r, namespace, opts.body as KubernetesObject, write);
      case "PATCH": {
        const patch = wirePatch(opts, q);
        return sub === "status"
          ? this.patchStatus(r, namespace, name!, patch, write)
          : this.patch(r, namespace, name!, patch, write);
      }
      case "DELETE": {
        const body = (opts.body ?? {}) as DeleteOptions;
        if (name === undefined)
          return this.deleteCollection(r, namespace, { ...queryListOptions(q), ...body, ...write });
        return this.delete(r, namespace, name, { ...body, ...write });
      }
    }
  }
}

/**
 * The typed verbs of one resource over a FakeCluster: ResourceClient's namespace-first methods, plus
 * `namespace(ns)`, `listAllNamespaces` and `watchAllNamespaces` as generated clients have them.
 * Returned objects are copies with ObjectMeta dates revived, as the real client returns them.
 */
export class FakeResourceClient<T extends KubernetesObject, TList extends KubernetesList<T> = KubernetesList<T>> {
  constructor(
    readonly cluster: FakeCluster,
    readonly resource: ResourceDescriptor<T>,
  ) {}

  // The verbs are async so that the fake's errors reject, as the real client's do.
  /* eslint-disable @typescript-eslint/require-await -- async only to turn throws into rejections */
  async get(namespace: string | undefined, name: string, _signal?: AbortSignal): Promise<T> {
    return reviveObjectMeta<T>(this.cluster.get(this.resource, namespace, name));
  }
  async list(namespace: string | undefined, opts: ListOptions = {}, _signal?: AbortSignal): Promise<TList> {
    return reviveListMeta(this.cluster.list(this.resource, namespace, opts) as unknown as TList);
  }
  async create(namespace: string | undefined, obj: T, opts: WriteOptions = {}): Promise<T> {
    return reviveObjectMeta<T>(this.cluster.create(this.resource, namespace, obj, opts));
  }
  async update(namespace: string | undefined, obj: T, opts: WriteOptions = {}): Promise<T> {
    return reviveObjectMeta<T>(this.cluster.update(this.resource, namespace, obj, opts));
  }
  async patch(namespace: string | undefined, name: string, patch: Patch<T>, opts: PatchOptions = {}): Promise<T> {
    return reviveObjectMeta<T>(this.cluster.patch(this.resource, namespace, name, patch, opts));
  }
  async delete(namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    return reviveObjectMeta<T | Status>(this.cluster.delete(this.resource, namespace, name, opts));
  }
  async deleteCollection(namespace: string | undefined, opts: DeleteCollectionOptions = {}): Promise<TList | Status> {
    return reviveListMeta(this.cluster.deleteCollection(this.resource, namespace, opts) as unknown as TList);
  }
  /* eslint-enable @typescript-eslint/require-await */
  watch(
    namespace: string | undefined,
    opts: WatchResourceOptions = {},
    signal?: AbortSignal,
  ): AsyncIterable<WatchEvent<T>> {
    return this.cluster.watch(this.resource, namespace, opts, signal);
  }
  /* eslint-disable @typescript-eslint/require-await -- async only to turn throws into rejections */
  async updateStatus(namespace: string | undefined, obj: T, opts: WriteOptions = {}): Promise<T> {
    return reviveObjectMeta<T>(this.cluster.updateStatus(this.resource, namespace, obj, opts));
  }
  async patchStatus(namespace: string | undefined, name: string, patch: Patch<T>, opts: PatchOptions = {}): Promise<T> {
    return reviveObjectMeta<T>(this.cluster.patchStatus(this.resource, namespace, name, patch, opts));
  }
  /* eslint-enable @typescript-eslint/require-await */

  /** The verbs bound to one namespace (undefined for cluster-scoped kinds), as `client.namespace(ns)` returns them. */
  namespace(namespace: string | undefined): ObjectVerbs<T, TList> & StatusVerbs<T> {
    return bindResourceVerbs<T, TList, { status: true; scale: false }>(this, namespace, { status: true, scale: false });
  }

  listAllNamespaces(options?: ListOptions): Promise<TList> {
    return this.list(undefined, options);
  }

  watchAllNamespaces(options?: WatchResourceOptions, signal?: AbortSignal): AsyncIterable<WatchEvent<T>> {
    return this.watch(undefined, options, signal);
  }
}

/** A FakeResourceClient on its own FakeCluster (or on `options.cluster`, to share objects with other resources). */
export function newFakeResourceClient<T extends KubernetesObject, TList extends KubernetesList<T> = KubernetesList<T>>(
  resource: ResourceDescriptor<T>,
  options: FakeResourceOptions & { cluster?: FakeCluster } = {},
): FakeResourceClient<T, TList> {
  const { cluster = new FakeCluster(), ...rest } = options;
  return cluster.client<T, TList>(resource, rest);
}

function patched(s: Stored, current: Obj, patch: Patch<KubernetesObject>, name: string): Obj {
  let result: unknown;
  try {
    switch (patch.type) {
      case "json":
        // validate: a missing path or a failed test op throws (the API server answers 422). A structured copy, not
        // the library's JSON one, keeps the revived metadata dates.
        result = jsonPatch.applyPatch(structuredClone(current), patch.ops as Operation[], true).newDocument;
        break;
      case "merge":
        result = applyMergePatch(current, patch.body);
        break;
      case "apply":
        // Approximation: no field ownership; the applied configuration is merged in (lists replaced whole).
        result = applyMergePatch(current, stripNulls(patch.body));
        break;
    }
  } catch (error) {
    throw invalid(s.resource, name, (error as Error).message);
  }
  if (
    result === null ||
    typeof result !== "object" ||
    !("metadata" in result) ||
    typeof result.metadata !== "object" ||
    result.metadata === null
  ) {
    throw invalid(s.resource, name, "metadata: Required value");
  }
  return result as Obj;
}

// An absent status stays absent (an own `status: undefined` would make a no-op write look like a change).
function setStatus(obj: Obj, status: unknown): void {
  if (status === undefined) delete obj.status;
  else obj.status = clone(status);
}

function stripNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k, stripNulls(x)]),
    );
  return v;
}

function checkResourceVersion(s: Stored, current: Obj, input: KubernetesObject, required: boolean): void {
  const rv = input.metadata?.resourceVersion;
  if (!rv) {
    if (required)
      throw invalid(
        s.resource,
        current.metadata.name,
        "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update",
      );
    return;
  }
  if (rv !== current.metadata["resourceVersion"]) {
    throw apiError(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${s.resource.plural}.${s.resource.group || "core"} "${current.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
      s.resource,
      current.metadata.name,
    );
  }
}

function wirePatch(opts: RequestOptions, q: Readonly<Record<string, unknown>>): Patch<KubernetesObject> {
  switch (opts.contentType) {
    case "application/json-patch+json":
      return { type: "json", ops: opts.body as JsonPatchOperation[] };
    case "application/merge-patch+json":
      return { type: "merge", body: opts.body as never };
    case "application/apply-patch+yaml":
      return {
        type: "apply",
        body: opts.body as never,
        fieldManager: typeof q["fieldManager"] === "string" ? q["fieldManager"] : "",
        ...(q["force"] ? { force: true } : {}),
      };
    default:
      throw apiError(
        415,
        "UnsupportedMediaType",
        `the body of the request was in an unknown format: ${opts.contentType ?? "none"}`,
      );
  }
}

function queryListOptions(q: Readonly<Record<string, unknown>> | undefined): ListOptions {
  const out: ListOptions = {};
  if (typeof q?.["labelSelector"] === "string") out.labelSelector = q["labelSelector"];
  if (typeof q?.["fieldSelector"] === "string") out.fieldSelector = q["fieldSelector"];
  if (typeof q?.["resourceVersion"] === "string") out.resourceVersion = q["resourceVersion"];
  return out;
}

function nameOf(obj: KubernetesObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error(`${obj.kind ?? "object"}: metadata.name is required`);
  return name;
}

const byKey = (a: Obj, b: Obj) => {
  const ka = key(a.metadata["namespace"], a.metadata.name);
  const kb = key(b.metadata["namespace"], b.metadata.name);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};
const resourceId = (r: ResourceDescriptor) => `${r.group}/${r.version}/${r.plural}`;
// JSON round trip: a deep copy that also turns Dates into the RFC 3339 strings the server stores.
const clone = <V>(v: V): V => JSON.parse(JSON.stringify(v)) as V;

function apiError(code: number, reason: string, message: string, r?: ResourceDescriptor, name?: string): ApiError {
  const details = r ? { name, group: r.group, kind: r.plural } : undefined;
  return new ApiError({
    status: code,
    method: "FAKE",
    path: r ? `${r.group}/${r.plural}/${name ?? ""}` : "",
    body: {
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      message,
      reason,
      code,
      ...(details ? { details } : {}),
    },
  });
}

const notFound = (r: ResourceDescriptor, name: string) =>
  apiError(404, "NotFound", `${r.plural}.${r.group || "core"} "${name}" not found`, r, name);
const invalid = (r: ResourceDescriptor, name: string, message: string) =>
  apiError(422, "Invalid", `${r.kind} "${name}" is invalid: ${message}`, r, name);
