// The operator's RBAC, least privilege: what its controllers declare (Controller.access) plus the status subresource
// their CRDs have; its leader election Lease only (or, sharded, its group's member Leases); the secure metrics server's
// TokenReview and SubjectAccessReview.
import type { KubernetesObject, ResourceDescriptor } from "../client/types.js";
import { Controller } from "../controller/controller.js";
import type { ManagedController } from "../manager/manager.js";
import {
  clusterRoleFor,
  leaderElectionRole,
  metricsAuthClusterRole,
  metricsReaderClusterRole,
  roleFor,
  shardingRole,
  type ControllerAccess,
} from "../manager/rbac.js";
import type { DeployNames, DeployOptions } from "./options.js";

/** A controller whose access cannot be read, or a combination RBAC cannot express. */
export class DeployError extends Error {
  override name = "DeployError";
}

interface CrdView {
  spec?: {
    group?: string;
    names?: { plural?: string };
    versions?: Array<{ name?: string; subresources?: { status?: unknown } }>;
  };
}

/** Has the CRD of `resource` (among crds) a status subresource in resource.version? Built-in kinds: false. */
function hasStatus(resource: ResourceDescriptor, crds: readonly KubernetesObject[]): boolean {
  const crd = (crds as readonly CrdView[]).find(
    (c) => c.spec?.group === resource.group && c.spec.names?.plural === resource.plural,
  );
  const version = crd?.spec?.versions?.find((v) => v.name === resource.version);
  return version?.subresources?.status !== undefined;
}

/** What each controller touches, read from the controllers themselves and the CRDs they serve. */
export function controllerAccess(
  controllers: readonly ManagedController[],
  crds: readonly KubernetesObject[],
): ControllerAccess[] {
  return controllers.map((c) => {
    if (!(c instanceof Controller))
      throw new DeployError(
        "a controller is not a runtime Controller, so what it touches is unknown: list its kinds in rbac.extraRules",
      );
    const access = c.access();
    return { ...access, status: hasStatus(access.resource, crds) };
  });
}

const binding = (kind: "RoleBinding" | "ClusterRoleBinding", names: DeployNames, role: KubernetesObject) => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind,
  metadata: {
    name: role.metadata!.name!,
    ...(role.metadata?.namespace ? { namespace: role.metadata.namespace } : {}),
    labels: names.labels,
  },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: role.kind!, name: role.metadata!.name! },
  subjects: [names.serviceAccount],
});

/** The controllers' role: a ClusterRole, or with watchNamespaces a Role in each (and nothing cluster-wide). */
export function managerRbac(names: DeployNames, options: DeployOptions): KubernetesObject[] {
  const access = controllerAccess(options.controllers, options.crds);
  const rbac = { ...options.rbac, labels: names.labels };
  const namespaces = options.watchNamespaces ?? [];
  if (namespaces.length === 0) {
    const role = clusterRoleFor(`${names.name}-manager`, access, rbac);
    return [role, binding("ClusterRoleBinding", names, role)];
  }
  const clusterScoped = access.flatMap((a) => [a.resource, ...(a.owns ?? []), ...(a.watches ?? [])]);
  const first = clusterScoped.find((r) => !r.namespaced);
  if (first)
    throw new DeployError(
      `${first.kind} is cluster-scoped: a Role per watched namespace cannot grant it; leave watchNamespaces empty`,
    );
  return namespaces.flatMap((namespace) => {
    const role = roleFor(`${names.name}-manager`, namespace, access, rbac);
    return [role, binding("RoleBinding", names, role)];
  });
}

/** Leases in the operator's namespace, get/update on its own Lease only. */
export function leaderElectionRbac(names: DeployNames): KubernetesObject[] {
  const role = leaderElectionRole(`${names.name}-leader-election`, names.namespace, names.name, names.labels);
  return [role, binding("RoleBinding", names, role)];
}

/** The sharding group's member Leases in the operator's namespace (shardingRole); nothing cluster-wide. */
export function shardingRbac(names: DeployNames): KubernetesObject[] {
  const role = shardingRole(`${names.name}-sharding`, names.namespace, names.labels);
  return [role, binding("RoleBinding", names, role)];
}

/** The metrics server's checks of a scraper, and the role (bound to nobody) a scraper needs. */
export function metricsRbac(names: DeployNames): { auth: KubernetesObject[]; reader: KubernetesObject[] } {
  const auth = metricsAuthClusterRole(`${names.name}-metrics-auth`, names.labels);
  return {
    auth: [auth, binding("ClusterRoleBinding", names, auth)],
    reader: [metricsReaderClusterRole(`${names.name}-metrics-reader`, names.labels)],
  };
}
