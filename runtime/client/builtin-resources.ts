// Descriptors of the built-in kinds operators most often own, for ResourceClient (no discovery round trip needed),
// each typed with client-node's class of the kind, as controller-runtime's client knows appsv1.Deployment and the rest.
import type {
  CoreV1Event,
  V1ConfigMap,
  V1CronJob,
  V1Deployment,
  V1Job,
  V1Lease,
  V1Namespace,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodDisruptionBudget,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
} from "@kubernetes/client-node";
import type { ResourceDescriptor } from "./types.js";

/** The object type of each built-in descriptor. */
interface BuiltinObjects {
  configMaps: V1ConfigMap;
  secrets: V1Secret;
  services: V1Service;
  pods: V1Pod;
  persistentVolumeClaims: V1PersistentVolumeClaim;
  serviceAccounts: V1ServiceAccount;
  events: CoreV1Event;
  namespaces: V1Namespace;
  statefulSets: V1StatefulSet;
  deployments: V1Deployment;
  jobs: V1Job;
  cronJobs: V1CronJob;
  podDisruptionBudgets: V1PodDisruptionBudget;
  leases: V1Lease;
}

const core = <const P extends string, const K extends string>(plural: P, kind: K) =>
  ({ group: "", version: "v1", plural, kind, namespaced: true }) as const;

const descriptors = {
  configMaps: core("configmaps", "ConfigMap"),
  secrets: core("secrets", "Secret"),
  services: core("services", "Service"),
  pods: core("pods", "Pod"),
  persistentVolumeClaims: core("persistentvolumeclaims", "PersistentVolumeClaim"),
  serviceAccounts: core("serviceaccounts", "ServiceAccount"),
  events: core("events", "Event"),
  namespaces: { group: "", version: "v1", plural: "namespaces", kind: "Namespace", namespaced: false },
  statefulSets: { group: "apps", version: "v1", plural: "statefulsets", kind: "StatefulSet", namespaced: true },
  deployments: { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true },
  jobs: { group: "batch", version: "v1", plural: "jobs", kind: "Job", namespaced: true },
  cronJobs: { group: "batch", version: "v1", plural: "cronjobs", kind: "CronJob", namespaced: true },
  podDisruptionBudgets: {
    group: "policy",
    version: "v1",
    plural: "poddisruptionbudgets",
    kind: "PodDisruptionBudget",
    namespaced: true,
  },
  leases: { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true },
} as const satisfies Record<keyof BuiltinObjects, ResourceDescriptor>;

/** Each descriptor keeps its literal fields (kind "Deployment", namespaced true) and gains its object type. */
export const builtinResources: {
  readonly [N in keyof BuiltinObjects]: (typeof descriptors)[N] & ResourceDescriptor<BuiltinObjects[N]>;
} = descriptors;
