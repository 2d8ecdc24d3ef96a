// User-owned: the objects a MySQLCluster runs as, computed from its spec alone (test/e2e/mysql-behaviours.test.ts
// checks each).
import type {
  V1Affinity,
  V1ConfigMap,
  V1Container,
  V1CronJob,
  V1PersistentVolumeClaim,
  V1PodDisruptionBudget,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1VolumeMount,
} from "@kubernetes/client-node";
import { contentHash, controllerOwnerReference, type ApplyConfiguration } from "@crdgen/runtime";
import type { MySQLCluster } from "../generated/example.com/v1/mysqlcluster.types.js";

/** The operator's name: its server-side apply field manager and the managed-by label value. */
export const operatorName = "mysql-operator";
export const configHashAnnotation = "example.com/config-hash";
export const generatedSecretAnnotation = "example.com/generated";

/** Names of a cluster's children. */
export function childNames(clusterName: string) {
  return {
    rootSecret: `${clusterName}-root`,
    config: `${clusterName}-config`,
    serviceAccount: clusterName,
    headless: `${clusterName}-headless`,
    client: clusterName,
    statefulSet: clusterName,
    pdb: clusterName,
    backup: `${clusterName}-backup`,
  };
}

/** Labels that select the cluster's pods: never extended later (selectors are immutable). */
export function selectorLabels(obj: MySQLCluster): Record<string, string> {
  return { "app.kubernetes.io/name": "mysql", "app.kubernetes.io/instance": obj.metadata.name! };
}

/** Labels on every child. */
export function commonLabels(obj: MySQLCluster): Record<string, string> {
  return {
    ...selectorLabels(obj),
    "app.kubernetes.io/component": "database",
    "app.kubernetes.io/managed-by": operatorName,
  };
}

/** "app.kubernetes.io/instance=db,app.kubernetes.io/name=mysql": status.selector for the scale subresource. */
export function selectorString(obj: MySQLCluster): string {
  return Object.entries(selectorLabels(obj))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

function meta(obj: MySQLCluster, name: string, owned = true) {
  return {
    name,
    namespace: obj.metadata.namespace!,
    labels: commonLabels(obj),
    ...(owned ? { ownerReferences: [controllerOwnerReference(obj)] } : {}),
  };
}

const deleteOnReclaim = (obj: MySQLCluster) => obj.spec?.storage?.reclaimPolicy === "Delete";

/**
 * The generated root password Secret without its data: labels, annotation and (with reclaimPolicy Delete only, since
 * the password must outlive retained data) the ownerReference. Its data is written once, by rootSecretData.
 */
export function rootSecretMetadata(obj: MySQLCluster): ApplyConfiguration<V1Secret> {
  const m = meta(obj, childNames(obj.metadata.name!).rootSecret, deleteOnReclaim(obj));
  return { apiVersion: "v1", kind: "Secret", metadata: { ...m, annotations: { [generatedSecretAnnotation]: "true" } } };
}

/** The generated Secret's data, applied once under its own field manager so later applies never touch it. */
export function rootSecretData(obj: MySQLCluster, password: string): ApplyConfiguration<V1Secret> {
  const name = childNames(obj.metadata.name!).rootSecret;
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: obj.metadata.namespace! },
    type: "Opaque",
    data: { password: Buffer.from(password).toString("base64") },
  };
}

export function configMap(obj: MySQLCluster): ApplyConfiguration<V1ConfigMap> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: meta(obj, childNames(obj.metadata.name!).config),
    data: configData(obj),
  };
}

/** my.cnf fragments: the operator's defaults, then the user's text. Their hash rolls the pods when they change. */
export function configData(obj: MySQLCluster): Record<string, string> {
  return {
    "00-operator.cnf": "[mysqld]\nskip-name-resolve\nlog-error-verbosity=2\n",
    "99-user.cnf": obj.spec?.myCnf ?? "",
  };
}

export function serviceAccount(obj: MySQLCluster): ApplyConfiguration<V1ServiceAccount> {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: meta(obj, childNames(obj.metadata.name!).serviceAccount),
    automountServiceAccountToken: false,
  };
}

export function headlessService(obj: MySQLCluster): ApplyConfiguration<V1Service> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta(obj, childNames(obj.metadata.name!).headless),
    // Stable per-instance DNS names (<name>-<ordinal>.<name>-headless), also before an instance is ready.
    spec: {
      clusterIP: "None",
      publishNotReadyAddresses: true,
      selector: selectorLabels(obj),
      ports: [{ name: "mysql", port: 3306, protocol: "TCP" }],
    },
  };
}

export function clientService(obj: MySQLCluster): ApplyConfiguration<V1Service> {
  const name = obj.metadata.name!;
  const annotations = obj.spec?.service?.annotations;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      ...meta(obj, childNames(name).client),
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec: {
      type: obj.spec?.service?.type ?? "ClusterIP",
      // Only the primary (ordinal 0) until replication exists, so writes never split across independent servers.
      selector: { ...selectorLabels(obj), "statefulset.kubernetes.io/pod-name": `${name}-0` },
      ports: [
        { name: "mysql", port: 3306, targetPort: "mysql", protocol: "TCP" },
        { name: "mysqlx", port: 33060, targetPort: "mysqlx", protocol: "TCP" },
      ],
    },
  };
}

/** The image a version runs: <imageRepository>:<version>. */
export function imageOf(obj: MySQLCluster, version: string): string {
  return `${obj.spec?.imageRepository ?? "mysql"}:${version}`;
}

/** Where the root password comes from: the user's Secret, or the generated one. */
export function rootPasswordRef(obj: MySQLCluster): { name: string; key: string } {
  const ref = obj.spec?.rootPasswordSecretRef;
  return ref
    ? { name: ref.name, key: ref.key ?? "password" }
    : { name: childNames(obj.metadata.name!).rootSecret, key: "password" };
}

/**
 * The restore init step, `sh -c restoreScript restore <data dir> <dump folder> <initdb folder>`, with RESTORE_FILE
 * (empty: the newest *.sql.gz) and RESTORE_CLAIM (for the message) in its environment. On an instance's first start
 * (no mysql schema in the data dir yet) it stages the dump in the initdb folder, which the mysql image's entrypoint
 * loads before the server listens on the network; later starts keep their data. The names come from the validated
 * spec and still reach the shell only as variables, never as script text.
 */
export const restoreScript = [
  "set -eu",
  'data="$1" dumps="$2" initdb="$3"',
  'if [ -d "$data/mysql" ]; then echo "restore: $data is initialised already, nothing to load"; exit 0; fi',
  'if [ -n "${RESTORE_FILE:-}" ]; then dump="$dumps/$RESTORE_FILE"',
  'else dump="$(ls -1 "$dumps"/*.sql.gz 2>/dev/null | LC_ALL=C sort | tail -n 1)"; fi',
  'if [ -z "$dump" ] || [ ! -f "$dump" ]; then',
  '  echo "restore: no dump ${RESTORE_FILE:-*.sql.gz} in PersistentVolumeClaim $RESTORE_CLAIM" >&2; exit 1',
  "fi",
  'cp "$dump" "$initdb/"',
  'echo "restore: $(basename "$dump") from PersistentVolumeClaim $RESTORE_CLAIM staged for the first start"',
].join("\n");

/** Where the restore step mounts the dump's claim, and the initdb folder the mysql image's entrypoint reads. */
export const restorePaths = { dumps: "/restore", initdb: "/docker-entrypoint-initdb.d" };

/** The pod template's additions for spec.restoreFrom: the init step, its volumes and the server's initdb mount. */
function restoreParts(obj: MySQLCluster, image: string) {
  const from = obj.spec?.restoreFrom;
  if (!from) return undefined;
  const initdbMount = { name: "initdb", mountPath: restorePaths.initdb };
  return {
    initContainer: {
      name: "restore",
      image,
      command: ["sh", "-c", restoreScript, "restore", "/var/lib/mysql", restorePaths.dumps, restorePaths.initdb],
      env: [
        { name: "RESTORE_CLAIM", value: from.claimName },
        { name: "RESTORE_FILE", value: from.file ?? "" },
      ],
      volumeMounts: [
        { name: "data", mountPath: "/var/lib/mysql", readOnly: true },
        { name: "restore", mountPath: restorePaths.dumps, readOnly: true },
        initdbMount,
      ],
    },
    serverMount: initdbMount,
    volumes: [
      { name: "initdb", emptyDir: {} },
      { name: "restore", persistentVolumeClaim: { claimName: from.claimName, readOnly: true } },
    ],
  };
}

/** The StatefulSet. `version` is what to run: spec.version, or the running one when a downgrade is refused. */
export function statefulSet(obj: MySQLCluster, version: string): ApplyConfiguration<V1StatefulSet> {
  const names = childNames(obj.metadata.name!);
  const storage = obj.spec?.storage;
  const restore = restoreParts(obj, imageOf(obj, version));
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: meta(obj, names.statefulSet),
    spec: {
      replicas: obj.spec?.replicas ?? 1,
      serviceName: names.headless,
      // Ordinal 0, the primary, starts first; rolling updates go highest ordinal first, so the primary restarts last.
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate" },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: storage?.reclaimPolicy ?? "Retain", whenScaled: "Retain" },
      selector: { matchLabels: selectorLabels(obj) },
      template: {
        metadata: {
          labels: { ...commonLabels(obj), "app.kubernetes.io/version": version },
          annotations: { [configHashAnnotation]: contentHash(configData(obj)) },
        },
        spec: {
          serviceAccountName: names.serviceAccount,
          securityContext: { fsGroup: 999 },
          terminationGracePeriodSeconds: 60,
          affinity: spreadAcrossNodes(obj),
          ...(restore ? { initContainers: [restore.initContainer] } : {}),
          containers: [mysqlContainer(obj, version, restore?.serverMount)],
          volumes: [{ name: "config", configMap: { name: names.config } }, ...(restore?.volumes ?? [])],
        },
      },
      volumeClaimTemplates: [dataVolumeClaim(obj)],
    },
  };
}

/** Instances on different nodes where the scheduler can: one node's loss then takes one instance. */
function spreadAcrossNodes(obj: MySQLCluster): V1Affinity {
  return {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: {
            topologyKey: "kubernetes.io/hostname",
            labelSelector: { matchLabels: selectorLabels(obj) },
          },
        },
      ],
    },
  };
}

/** The server: its ports, the root password from the Secret, data and config mounts, and its probes. */
function mysqlContainer(obj: MySQLCluster, version: string, restoreMount: V1VolumeMount | undefined): V1Container {
  const password = rootPasswordRef(obj);
  const mysqlping = ["mysqladmin", "ping", "-h", "127.0.0.1"];
  return {
    name: "mysql",
    image: imageOf(obj, version),
    ports: [
      { name: "mysql", containerPort: 3306, protocol: "TCP" },
      { name: "mysqlx", containerPort: 33060, protocol: "TCP" },
    ],
    env: [{ name: "MYSQL_ROOT_PASSWORD", valueFrom: { secretKeyRef: { name: password.name, key: password.key } } }],
    ...(obj.spec?.resources ? { resources: obj.spec.resources as never } : {}),
    volumeMounts: [
      { name: "data", mountPath: "/var/lib/mysql" },
      { name: "config", mountPath: "/etc/mysql/conf.d" },
      ...(restoreMount ? [restoreMount] : []),
    ],
    startupProbe: { exec: { command: mysqlping }, periodSeconds: 10, failureThreshold: 60 },
    livenessProbe: { exec: { command: mysqlping }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 },
    readinessProbe: {
      exec: { command: ["sh", "-c", 'MYSQL_PWD="$MYSQL_ROOT_PASSWORD" mysql -h 127.0.0.1 -uroot -e "SELECT 1"'] },
      periodSeconds: 5,
      timeoutSeconds: 5,
    },
  };
}

/** Each instance's data volume: spec.storage's size (default 1Gi) and class. */
function dataVolumeClaim(obj: MySQLCluster): V1PersistentVolumeClaim {
  const storage = obj.spec?.storage;
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "data" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: String(storage?.size ?? "1Gi") } },
      ...(storage?.storageClassName ? { storageClassName: storage.storageClassName } : {}),
    },
  };
}

export function podDisruptionBudget(obj: MySQLCluster): ApplyConfiguration<V1PodDisruptionBudget> {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: meta(obj, childNames(obj.metadata.name!).pdb),
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(obj) } },
  };
}

export function backupVolume(obj: MySQLCluster): ApplyConfiguration<V1PersistentVolumeClaim> {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: meta(obj, childNames(obj.metadata.name!).backup, deleteOnReclaim(obj)),
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: String(obj.spec?.backup?.storageSize ?? "5Gi") } },
    },
  };
}

export function backupCronJob(obj: MySQLCluster, version: string): ApplyConfiguration<V1CronJob> {
  const name = obj.metadata.name!;
  const backup = obj.spec!.backup!;
  const password = rootPasswordRef(obj);
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: meta(obj, childNames(name).backup),
    spec: {
      schedule: backup.schedule,
      suspend: backup.suspend ?? false,
      concurrencyPolicy: "Forbid",
      successfulJobsHistoryLimit: backup.successfulJobsHistoryLimit ?? 3,
      failedJobsHistoryLimit: 1,
      jobTemplate: {
        spec: {
          backoffLimit: 1,
          template: {
            metadata: { labels: commonLabels(obj) },
            spec: {
              restartPolicy: "Never",
              containers: [
                {
                  name: "backup",
                  // The client matches the server: the same image.
                  image: imageOf(obj, version),
                  env: [{ name: "MYSQL_PWD", valueFrom: { secretKeyRef: { name: password.name, key: password.key } } }],
                  command: [
                    "sh",
                    "-c",
                    `mysqldump -h ${name} -uroot --single-transaction --routines --events --all-databases | gzip > /backup/${name}-$(date -u +%Y%m%dT%H%M%SZ).sql.gz`,
                  ],
                  volumeMounts: [{ name: "backup", mountPath: "/backup" }],
                },
              ],
              volumes: [{ name: "backup", persistentVolumeClaim: { claimName: childNames(name).backup } }],
            },
          },
        },
      },
    },
  };
}
