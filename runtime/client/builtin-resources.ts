// Descriptors of the built-in kinds operators most often own, for ResourceClient (no discovery round trip needed).
import type { ResourceDescriptor } from "./types.js";

const core = (plural: string, kind: string): ResourceDescriptor => ({
  group: "",
  version: "v1",
  plural,
  kind,
  namespaced: true,
});

export const builtinResources = {
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
} as const satisfies Record<string, ResourceDescriptor>;
