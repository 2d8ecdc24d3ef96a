// The sample's whole story on a real node (startControlPlane({ node: "real" })): the operator deployed in-cluster with
// two replicas, a MySQLCluster of real MariaDB servers, a login with the generated root password, scaling, a rolling
// version change between the two MariaDB images, a deleted database Pod recovering, a backup Job writing a real
// mysqldump and a new cluster restored from it, and a leader election handover. Each step waits for what it claims and
// throws, naming what it waited for, when that does not happen; what it saw goes to `report` (the demo prints it, the
// test in test/real-node/mysql.test.ts asserts on it).
import { readFileSync } from "node:fs";
import path from "node:path";
import type { V1Container, V1CronJob, V1Deployment, V1Job, V1Lease, V1Pod, V1Secret } from "@kubernetes/client-node";
import { ResourceClient, builtinResources as kinds, ignoreNotFound, type KubeClient } from "@crdgen/runtime";
import { controlPlaneCacheDir, startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { PollTimeoutError, pollUntil } from "@crdgen/runtime/wait";
import { newMySQLClusterClient } from "../generated/example.com/v1/mysqlcluster.client.js";
import type { MySQLCluster } from "../generated/example.com/v1/mysqlcluster.types.js";
import { deployInCluster } from "./deploy-in-cluster.js";
import { deployment } from "./deploy-manifests.js";

/** images.sh's names of the images a real node needs for the story (pause comes with every node). */
const storyImages = ["debian", "mariadb", "mariadb-trixie", "operator"];

/** The image name images.sh wrote for one of its archives (<cache>/images/<name>.oci.tar.image). */
export function cachedImage(name: string): string {
  const file = path.resolve(controlPlaneCacheDir(), "../../images", `${name}.oci.tar.image`);
  try {
    return readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new Error(`no ${name} image in crdgen's cache (${file}): run npm run images:build`, { cause: error });
  }
}

/** localhost/crdgen/mariadb:10.11.14 -> { repository: localhost/crdgen/mariadb, version: 10.11.14 } */
function splitImage(image: string): { repository: string; version: string } {
  const colon = image.lastIndexOf(":");
  return { repository: image.slice(0, colon), version: image.slice(colon + 1) };
}

export type Report = (step: string, facts: Record<string, unknown>) => void;

/** Polls check every second until it returns a value; an error counts as "not yet" and is named on timeout. */
async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  let lastError: unknown;
  const attempt = () =>
    check().catch((error: unknown) => {
      lastError = error;
      return undefined;
    });
  return pollUntil(attempt, { intervalMs: 1000, timeoutMs, what }).catch((error: unknown) => {
    if (!(error instanceof PollTimeoutError) || !(lastError instanceof Error)) throw error;
    throw new Error(`${error.message} (last error: ${lastError.message})`);
  });
}

const minutes = (n: number) => n * 60_000;
const ready = (p: V1Pod) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
const readyCondition = (c: MySQLCluster) => c.status?.conditions?.find((x) => x.type === "Ready");

/** The story's clients, on the admin identity. */
function clients(kube: KubeClient, namespace: string) {
  return {
    clusters: newMySQLClusterClient(kube).namespace(namespace),
    pods: new ResourceClient<V1Pod>(kube, kinds.pods),
    jobs: new ResourceClient<V1Job>(kube, kinds.jobs),
    cronJobs: new ResourceClient<V1CronJob>(kube, kinds.cronJobs),
    secrets: new ResourceClient<V1Secret>(kube, kinds.secrets),
    deployments: new ResourceClient<V1Deployment>(kube, kinds.deployments),
    leases: new ResourceClient<V1Lease>(kube, kinds.leases),
  };
}
type Clients = ReturnType<typeof clients>;

/**
 * Runs a one-off Pod of `image` to completion and returns its output (the container writes it to its termination
 * message). Its environment carries the cluster's root password from its Secret, never the script text.
 */
async function runPod(
  c: Clients,
  namespace: string,
  name: string,
  container: Omit<V1Container, "name">,
  volumes: NonNullable<V1Pod["spec"]>["volumes"] = [],
): Promise<{ exitCode: number; output: string }> {
  await c.pods.delete(namespace, name).catch(ignoreNotFound);
  await waitFor(`the previous Pod ${name} to be gone`, minutes(1), async () =>
    (await c.pods.get(namespace, name).catch(ignoreNotFound)) ? undefined : true,
  );
  await c.pods.create(namespace, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace },
    spec: {
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 5,
      containers: [{ name: "run", terminationMessagePolicy: "FallbackToLogsOnError", ...container }],
      volumes,
    },
  });
  const done = await waitFor(`Pod ${namespace}/${name} to finish`, minutes(3), async () => {
    const p = await c.pods.get(namespace, name);
    return p.status?.phase === "Succeeded" || p.status?.phase === "Failed" ? p : undefined;
  });
  const terminated = done.status?.containerStatuses?.[0]?.state?.terminated;
  await c.pods.delete(namespace, name).catch(() => undefined);
  return { exitCode: terminated?.exitCode ?? -1, output: (terminated?.message ?? "").trim() };
}

/** Runs SQL against `host` (a Service or pod DNS name) as root with the password of `secret`'s key `password`. */
async function sql(
  c: Clients,
  namespace: string,
  image: string,
  host: string,
  secret: string,
  query: string,
  podName = "sql-client",
) {
  return runPod(c, namespace, podName, {
    image,
    env: [
      { name: "MYSQL_PWD", valueFrom: { secretKeyRef: { name: secret, key: "password" } } },
      { name: "HOST", value: host },
      { name: "QUERY", value: query },
    ],
    command: ["sh", "-c", 'mysql -h "$HOST" -uroot -N -B -e "$QUERY" >/dev/termination-log 2>&1'],
  });
}

/** Waits until the cluster reports Ready for `replicas` instances running `version` (status from real readiness). */
async function clusterReady(c: Clients, name: string, replicas: number, version: string, timeoutMs: number) {
  return waitFor(`MySQLCluster ${name} Ready with ${replicas} ready replicas on ${version}`, timeoutMs, async () => {
    const db = await c.clusters.get(name);
    const ok =
      db.status?.observedGeneration === db.metadata.generation &&
      readyCondition(db)?.status === "True" &&
      db.status?.readyReplicas === replicas &&
      db.status.currentVersion === version;
    return ok ? db : undefined;
  });
}

async function podsOf(c: Clients, namespace: string, cluster: string): Promise<V1Pod[]> {
  const list = await c.pods.list(namespace, { labelSelector: `app.kubernetes.io/instance=${cluster}` });
  return list.items.filter((p) => p.metadata?.ownerReferences?.some((o) => o.kind === "StatefulSet"));
}

/** The operator Pod holding the Lease: its identity is <hostname>_<uuid>, and a Pod's hostname is its name. */
async function leaderOf(c: Clients): Promise<string | undefined> {
  const lease = await c.leases.get(deployment.namespace, deployment.leaseName);
  return lease.spec?.holderIdentity?.split("_")[0] || undefined;
}

interface StoryOptions {
  kube: KubeClient;
  kubeconfigPath: string;
  report: Report;
}

export interface RealNodeRun {
  /** Called once the control plane and its node run (the demo prints where they are). */
  started?: (plane: ControlPlane) => void;
  /** Each step's facts, and the seconds since the story began. */
  report: (step: string, facts: Record<string, unknown>, seconds: number) => void;
  /** Called before the plane stops, whether the story passed or failed. */
  stopping?: () => void;
}

/**
 * Starts a control plane with a real node and the story's images, runs the story on it, and stops the plane however
 * the story ends; resolves with the plane's folder and node name (to check what the stop left behind).
 */
export async function runRealNodeStoryOnNewPlane(run: RealNodeRun): Promise<{ dir: string; nodeName: string }> {
  const plane = await startControlPlane({ node: "real", nodeImages: storyImages });
  run.started?.(plane);
  // Read before the stop, which forgets the node.
  const ran = { dir: plane.dir, nodeName: plane.realNodeName ?? "" };
  const began = Date.now();
  try {
    await runRealNodeStory({
      kube: plane.kubeClient(),
      kubeconfigPath: plane.kubeconfigPath,
      report: (step, facts) => run.report(step, facts, (Date.now() - began) / 1000),
    });
  } finally {
    run.stopping?.();
    await plane.stop();
  }
  return ran;
}

/** The whole story, in order; resolves once every step saw what it waited for. */
async function runRealNodeStory({ kube, kubeconfigPath, report }: StoryOptions): Promise<void> {
  const namespace = deployment.watchNamespaces[0];
  const c = clients(kube, namespace);
  const operatorImage = cachedImage("operator");
  const older = splitImage(cachedImage("mariadb"));
  const newer = splitImage(cachedImage("mariadb-trixie"));
  const client = `${older.repository}:${older.version}`;

  // 1. The operator in-cluster: 2 replicas, one leader.
  await deployInCluster(kubeconfigPath, { image: operatorImage, replicas: 2 });
  const operator = await waitFor("the operator Deployment available with 2 ready replicas", minutes(5), async () => {
    const d = await c.deployments.get(deployment.namespace, deployment.name);
    return d.status?.readyReplicas === 2 && d.status.observedGeneration === d.metadata?.generation ? d : undefined;
  });
  const firstLeader = await waitFor("a leader in Lease mysql-operator", minutes(2), () => leaderOf(c));
  report("operator deployed in-cluster", {
    image: operatorImage,
    readyReplicas: operator.status?.readyReplicas,
    leader: firstLeader,
  });

  // 2. A cluster of 3 real servers; Ready from their readiness probes.
  /** A cluster of the older MariaDB whose volumes go with it. */
  const createCluster = (name: string, spec: Partial<NonNullable<MySQLCluster["spec"]>>) =>
    c.clusters.create({
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name, namespace },
      spec: {
        version: older.version,
        imageRepository: older.repository,
        storage: { size: "1Gi", reclaimPolicy: "Delete" },
        ...spec,
      },
    });
  await createCluster("db", { replicas: 3, backup: { schedule: "0 3 * * *", storageSize: "1Gi" } });
  let db = await clusterReady(c, "db", 3, older.version, minutes(10));
  const pods = await podsOf(c, namespace, "db");
  report("MySQLCluster db Ready", {
    phase: db.status?.phase,
    readyReplicas: db.status?.readyReplicas,
    currentVersion: db.status?.currentVersion,
    podsReady: pods.filter(ready).map((p) => p.metadata?.name),
  });

  // 3. The generated root password logs in through the client Service; a wrong one is refused.
  const secret = db.status?.rootPasswordSecret ?? "db-root";
  const login = await sql(
    c,
    namespace,
    client,
    "db",
    secret,
    "CREATE DATABASE shop; CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20));" +
      " INSERT INTO shop.items VALUES (1, 'teapot'); SELECT VERSION(); SELECT name FROM shop.items;",
  );
  await c.secrets.create(namespace, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "wrong-password", namespace },
    stringData: { password: "not-the-password" },
  });
  const refused = await sql(c, namespace, client, "db", "wrong-password", "SELECT 1", "sql-refused");
  report("root login through Service db", { exitCode: login.exitCode, output: login.output, refused });

  // 4. Scaling 3 -> 5 -> 3.
  await c.clusters.patch("db", { type: "merge", body: { spec: { replicas: 5 } } });
  await clusterReady(c, "db", 5, older.version, minutes(10));
  const atFive = (await podsOf(c, namespace, "db")).filter(ready).length;
  await c.clusters.patch("db", { type: "merge", body: { spec: { replicas: 3 } } });
  db = await clusterReady(c, "db", 3, older.version, minutes(5));
  await waitFor("pods db-3 and db-4 gone", minutes(3), async () =>
    (await podsOf(c, namespace, "db")).length === 3 ? true : undefined,
  );
  report("scaled 3 -> 5 -> 3", { readyAtFive: atFive, readyAfter: db.status?.readyReplicas });

  // 5. The backup CronJob's Job (started now, as `kubectl create job --from=cronjob/db-backup` does) writes a dump.
  const cronJob = await c.cronJobs.get(namespace, "db-backup");
  await c.jobs.create(namespace, {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "db-backup-now", namespace, labels: cronJob.spec?.jobTemplate.metadata?.labels },
    spec: cronJob.spec!.jobTemplate.spec!,
  });
  const job = await waitFor("Job db-backup-now to finish", minutes(5), async () => {
    const j = await c.jobs.get(namespace, "db-backup-now");
    return (j.status?.succeeded ?? 0) > 0 || (j.status?.failed ?? 0) > 1 ? j : undefined;
  });
  const listing = await runPod(
    c,
    namespace,
    "backup-listing",
    {
      image: client,
      command: [
        "sh",
        "-c",
        'for f in /backup/*.sql.gz; do echo "$(basename "$f") $(gzip -dc "$f" | grep -c teapot)"; done >/dev/termination-log',
      ],
      volumeMounts: [{ name: "backup", mountPath: "/backup", readOnly: true }],
    },
    [{ name: "backup", persistentVolumeClaim: { claimName: "db-backup", readOnly: true } }],
  );
  report("backup Job wrote a mysqldump", {
    succeeded: job.status?.succeeded ?? 0,
    files: listing.output.split("\n").filter(Boolean),
  });

  // 6. A new cluster restored from that dump has the data, and its own root password.
  await createCluster("db-restored", { replicas: 1, restoreFrom: { claimName: "db-backup" } });
  const restored = await clusterReady(c, "db-restored", 1, older.version, minutes(10));
  const restoredRows = await sql(
    c,
    namespace,
    client,
    "db-restored",
    restored.status?.rootPasswordSecret ?? "db-restored-root",
    "SELECT name FROM shop.items;",
  );
  report("db-restored restored from the dump", { output: restoredRows.output, exitCode: restoredRows.exitCode });

  // 7. A rolling version change to the newer MariaDB; highest ordinal first, the data stays.
  await c.clusters.patch("db", { type: "merge", body: { spec: { version: newer.version } } });
  db = await clusterReady(c, "db", 3, newer.version, minutes(15));
  const images = (await podsOf(c, namespace, "db")).map((p) => p.spec?.containers[0]?.image);
  const afterUpgrade = await sql(c, namespace, client, "db", secret, "SELECT VERSION(); SELECT name FROM shop.items;");
  report(`rolled ${older.version} -> ${newer.version}`, {
    currentVersion: db.status?.currentVersion,
    images,
    output: afterUpgrade.output,
  });

  // 8. A deleted database Pod comes back and the cluster is Ready again.
  const victim = await c.pods.get(namespace, "db-1");
  await c.pods.delete(namespace, "db-1");
  const back = await waitFor("db-1 back and Ready", minutes(5), async () => {
    const p = await c.pods.get(namespace, "db-1");
    return p.metadata?.uid !== victim.metadata?.uid && ready(p) ? p : undefined;
  });
  db = await clusterReady(c, "db", 3, newer.version, minutes(5));
  report("deleted Pod db-1 recovered", {
    oldUid: victim.metadata?.uid,
    newUid: back.metadata?.uid,
    readyReplicas: db.status?.readyReplicas,
  });

  // 9. Deleting the leading operator Pod hands the Lease to the other one, which keeps reconciling.
  const leader = await waitFor("a leader in Lease mysql-operator", minutes(1), () => leaderOf(c));
  await c.pods.delete(deployment.namespace, leader);
  const next = await waitFor("another holder of Lease mysql-operator", minutes(3), async () => {
    const holder = await leaderOf(c);
    return holder && holder !== leader ? holder : undefined;
  });
  await c.clusters.patch("db", { type: "merge", body: { spec: { backup: { schedule: "30 4 * * *" } } } });
  const followed = await waitFor("the new leader to update CronJob db-backup", minutes(2), async () => {
    const cj = await c.cronJobs.get(namespace, "db-backup");
    return cj.spec?.schedule === "30 4 * * *" ? cj.spec.schedule : undefined;
  });
  report("leader handover", { deleted: leader, newLeader: next, cronJobSchedule: followed });
}
