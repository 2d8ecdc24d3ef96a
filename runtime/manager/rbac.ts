// Least-privilege RBAC for an operator built on this runtime, derived from what its controllers touch: the primary
// resource, the kinds they own and the kinds they only watch, plus Events and (in a namespaced Role) the leader Lease.
import type { ResourceDescriptor } from "../client/types.js";
import { builtinResources } from "../client/builtin-resources.js";

export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

/** rbac.authorization.k8s.io/v1 PolicyRule (resource rules only). */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

export interface ClusterRole {
  apiVersion: "rbac.authorization.k8s.io/v1";
  kind: "ClusterRole";
  metadata: { name: string; labels?: Record<string, string> };
  rules: PolicyRule[];
}

export interface Role {
  apiVersion: "rbac.authorization.k8s.io/v1";
  kind: "Role";
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  rules: PolicyRule[];
}

/** What one controller touches; the generated controller's resource and its hooks' owns / watches / finalize. */
export interface ControllerAccess {
  /** The primary resource. */
  resource: ResourceDescriptor;
  /** It has a status subresource that reconcile writes. */
  status?: boolean;
  /** The runtime holds a finalizer on it (the hooks export finalize). */
  finalizer?: boolean;
  /** Kinds reconcile creates with a controller ownerReference (hooks.owns). */
  owns?: readonly ResourceDescriptor[];
  /** Kinds it watches (hooks.watches' resources). */
  watches?: readonly ResourceDescriptor[];
  /**
   * Kinds reconcile creates or applies without always making them owned children (e.g. a Secret that must outlive its
   * cluster, owner-referenced only on request). Nothing in the hooks' exports says so; the caller lists them.
   */
  writes?: readonly ResourceDescriptor[];
  /** Kinds reconcile reads by GET from the API server rather than from a cache (e.g. a user's Secret named in the spec). */
  reads?: readonly ResourceDescriptor[];
}

/** Verbs per category of access. See accessVerbs for what each is and why. */
export interface AccessVerbs {
  primary: Verb[];
  status: Verb[];
  owned: Verb[];
  watched: Verb[];
  written: Verb[];
  read: Verb[];
  events: Verb[];
  leases: Verb[];
}

/**
 * The verbs crdgen's runtime and a server-side-apply reconcile actually send, and nothing more:
 * - primary: list + watch (the informer; reconcile reads the cache, never GETs). `patch` is added when a finalizer is
 *   used (the runtime adds and removes it with a JSON patch). Its `finalizers` subresource gets `update` when the
 *   controller owns kinds: children carry a controller ownerReference with blockOwnerDeletion, and the
 *   OwnerReferencesPermissionEnforcement admission plugin (on in some distributions) requires exactly that permission.
 * - status: patch (patchStatus; merge or apply).
 * - owned: list + watch (their informer), create + patch (server-side apply: the API server checks `create` when an
 *   apply creates the object), delete (optional children removed when the spec no longer wants them; the same
 *   admission plugin requires `delete` on a kind to change an existing object's ownerReferences).
 * - watched: list + watch.
 * - written: create + patch (apply) + delete (to change an existing object's ownerReferences under that plugin).
 * - read: get.
 * - events (events.k8s.io): create + patch (the recorder posts an event, then patches the count of its EventSeries).
 * - leases (coordination.k8s.io): get, create, update (acquire and renew read, create, then update with
 * resourceVersion).
 */
export const accessVerbs: Readonly<AccessVerbs> = Object.freeze<AccessVerbs>({
  primary: ["list", "watch"],
  status: ["patch"],
  owned: ["create", "delete", "list", "patch", "watch"],
  watched: ["list", "watch"],
  written: ["create", "delete", "patch"],
  read: ["get"],
  events: ["create", "patch"],
  leases: ["create", "get", "update"],
});

export interface RbacOptions {
  /** Verbs added to a category for every kind in it, e.g. `{ watched: ["get"] }` when reconcile GETs a watched kind. */
  extraVerbs?: Partial<AccessVerbs>;
  /** Further rules, merged in (e.g. a kind reconcile reads by GET but neither owns nor watches). */
  extraRules?: PolicyRule[];
  /** Grant events.k8s.io events. Default true (the controller's event recorder). */
  events?: boolean;
  /** Grant leases here too (cluster-wide). Default false: leaderElectionRole puts them in a namespaced Role. */
  leases?: boolean;
  labels?: Record<string, string>;
}

/** The rules controllers need, merged per API group and verb set, sorted (see mergeRules). */
export function rulesFor(controllers: readonly ControllerAccess[], options: RbacOptions = {}): PolicyRule[] {
  const verbs = withExtras(options.extraVerbs);
  const rules: PolicyRule[] = [];
  const grant = (r: ResourceDescriptor, v: readonly Verb[], subresource?: string): void => {
    if (v.length > 0)
      rules.push({
        apiGroups: [r.group],
        resources: [subresource ? `${r.plural}/${subresource}` : r.plural],
        verbs: [...v],
      });
  };
  for (const c of controllers) {
    grant(c.resource, c.finalizer ? [...verbs.primary, "patch"] : verbs.primary);
    if (c.status) grant(c.resource, verbs.status, "status");
    if ((c.owns?.length ?? 0) > 0) grant(c.resource, ["update"], "finalizers");
    for (const owned of c.owns ?? []) grant(owned, verbs.owned);
    for (const watched of c.watches ?? []) grant(watched, verbs.watched);
    for (const written of c.writes ?? []) grant(written, verbs.written);
    for (const read of c.reads ?? []) grant(read, verbs.read);
  }
  if (options.events ?? true) grant(eventsResource, verbs.events);
  if (options.leases ?? false) grant(builtinResources.leases, verbs.leases);
  return mergeRules([...rules, ...(options.extraRules ?? [])]);
}

/** A ClusterRole granting exactly rulesFor(controllers, options). */
export function clusterRoleFor(
  name: string,
  controllers: readonly ControllerAccess[],
  options: RbacOptions = {},
): ClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name, ...(options.labels ? { labels: { ...options.labels } } : {}) },
    rules: rulesFor(controllers, options),
  };
}

/**
 * A Role granting rulesFor(controllers, options) in one namespace: for an operator that serves only some namespaces
 * (--watch-namespaces), one per namespace, so it can read nothing (no Secret in particular) anywhere else.
 */
export function roleFor(
  name: string,
  namespace: string,
  controllers: readonly ControllerAccess[],
  options: RbacOptions = {},
): Role {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name, namespace, ...(options.labels ? { labels: { ...options.labels } } : {}) },
    rules: rulesFor(controllers, options),
  };
}

/** The API calls the secure metrics server makes to check a caller (metricsAuthorizer), both cluster-scoped. */
export function metricsAuthClusterRole(name: string, labels?: Record<string, string>): ClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name, ...(labels ? { labels: { ...labels } } : {}) },
    rules: [
      { apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"] },
      { apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"] },
    ],
  };
}

/** A ClusterRole whose rules name non-resource URLs only (RBAC's other kind of rule). */
export interface NonResourceClusterRole {
  apiVersion: "rbac.authorization.k8s.io/v1";
  kind: "ClusterRole";
  metadata: { name: string; labels?: Record<string, string> };
  rules: Array<{ nonResourceURLs: string[]; verbs: string[] }>;
}

/** Who may scrape the secure metrics server: bind it to the scraper's ServiceAccount (e.g. Prometheus'). */
export function metricsReaderClusterRole(name: string, labels?: Record<string, string>): NonResourceClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name, ...(labels ? { labels: { ...labels } } : {}) },
    rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
  };
}

/** A namespaced Role on Leases only: each grant's verbs, on the Leases it names (resourceNames) or on all. */
function leaseRole(
  name: string,
  namespace: string,
  grants: ReadonlyArray<{ verbs: readonly string[]; resourceNames?: string[] }>,
  labels?: Record<string, string>,
): Role {
  const { group, plural } = builtinResources.leases;
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name, namespace, ...(labels ? { labels: { ...labels } } : {}) },
    rules: mergeRules(
      grants.map(({ verbs, resourceNames }) => ({
        apiGroups: [group],
        resources: [plural],
        ...(resourceNames ? { resourceNames } : {}),
        verbs: [...verbs],
      })),
    ),
  };
}

/**
 * The namespaced Role leader election needs on its one Lease: `create` (which RBAC cannot limit by name, because a
 * create has no name when it is authorised) and get/update on that Lease only.
 */
export function leaderElectionRole(
  name: string,
  namespace: string,
  leaseName: string,
  labels?: Record<string, string>,
): Role {
  const get = accessVerbs.leases.filter((v) => v !== "create");
  return leaseRole(name, namespace, [{ verbs: ["create"] }, { verbs: get, resourceNames: [leaseName] }], labels);
}

/**
 * The namespaced Role a sharding group's members need on their Leases: each creates its own (named after its Pod, so
 * no resourceNames can pin them), renews it (update), reads the group's (a labelled list) and deletes its own when it
 * leaves; runtime/sharding's lease-store.ts makes exactly these calls. No get, no watch.
 */
export function shardingRole(name: string, namespace: string, labels?: Record<string, string>): Role {
  return leaseRole(name, namespace, [{ verbs: ["create", "delete", "list", "update"] }], labels);
}

/**
 * Normalises rules: each resource's verbs are unioned within its API group (and resourceNames set), resources with the
 * same verbs share one rule, and everything is sorted (core group "" first, then group, resources, verbs), so the
 * output is deterministic whatever order controllers and kinds come in.
 */
export function mergeRules(rules: readonly PolicyRule[]): PolicyRule[] {
  // group \0 resourceNames -> resource -> verbs
  const byScope = new Map<string, Map<string, Set<string>>>();
  for (const rule of rules) {
    const names = [...new Set(rule.resourceNames ?? [])].sort();
    for (const group of rule.apiGroups) {
      const scope = `${group}\0${names.join(",")}`;
      let resources = byScope.get(scope);
      if (!resources) byScope.set(scope, (resources = new Map<string, Set<string>>()));
      for (const resource of rule.resources) {
        let verbs = resources.get(resource);
        if (!verbs) resources.set(resource, (verbs = new Set()));
        for (const verb of rule.verbs) verbs.add(verb);
      }
    }
  }
  const merged: PolicyRule[] = [];
  for (const [scope, resources] of byScope) {
    const [group = "", namesText = ""] = scope.split("\0");
    const names = namesText ? namesText.split(",") : [];
    const byVerbs = new Map<string, string[]>();
    for (const [resource, verbs] of resources) {
      const key = [...verbs].sort().join(",");
      byVerbs.set(key, [...(byVerbs.get(key) ?? []), resource]);
    }
    for (const [verbs, resourceList] of byVerbs) {
      merged.push({
        apiGroups: [group],
        resources: resourceList.sort(),
        ...(names.length ? { resourceNames: names } : {}),
        verbs: verbs.split(","),
      });
    }
  }
  return merged.sort(compareRules);
}

const eventsResource: ResourceDescriptor = {
  group: "events.k8s.io",
  version: "v1",
  plural: "events",
  kind: "Event",
  namespaced: true,
};

function withExtras(extra: Partial<AccessVerbs> = {}): AccessVerbs {
  const out = {} as AccessVerbs;
  for (const key of Object.keys(accessVerbs) as Array<keyof AccessVerbs>)
    out[key] = [...new Set([...accessVerbs[key], ...(extra[key] ?? [])])];
  return out;
}

function compareRules(a: PolicyRule, b: PolicyRule): number {
  const key = (r: PolicyRule) => [
    r.apiGroups.join(","),
    r.resources.join(","),
    (r.resourceNames ?? []).join(","),
    r.verbs.join(","),
  ];
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) {
    const c = ka[i]! < kb[i]! ? -1 : ka[i]! > kb[i]! ? 1 : 0;
    if (c !== 0) return c;
  }
  return 0;
}
