// The 22 testable behaviours of the MySQL operator (what it does: docs/mysql-sample.md), one test each, and
// spec.restoreFrom (23), against a real kube-apiserver + etcd. There is no kube-controller-manager here: the tests
// write the StatefulSet's status themselves, and assert ownerReferences and retention fields instead of waiting for
// garbage collection.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { ControlPlane } from "@crdgen/runtime/envtest";
import type {
  V1ConfigMap,
  V1CronJob,
  V1PersistentVolumeClaim,
  V1PodDisruptionBudget,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
} from "@kubernetes/client-node";
import {
  ApiError,
  ResourceClient,
  builtinResources as kinds,
  isNotFound,
  newLogger,
  type KubeClient,
  type KubernetesObject,
  type ResourceDescriptor,
} from "@crdgen/runtime";
import { type RequestOptions } from "@crdgen/runtime/client";
import { newMySQLClusterController } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.controller.js";
import {
  newMySQLClusterClient,
  type MySQLClusterVerbs,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import type {
  MySQLCluster,
  MySQLClusterSpec,
  MySQLClusterStatusCondition,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";
import * as hooks from "../../samples/mysql/src/mysqlcluster.hooks.js";
import { configHashAnnotation } from "../../samples/mysql/src/mysql-children.js";
import { eventually, startSampleControlPlane } from "./control-plane.js";

const NS = "default";
let plane: ControlPlane;
let admin: KubeClient;
let clusters: MySQLClusterVerbs;
const stop = new AbortController();
let running: Promise<void>;
let queueAdd: (key: string) => void;

// ---- the operator's KubeClient: records every request and can fail chosen ones ----
interface Sent {
  method: string;
  path: string;
}
const sent: Sent[] = [];
let failing: { match: (r: Sent) => boolean; status: number; times: number } | undefined;

function recordingClient(kube: KubeClient): KubeClient {
  return new Proxy(kube, {
    get(target, prop, receiver) {
      if (prop === "request") {
        return async (opts: RequestOptions) => {
          const r = { method: opts.method, path: opts.path };
          sent.push(r);
          if (failing && failing.times > 0 && failing.match(r)) {
            failing.times--;
            throw new ApiError({
              status: failing.status,
              method: r.method,
              path: r.path,
              body: {
                kind: "Status",
                apiVersion: "v1",
                status: "Failure",
                message: `injected ${failing.status} for ${r.method} ${r.path}`,
                code: failing.status,
              } as never,
            });
          }
          return target.request(opts);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const writes = (name: string, from: number) =>
  sent.slice(from).filter((r) => r.method !== "GET" && new RegExp(`/${name}(-[a-z]+)?(/status)?$`).test(r.path));

// ---- reconcile tracking: the hooks wrapped to report each finished reconcile per key ----
const finished = new Map<string, number>();
const wrappedHooks = {
  ...hooks,
  reconcile: async (ctx: Parameters<typeof hooks.reconcile>[0], obj: MySQLCluster) => {
    try {
      return await hooks.reconcile(ctx, obj);
    } finally {
      finished.set(ctx.key, (finished.get(ctx.key) ?? 0) + 1);
    }
  },
};

/** Runs one more reconcile of `name` (enqueued now) and returns the writes it sent for that cluster. */
async function reconcileOnce(name: string): Promise<Sent[]> {
  const key = `${NS}/${name}`;
  const before = finished.get(key) ?? 0;
  const mark = sent.length;
  queueAdd(key);
  await eventually(`a reconcile of ${key}`, () => ((finished.get(key) ?? 0) > before ? true : undefined));
  return writes(name, mark);
}

before(async () => {
  plane = await startSampleControlPlane();
  admin = plane.kubeClient();
  clusters = newMySQLClusterClient(admin).namespace(NS);
  const controller = newMySQLClusterController(recordingClient(plane.kubeClient()), wrappedHooks, {
    logger: newLogger({ write: () => undefined }),
  });
  queueAdd = (key) => controller.queue.add(key);
  running = controller.run(stop.signal);
});

after(async () => {
  stop.abort();
  await running;
  await (plane as ControlPlane | undefined)?.stop(); // before() may have failed before setting it
});

// ---- helpers ----
/** A client of the admin identity (created lazily: the control plane starts in before()). */
function client<T extends KubernetesObject>(r: ResourceDescriptor): ResourceClient<T> {
  let real: ResourceClient<T> | undefined;
  return new Proxy({} as ResourceClient<T>, {
    get: (_t, prop) => {
      real ??= new ResourceClient<T>(admin, r);
      const v = Reflect.get(real, prop) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(real) : v;
    },
  });
}
const sts = client<V1StatefulSet>(kinds.statefulSets);
const services = client<V1Service>(kinds.services);
const configMaps = client<V1ConfigMap>(kinds.configMaps);
const secrets = client<V1Secret>(kinds.secrets);
const pdbs = client<V1PodDisruptionBudget>(kinds.podDisruptionBudgets);
const cronJobs = client<V1CronJob>(kinds.cronJobs);
const pvcs = client<V1PersistentVolumeClaim>(kinds.persistentVolumeClaims);
const serviceAccounts = client<V1ServiceAccount>(kinds.serviceAccounts);
const maybe = <T>(p: Promise<T>): Promise<T | undefined> =>
  p.catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });

async function createCluster(name: string, spec: Partial<MySQLClusterSpec> = {}): Promise<MySQLCluster> {
  await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name },
    spec: { replicas: 3, version: "8.0.36", ...spec },
  });
  return settled(name);
}

/** Waits until status.observedGeneration equals metadata.generation and the children's events have been worked off. */
async function settled(name: string): Promise<MySQLCluster> {
  await eventually(`${name} observed`, async () => {
    const c = await clusters.get(name);
    return c.status?.observedGeneration === c.metadata.generation ? c : undefined;
  });
  // One more pass whose start follows every event so far, and which changes nothing.
  await eventually(`${name} steady`, async () => ((await reconcileOnce(name)).length === 0 ? true : undefined));
  return clusters.get(name);
}

async function patchSpec(name: string, spec: Record<string, unknown>): Promise<MySQLCluster> {
  await clusters.patch(name, { type: "merge", body: { spec } });
  return settled(name);
}

/** Plays the StatefulSet controller: writes statefulsets/status. */
async function setStsStatus(
  name: string,
  s: { replicas: number; ready: number; updated: number; current?: string; update?: string; observed?: boolean },
) {
  const live = await sts.get(NS, name);
  await sts.patchStatus(NS, name, {
    type: "merge",
    body: {
      status: {
        replicas: s.replicas,
        readyReplicas: s.ready,
        updatedReplicas: s.updated,
        currentReplicas: s.updated,
        availableReplicas: s.ready,
        currentRevision: s.current ?? "rev-1",
        updateRevision: s.update ?? s.current ?? "rev-1",
        observedGeneration: s.observed === false ? (live.metadata?.generation ?? 1) - 1 : live.metadata?.generation,
      },
    },
  });
}

const condition = (c: MySQLCluster, type: string): MySQLClusterStatusCondition | undefined =>
  c.status?.conditions?.find((x) => x.type === type);
const ownerOf = (o: KubernetesObject) => o.metadata?.ownerReferences?.find((r) => r.controller);

async function rejected(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (e: unknown) => e instanceof ApiError && e.status === 422 && pattern.test(e.message));
}

// ---- the behaviours ----

test("1. creating a cluster yields exactly its children, with common labels and a controller ownerReference", async () => {
  const db = await createCluster("b01");
  const labels = {
    "app.kubernetes.io/name": "mysql",
    "app.kubernetes.io/instance": "b01",
    "app.kubernetes.io/component": "database",
    "app.kubernetes.io/managed-by": "mysql-operator",
  };
  const owner = {
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    name: "b01",
    uid: db.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  const owned: KubernetesObject[] = [
    await configMaps.get(NS, "b01-config"),
    await serviceAccounts.get(NS, "b01"),
    await services.get(NS, "b01-headless"),
    await services.get(NS, "b01"),
    await sts.get(NS, "b01"),
    await pdbs.get(NS, "b01"),
  ];
  for (const o of owned) {
    assert.deepEqual(o.metadata?.ownerReferences, [owner], `${o.kind} ${o.metadata?.name} ownerReference`);
    for (const [k, v] of Object.entries(labels))
      assert.equal(o.metadata.labels?.[k], v, `${o.kind} ${o.metadata.name} label ${k}`);
  }
  const root = await secrets.get(NS, "b01-root");
  assert.equal(root.metadata?.labels?.["app.kubernetes.io/managed-by"], "mysql-operator");
  assert.equal(root.metadata.ownerReferences, undefined, "reclaimPolicy Retain: the password outlives the cluster");
  assert.equal((await services.get(NS, "b01-headless")).spec?.clusterIP, "None");
  assert.equal(await maybe(cronJobs.get(NS, "b01-backup")), undefined, "no backup configured, no CronJob");
  assert.equal(await maybe(pvcs.get(NS, "b01-backup")), undefined);
});

test("2. a second reconcile with nothing changed sends no POST/PUT/PATCH/DELETE (children and status)", async () => {
  await createCluster("b02");
  assert.deepEqual(await reconcileOnce("b02"), []);
  await setStsStatus("b02", { replicas: 3, ready: 3, updated: 3 });
  await settled("b02");
  assert.deepEqual(await reconcileOnce("b02"), [], "also in the Ready state");
});

test("3. after a successful reconcile observedGeneration equals generation and Reconciled=True", async () => {
  const db = await patchSpec((await createCluster("b03")).metadata.name!, { myCnf: "max_connections=100\n" });
  assert.equal(db.metadata.generation, 2);
  assert.equal(db.status?.observedGeneration, 2);
  assert.equal(condition(db, "Reconciled")?.status, "True");
  assert.equal(condition(db, "Reconciled")?.reason, "ReconcileSucceeded");
});

test("4. scaling 3→5 changes only sts.spec.replicas (template and hash untouched); 5→3 keeps whenScaled Retain and deletes no PVC", async () => {
  await createCluster("b04");
  const before = await sts.get(NS, "b04");
  const mark = sent.length;
  await patchSpec("b04", { replicas: 5 });
  const after = await sts.get(NS, "b04");
  assert.equal(after.spec?.replicas, 5);
  assert.deepEqual(after.spec.template, before.spec?.template);
  await patchSpec("b04", { replicas: 3 });
  const back = await sts.get(NS, "b04");
  assert.equal(back.spec?.replicas, 3);
  assert.equal(back.spec.persistentVolumeClaimRetentionPolicy?.whenScaled, "Retain");
  assert.equal(
    sent.slice(mark).filter((r) => r.method === "DELETE" && r.path.includes("persistentvolumeclaims")).length,
    0,
  );
});

test("5. scaling 3→1 deletes the PodDisruptionBudget; 1→2 recreates it with maxUnavailable 1", async () => {
  await createCluster("b05");
  assert.ok(await pdbs.get(NS, "b05"));
  await patchSpec("b05", { replicas: 1 });
  await eventually("PDB b05 deleted", async () =>
    (await maybe(pdbs.get(NS, "b05"))) === undefined ? true : undefined,
  );
  await patchSpec("b05", { replicas: 2 });
  const pdb = await eventually("PDB b05 recreated", () => maybe(pdbs.get(NS, "b05")));
  assert.equal(pdb.spec?.maxUnavailable, 1);
  assert.deepEqual(pdb.spec.selector?.matchLabels, {
    "app.kubernetes.io/name": "mysql",
    "app.kubernetes.io/instance": "b05",
  });
});

test("6. a version change swaps the image and the version label only; imageRepository prefixes the image", async () => {
  await createCluster("b06");
  const before = await sts.get(NS, "b06");
  await patchSpec("b06", { version: "8.0.40" });
  const after = await sts.get(NS, "b06");
  const c = after.spec!.template.spec!.containers[0]!;
  assert.equal(c.image, "mysql:8.0.40");
  assert.equal(after.spec?.template.metadata?.labels?.["app.kubernetes.io/version"], "8.0.40");
  const strip = (s: V1StatefulSet) => {
    const t = structuredClone(s.spec!.template);
    t.spec!.containers[0]!.image = "";
    delete t.metadata!.labels!["app.kubernetes.io/version"];
    return { ...s.spec, template: t };
  };
  assert.deepEqual(strip(after), strip(before), "nothing else in the StatefulSet spec changed");
  await patchSpec("b06", { imageRepository: "registry.local/mysql" });
  assert.equal((await sts.get(NS, "b06")).spec?.template.spec?.containers[0]?.image, "registry.local/mysql:8.0.40");
});

test("7. a series downgrade and malformed versions are rejected with their messages; a patch downgrade and a series upgrade are accepted", async () => {
  await createCluster("b07", { version: "8.4.5" });
  const original = await clusters.get("b07");
  await rejected(
    clusters.patch("b07", { type: "merge", body: { spec: { version: "8.0.40" } } }),
    /older major\.minor series/,
  );
  await rejected(clusters.patch("b07", { type: "merge", body: { spec: { version: "8.0" } } }), /spec\.version/);
  await rejected(clusters.patch("b07", { type: "merge", body: { spec: { version: "latest" } } }), /spec\.version/);
  assert.equal(
    (await clusters.get("b07")).metadata.resourceVersion,
    original.metadata.resourceVersion,
    "stored object unchanged",
  );
  await createCluster("b07b", { version: "8.0.40" });
  await clusters.patch("b07b", { type: "merge", body: { spec: { version: "8.0.36" } } });
  await clusters.patch("b07b", { type: "merge", body: { spec: { version: "8.4.5" } } });
  assert.equal((await clusters.get("b07b")).spec?.version, "8.4.5");
});

test("8. during an upgrade Ready=False/RollingUpdate, Progressing=True/Upgrading, phase Updating, old currentVersion; after it Ready", async () => {
  await createCluster("b08");
  await setStsStatus("b08", { replicas: 3, ready: 3, updated: 3 });
  let db = await eventually("b08 Ready", async () =>
    (await clusters.get("b08")).status?.phase === "Ready" ? clusters.get("b08") : undefined,
  );
  assert.equal(db.status?.currentVersion, "8.0.36");
  await clusters.patch("b08", { type: "merge", body: { spec: { version: "8.0.40" } } });
  await eventually("b08 image 8.0.40", async () =>
    (await sts.get(NS, "b08")).spec?.template.spec?.containers[0]?.image === "mysql:8.0.40" ? true : undefined,
  );
  await setStsStatus("b08", { replicas: 3, ready: 3, updated: 1, current: "rev-1", update: "rev-2" });
  db = await eventually("b08 Updating", async () => {
    const c = await clusters.get("b08");
    return c.status?.phase === "Updating" && c.status.updatedReplicas === 1 ? c : undefined;
  });
  assert.equal(condition(db, "Ready")?.status, "False");
  assert.equal(condition(db, "Ready")?.reason, "RollingUpdate");
  assert.equal(condition(db, "Progressing")?.status, "True");
  assert.equal(condition(db, "Progressing")?.reason, "Upgrading");
  assert.equal(db.status?.currentVersion, "8.0.36");
  await setStsStatus("b08", { replicas: 3, ready: 3, updated: 3, current: "rev-2", update: "rev-2" });
  db = await eventually("b08 Ready again", async () =>
    (await clusters.get("b08")).status?.phase === "Ready" ? clusters.get("b08") : undefined,
  );
  assert.equal(db.status?.currentVersion, "8.0.40");
  assert.equal(condition(db, "Ready")?.reason, "AllReplicasReady");
  assert.equal(condition(db, "Progressing")?.status, "False");
  assert.equal(condition(db, "Progressing")?.reason, "RolloutComplete");
});

test("9. a deleted Service, ConfigMap, PDB or ServiceAccount is recreated with the same spec by the reconcile its delete event triggers", async () => {
  await createCluster("b09");
  const cases: Array<[ResourceClient<KubernetesObject>, string, (o: KubernetesObject) => unknown]> = [
    [services, "b09", (o) => (o as V1Service).spec?.ports],
    [configMaps, "b09-config", (o) => (o as V1ConfigMap).data],
    [pdbs, "b09", (o) => (o as V1PodDisruptionBudget).spec?.maxUnavailable],
    [serviceAccounts, "b09", (o) => (o as V1ServiceAccount).automountServiceAccountToken],
  ];
  for (const [c, name, content] of cases) {
    const before = await c.get(NS, name);
    await c.delete(NS, name);
    const again = await eventually(`${before.kind} ${name} recreated`, async () => {
      const o = await maybe(c.get(NS, name));
      return o && o.metadata?.uid !== before.metadata?.uid ? o : undefined;
    });
    assert.deepEqual(content(again), content(before), `${before.kind} ${name} content`);
  }
});

test("10. drift in sts replicas or image is reverted, while a foreign pod-template annotation survives", async () => {
  await createCluster("b10");
  await sts.patch(NS, "b10", {
    type: "merge",
    body: {
      spec: {
        replicas: 7,
        template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-12-02T00:00:00Z" } } },
      },
    },
  });
  const live = await sts.get(NS, "b10");
  const containers = structuredClone(live.spec!.template.spec!.containers);
  containers[0]!.image = "mysql:5.7.44";
  await sts.patch(NS, "b10", {
    type: "json",
    ops: [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: "mysql:5.7.44" }],
  });
  await reconcileOnce("b10");
  const fixed = await eventually("b10 drift reverted", async () => {
    const s = await sts.get(NS, "b10");
    return s.spec?.replicas === 3 && s.spec.template.spec?.containers[0]?.image === "mysql:8.0.36" ? s : undefined;
  });
  assert.equal(
    fixed.spec?.template.metadata?.annotations?.["kubectl.kubernetes.io/restartedAt"],
    "2026-12-02T00:00:00Z",
  );
});

test("11. the generated root Secret holds 32 [A-Za-z0-9] characters; data and resourceVersion never change; a user edit is left alone", async () => {
  await createCluster("b11");
  const first = await secrets.get(NS, "b11-root");
  const password = Buffer.from(first.data!["password"]!, "base64").toString();
  assert.match(password, /^[A-Za-z0-9]{32}$/);
  assert.equal(first.metadata?.annotations?.["example.com/generated"], "true");
  await patchSpec("b11", { replicas: 4 });
  await reconcileOnce("b11");
  const later = await secrets.get(NS, "b11-root");
  assert.equal(later.metadata?.resourceVersion, first.metadata.resourceVersion);
  assert.deepEqual(later.data, first.data);
  await secrets.patch(NS, "b11-root", {
    type: "merge",
    body: { data: { password: Buffer.from("chosen-by-the-user").toString("base64") } },
  });
  await reconcileOnce("b11");
  assert.equal(
    Buffer.from((await secrets.get(NS, "b11-root")).data!["password"]!, "base64").toString(),
    "chosen-by-the-user",
  );
});

test("12. deleting the generated Secret while the StatefulSet exists generates no new password: Ready=False/RootPasswordSecretMissing, phase Pending", async () => {
  await createCluster("b12");
  await secrets.delete(NS, "b12-root");
  const db = await eventually("b12 RootPasswordSecretMissing", async () => {
    const c = await clusters.get("b12");
    return condition(c, "Ready")?.reason === "RootPasswordSecretMissing" ? c : undefined;
  });
  assert.equal(condition(db, "Ready")?.status, "False");
  assert.equal(db.status?.phase, "Pending");
  assert.equal(await maybe(secrets.get(NS, "b12-root")), undefined);
});

test("13. with rootPasswordSecretRef no Secret is generated and the user's is referenced, never owned; when it is absent no StatefulSet", async () => {
  await secrets.create(NS, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "my-root" },
    data: { password: Buffer.from("s3cret").toString("base64") },
  });
  await createCluster("b13", { rootPasswordSecretRef: { name: "my-root" } });
  assert.equal(await maybe(secrets.get(NS, "b13-root")), undefined);
  const env = (await sts.get(NS, "b13")).spec?.template.spec?.containers[0]?.env?.find(
    (e) => e.name === "MYSQL_ROOT_PASSWORD",
  );
  assert.deepEqual(env?.valueFrom?.secretKeyRef, { name: "my-root", key: "password" });
  assert.equal((await secrets.get(NS, "my-root")).metadata?.ownerReferences, undefined);

  await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "b13b" },
    spec: { replicas: 1, version: "8.0.36", rootPasswordSecretRef: { name: "absent-root" } },
  });
  const db = await eventually("b13b RootPasswordSecretNotFound", async () => {
    const c = await clusters.get("b13b");
    return condition(c, "Ready")?.reason === "RootPasswordSecretNotFound" ? c : undefined;
  });
  assert.equal(condition(db, "Ready")?.status, "False");
  assert.equal(await maybe(sts.get(NS, "b13b")), undefined);
});

test("14. a myCnf change updates the ConfigMap and the config hash; a backup schedule or replicas change leaves the hash alone", async () => {
  await createCluster("b14", { backup: { schedule: "0 3 * * *" } });
  const hash = async () => (await sts.get(NS, "b14")).spec?.template.metadata?.annotations?.[configHashAnnotation];
  const h0 = await hash();
  assert.match(h0 ?? "", /^[0-9a-f]{64}$/);
  await patchSpec("b14", { myCnf: "max_connections=500\n" });
  assert.equal((await configMaps.get(NS, "b14-config")).data?.["99-user.cnf"], "max_connections=500\n");
  const h1 = await hash();
  assert.notEqual(h1, h0);
  await patchSpec("b14", { backup: { schedule: "0 4 * * *" }, replicas: 4 });
  assert.equal(await hash(), h1);
});

test("15. changing service.type ClusterIP→LoadBalancer updates Service in place: same clusterIP, new type", async () => {
  await createCluster("b15");
  const before = await services.get(NS, "b15");
  assert.equal(before.spec?.type, "ClusterIP");
  await patchSpec("b15", { service: { type: "LoadBalancer" } });
  const after = await services.get(NS, "b15");
  assert.equal(after.spec?.type, "LoadBalancer");
  assert.equal(after.spec.clusterIP, before.spec.clusterIP);
  assert.equal(after.metadata?.uid, before.metadata?.uid);
});

test("16. spec.backup creates the CronJob and PVC; a version change updates the CronJob image; removing backup deletes the CronJob and its condition", async () => {
  await createCluster("b16");
  let db = await patchSpec("b16", { backup: { schedule: "0 3 * * *" } });
  const cj = await cronJobs.get(NS, "b16-backup");
  assert.equal(cj.spec?.schedule, "0 3 * * *");
  assert.equal(cj.spec.concurrencyPolicy, "Forbid");
  assert.equal(cj.spec.jobTemplate.spec?.template.spec?.containers[0]?.image, "mysql:8.0.36");
  assert.equal((await pvcs.get(NS, "b16-backup")).spec?.resources?.requests?.["storage"], "5Gi");
  assert.equal(condition(db, "BackupScheduled")?.status, "True");
  await patchSpec("b16", { version: "8.0.40" });
  assert.equal(
    (await cronJobs.get(NS, "b16-backup")).spec?.jobTemplate.spec?.template.spec?.containers[0]?.image,
    "mysql:8.0.40",
  );
  await clusters.patch("b16", { type: "json", ops: [{ op: "remove", path: "/spec/backup" }] });
  db = await settled("b16");
  assert.equal(await maybe(cronJobs.get(NS, "b16-backup")), undefined);
  assert.equal(condition(db, "BackupScheduled"), undefined);
});

test("17. reclaimPolicy Retain leaves Secret and backup PVC unowned (whenDeleted Retain); Delete owns them; flipping switches in one reconcile; no finalizer", async () => {
  const db = await createCluster("b17", { backup: { schedule: "0 3 * * *" } });
  assert.equal((await sts.get(NS, "b17")).spec?.persistentVolumeClaimRetentionPolicy?.whenDeleted, "Retain");
  assert.equal(ownerOf(await secrets.get(NS, "b17-root")), undefined);
  assert.equal(ownerOf(await pvcs.get(NS, "b17-backup")), undefined);
  await clusters.patch("b17", { type: "merge", body: { spec: { storage: { reclaimPolicy: "Delete" } } } as never });
  const writesOfOne = await (async () => {
    await eventually("b17 Delete applied", async () =>
      ownerOf(await secrets.get(NS, "b17-root"))?.uid === db.metadata.uid &&
      ownerOf(await pvcs.get(NS, "b17-backup"))?.uid === db.metadata.uid
        ? true
        : undefined,
    );
    return true;
  })();
  assert.ok(writesOfOne);
  assert.equal((await sts.get(NS, "b17")).spec?.persistentVolumeClaimRetentionPolicy?.whenDeleted, "Delete");
  await clusters.patch("b17", { type: "merge", body: { spec: { storage: { reclaimPolicy: "Retain" } } } as never });
  await eventually("b17 Retain applied", async () =>
    ownerOf(await secrets.get(NS, "b17-root")) === undefined && ownerOf(await pvcs.get(NS, "b17-backup")) === undefined
      ? true
      : undefined,
  );
  assert.deepEqual((await clusters.get("b17")).metadata.finalizers ?? [], []);
  await clusters.delete("b17");
  await eventually("b17 gone at once", async () =>
    (await maybe(clusters.get("b17"))) === undefined ? true : undefined,
  );
});

test("18. immutable storage and password ref changes are rejected with their messages; out-of-range replicas, unknown service type, 46-char names too", async () => {
  await createCluster("b18", { storage: { size: "2Gi", storageClassName: "fast" } });
  const patch = (spec: Record<string, unknown>) => clusters.patch("b18", { type: "merge", body: { spec } });
  await rejected(patch({ storage: { size: "3Gi" } }), /storage\.size is immutable/);
  await rejected(patch({ storage: { storageClassName: "slow" } }), /storage\.storageClassName is immutable/);
  await rejected(patch({ rootPasswordSecretRef: { name: "other" } }), /rootPasswordSecretRef is immutable/);
  await rejected(patch({ replicas: 0 }), /spec\.replicas/);
  await rejected(patch({ replicas: 10 }), /spec\.replicas/);
  await rejected(patch({ service: { type: "Foo" } }), /spec\.service\.type/);
  const long = "a".repeat(46);
  await rejected(
    clusters.create({
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name: long },
      spec: { version: "8.0.36" },
    }),
    /at most 45 characters/,
  );
});

test("19. the API server applies the defaults: only version given reads back with replicas 1, storage 1Gi/Retain, service ClusterIP, image mysql", async () => {
  const created = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "b19" },
    spec: { version: "8.0.36" },
  });
  assert.equal(created.spec?.replicas, 1);
  assert.deepEqual(created.spec.storage, { size: "1Gi", reclaimPolicy: "Retain" });
  assert.deepEqual(created.spec.service, { type: "ClusterIP" });
  assert.equal(created.spec.imageRepository, "mysql");
});

test("20. the scale subresource changes spec.replicas and reads status.replicas and status.selector", async () => {
  await createCluster("b20");
  await setStsStatus("b20", { replicas: 3, ready: 3, updated: 3 });
  const scaleClient = newMySQLClusterClient(admin).namespace(NS);
  const scale = await eventually("b20 scale status", async () => {
    const s = await scaleClient.getScale("b20");
    return s.status?.replicas === 3 && s.status.selector ? s : undefined;
  });
  assert.equal(scale.status?.selector, "app.kubernetes.io/instance=b20,app.kubernetes.io/name=mysql");
  await scaleClient.updateScale("b20", { ...scale, spec: { replicas: 5 } });
  assert.equal((await clusters.get("b20")).spec?.replicas, 5);
  await eventually("b20 sts 5", async () => ((await sts.get(NS, "b20")).spec?.replicas === 5 ? true : undefined));
});

test("21. a failing StatefulSet write sets Reconciled=False/ReconcileError, emits a Warning and retries; success restores it, other conditions keep their times", async () => {
  await createCluster("b21");
  const before = await clusters.get("b21");
  const readySince = condition(before, "Ready")?.lastTransitionTime;
  const mark = sent.length;
  failing = {
    match: (r) => r.method === "PATCH" && r.path.endsWith("/statefulsets/b21"),
    status: 500,
    times: Number.POSITIVE_INFINITY,
  };
  await clusters.patch("b21", { type: "merge", body: { spec: { replicas: 4 } } });
  const failed = await eventually("b21 ReconcileError", async () => {
    const c = await clusters.get("b21");
    return condition(c, "Reconciled")?.reason === "ReconcileError" ? c : undefined;
  });
  assert.match(condition(failed, "Reconciled")?.message ?? "", /injected 500/);
  // The hook writes the status first and the Event after it, so the Warning may land a moment after the condition.
  const events = new ResourceClient<
    KubernetesObject & { type?: string; reason?: string; regarding?: { name?: string } }
  >(admin, { group: "events.k8s.io", version: "v1", plural: "events", kind: "Event", namespaced: true });
  await eventually("a Warning event about b21", async () =>
    (await events.list(NS)).items.some(
      (e) => e.type === "Warning" && e.reason === "ReconcileError" && e.regarding?.name === "b21",
    )
      ? true
      : undefined,
  );
  await eventually("b21 write retried", () =>
    sent.slice(mark).filter((r) => failing!.match(r)).length >= 3 ? true : undefined,
  );
  failing = undefined;
  const recovered = await settled("b21");
  assert.equal(condition(recovered, "Reconciled")?.status, "True");
  assert.equal((await sts.get(NS, "b21")).spec?.replicas, 4);
  assert.equal(
    condition(recovered, "Ready")?.lastTransitionTime,
    readySince,
    "Ready did not flip, so its lastTransitionTime stayed",
  );
});

test("22. a status-only StatefulSet update (readyReplicas 2→3) updates status.readyReplicas and Ready without writing any child", async () => {
  await createCluster("b22");
  await setStsStatus("b22", { replicas: 3, ready: 2, updated: 3 });
  await eventually("b22 ready 2", async () =>
    (await clusters.get("b22")).status?.readyReplicas === 2 ? true : undefined,
  );
  const mark = sent.length;
  await setStsStatus("b22", { replicas: 3, ready: 3, updated: 3 });
  const db = await eventually("b22 ready 3", async () => {
    const c = await clusters.get("b22");
    return c.status?.readyReplicas === 3 && condition(c, "Ready")?.status === "True" ? c : undefined;
  });
  assert.equal(db.status?.phase, "Ready");
  const childWrites = writes("b22", mark).filter((r) => !r.path.includes("/mysqlclusters/"));
  assert.deepEqual(childWrites, []);
});

test("23. spec.restoreFrom adds the restore init step, the dump claim read-only and the initdb folder; it is immutable and its file name is checked", async () => {
  await createCluster("b23", { restoreFrom: { claimName: "db-backup", file: "db-20261204T030000Z.sql.gz" } });
  const pod = (await sts.get(NS, "b23")).spec?.template.spec;
  const init = pod?.initContainers?.find((c) => c.name === "restore");
  assert.ok(init, "a restore init container");
  assert.equal(pod?.initContainers?.length, 1);
  assert.equal(init.image, "mysql:8.0.36", "the server's image");
  assert.deepEqual(
    init.env?.map((e) => [e.name, e.value]),
    [
      ["RESTORE_CLAIM", "db-backup"],
      ["RESTORE_FILE", "db-20261204T030000Z.sql.gz"],
    ],
  );
  assert.deepEqual(
    init.volumeMounts?.map((m) => [m.name, m.mountPath, m.readOnly ?? false]),
    [
      ["data", "/var/lib/mysql", true],
      ["restore", "/restore", true],
      ["initdb", "/docker-entrypoint-initdb.d", false],
    ],
  );
  const server = pod.containers.find((c) => c.name === "mysql");
  assert.ok(server?.volumeMounts?.some((m) => m.name === "initdb" && m.mountPath === "/docker-entrypoint-initdb.d"));
  const restoreVolume = pod.volumes?.find((v) => v.name === "restore");
  assert.deepEqual(restoreVolume?.persistentVolumeClaim, { claimName: "db-backup", readOnly: true });
  assert.deepEqual(pod.volumes?.find((v) => v.name === "initdb")?.emptyDir, {});
  // A cluster without restoreFrom has none of it (so existing clusters keep their pod template).
  await createCluster("b23b");
  const plain = (await sts.get(NS, "b23b")).spec?.template.spec;
  assert.equal(plain?.initContainers, undefined);
  assert.deepEqual(
    plain?.volumes?.map((v) => v.name),
    ["config"],
  );

  const patch = (spec: Record<string, unknown>) => clusters.patch("b23", { type: "merge", body: { spec } });
  await rejected(patch({ restoreFrom: { claimName: "other-backup" } }), /restoreFrom is immutable/);
  await rejected(patch({ restoreFrom: null }), /restoreFrom is immutable/);
  await rejected(
    clusters.patch("b23b", { type: "merge", body: { spec: { restoreFrom: { claimName: "db-backup" } } } }),
    /restoreFrom is immutable/,
  );
  const create = (name: string, restoreFrom: Record<string, unknown>) =>
    clusters.create({
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name },
      spec: { version: "8.0.36", restoreFrom } as unknown as MySQLClusterSpec,
    });
  await rejected(create("b23c", { claimName: "db-backup", file: "../etc/passwd.sql" }), /spec\.restoreFrom\.file/);
  await rejected(create("b23d", { claimName: "db-backup", file: "dump.tar" }), /spec\.restoreFrom\.file/);
  await rejected(create("b23e", { claimName: "Not_A_Claim" }), /spec\.restoreFrom\.claimName/);
  await rejected(create("b23f", { file: "db.sql.gz" }), /spec\.restoreFrom\.claimName/);
});
