// The sample operator's deploy manifests on a real kube-apiserver: kubectl applies them; the operator's controllers,
// run as the manifests' ServiceAccount (impersonated), do a whole cluster lifecycle in the namespace they serve without
// one 403 and use every permission its Roles and ClusterRoles grant (or the test names why not), while Secrets outside
// that namespace stay out of its reach; the permissions the Role derivation relies on are checked against the API
// server itself; and the real main.js runs as the ServiceAccount with a token, serving /metrics over HTTPS only to
// callers whose ServiceAccount token is bound to the metrics-reader ClusterRole.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { request as httpsRequest } from "node:https";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import type { V1ConfigMap, V1Deployment, V1OwnerReference, V1StatefulSet } from "@kubernetes/client-node";
import { KubeConfig } from "@kubernetes/client-node";
import { findBinary, startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import {
  ApiError,
  ResourceClient,
  builtinResources,
  controllerOwnerReference,
  isNotFound,
  newLogger,
  type KubernetesObject,
  type ResourceDescriptor,
  type KubeClient,
} from "@crdgen/runtime";
import { kubeLeaseLock } from "@crdgen/runtime/leaderelection";
import { HttpKubeClient, serviceAccountUser, type Patch, type ResponseInfo } from "@crdgen/runtime/client";
import { startManager, type PolicyRule } from "@crdgen/runtime/manager";
import { newMySQLClusterController } from "../../samples/mysql/generated/example.com/v1/mysqlcluster.controller.js";
import {
  newMySQLClusterClient,
  type MySQLClusterVerbs,
} from "../../samples/mysql/generated/example.com/v1/mysqlcluster.client.js";
import * as hooks from "../../samples/mysql/src/mysqlcluster.hooks.js";
import { deployDir, operatorAccess } from "../../samples/mysql/tools/deploy-manifests.js";
import { eventually, repoRoot } from "./control-plane.js";

const run = promisify(execFile);

/** Every document of every manifest in samples/mysql/deploy/, as committed. */
async function committedManifests(): Promise<KubernetesObject[]> {
  const docs: KubernetesObject[] = [];
  for (const file of (await readdir(deployDir)).filter((f) => f.endsWith(".yaml")).sort()) {
    for (const doc of parseAllDocuments(await readFile(path.join(deployDir, file), "utf8")))
      docs.push(doc.toJS() as KubernetesObject);
  }
  return docs;
}

const one = (docs: KubernetesObject[], kind: string): KubernetesObject => {
  const found = docs.filter((d) => d.kind === kind);
  assert.equal(found.length, 1, `samples/mysql/deploy/ has exactly one ${kind}`);
  return found[0]!;
};

interface Rbac extends KubernetesObject {
  rules: PolicyRule[];
}

let plane: ControlPlane;
let admin: KubeClient;
let docs: KubernetesObject[];
let deployment: V1Deployment & KubernetesObject;
let operatorNamespace: string;
let serviceAccount: string;
let leaseName: string;
/** The namespace the Deployment serves (--watch-namespaces): its Role is the only grant of Secrets. */
let served: string;

before(async () => {
  // OwnerReferencesPermissionEnforcement is off in a default kube-apiserver but on in some distributions; with it on,
  // the
  // ClusterRole's <primary>/finalizers and owned-kind delete grants are what it checks.
  plane = await startControlPlane({
    crdFiles: [path.join(deployDir, "01-crds.yaml")],
    apiServerArgs: ["--enable-admission-plugins=OwnerReferencesPermissionEnforcement"],
  });
  admin = plane.kubeClient();
  docs = await committedManifests();
  deployment = one(docs, "Deployment");
  operatorNamespace = deployment.metadata!.namespace!;
  serviceAccount = deployment.spec!.template.spec!.serviceAccountName!;
  const args = deployment.spec!.template.spec!.containers[0]!.args ?? [];
  leaseName = args.find((a) => a.startsWith("--leader-election-id="))?.split("=")[1] ?? "";
  assert.ok(
    args.includes("--leader-elect") && leaseName,
    "the Deployment runs with --leader-elect and --leader-election-id",
  );
  const namespaces =
    args
      .find((a) => a.startsWith("--watch-namespaces="))
      ?.split("=")[1]
      ?.split(",") ?? [];
  assert.equal(namespaces.length, 1, "the Deployment serves one namespace (--watch-namespaces)");
  served = namespaces[0]!;
});

after(async () => {
  // before() may have failed before setting these.
  (admin as KubeClient | undefined)?.close();
  await (plane as ControlPlane | undefined)?.stop();
});

test("kubectl apply -f samples/mysql/deploy/ creates every object the manifests describe", async () => {
  const kubectl = findBinary("kubectl");
  const { stdout } = await run(kubectl, [
    "--kubeconfig",
    plane.kubeconfigPath,
    "apply",
    "--server-side",
    "-f",
    deployDir,
  ]);
  const applied = stdout.trim().split("\n");
  assert.equal(applied.length, docs.length, `one line per object:\n${stdout}`);
  const { stdout: got } = await run(kubectl, [
    "--kubeconfig",
    plane.kubeconfigPath,
    "get",
    "-f",
    deployDir,
    "-o",
    "json",
  ]);
  const items = (JSON.parse(got) as { items: KubernetesObject[] }).items;
  assert.deepEqual(
    items.map((i) => `${i.kind}/${i.metadata?.name}`).sort(),
    docs.map((d) => `${d.kind}/${d.metadata?.name}`).sort(),
  );
  // The API server defaulted and stored the Deployment as written: probes and the metrics port survived validation.
  const stored = items.find((i) => i.kind === "Deployment") as V1Deployment;
  const container = stored.spec!.template.spec!.containers[0]!;
  assert.equal(container.livenessProbe?.httpGet?.path, "/healthz");
  assert.equal(container.readinessProbe?.httpGet?.path, "/readyz");
  assert.ok(container.ports?.some((p) => p.name === "metrics"));
  assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
});

// ---------------------------------------------------------------------------------------------------------------
// Recording what the operator asks of the API server.

/** One request as RBAC sees it. */
interface Use {
  group: string;
  /** `plural` or `plural/subresource`, as in a PolicyRule. */
  resource: string;
  verb: string;
  status: number;
  path: string;
}

/** The RBAC attributes of a request (the API server's RequestInfo): group, resource[/subresource] and verb. */
function requestAttributes(r: ResponseInfo): Array<Omit<Use, "status" | "path">> {
  const segments = r.path.split("/").filter(Boolean);
  const group = segments[0] === "api" ? "" : segments[1]!;
  let rest = segments.slice(segments[0] === "api" ? 2 : 3);
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const [plural = "", name, subresource] = rest;
  const resource = subresource ? `${plural}/${subresource}` : plural;
  const verbs: Record<string, string> = {
    GET: name ? "get" : r.query?.["watch"] ? "watch" : "list",
    POST: "create",
    PUT: "update",
    PATCH: "patch",
    DELETE: name ? "delete" : "deletecollection",
  };
  const uses = [{ group, resource, verb: verbs[r.method]! }];
  // A server-side apply that creates the object is authorised as create too (see the test below that proves it).
  if (r.method === "PATCH" && r.contentType === "application/apply-patch+yaml" && r.status === 201)
    uses.push({ group, resource, verb: "create" });
  return uses;
}

/** Every (group, resource, verb) a set of rules grants; resourceNames narrow, but a granted verb is still listed once. */
function granted(rules: PolicyRule[]): Set<string> {
  const out = new Set<string>();
  for (const rule of rules)
    for (const g of rule.apiGroups)
      for (const r of rule.resources) for (const v of rule.verbs) out.add(`${g}|${r}|${v}`);
  return out;
}

const label = (key: string) => {
  const [group, resource, verb] = key.split("|");
  return `${verb} ${resource}${group ? `.${group}` : ""}`;
};

/** The rules of every Role and ClusterRole the manifests bind to the operator's ServiceAccount. */
function operatorRules(): PolicyRule[] {
  const bindings = docs.filter(
    (d) =>
      (d.kind === "RoleBinding" || d.kind === "ClusterRoleBinding") &&
      (d as { subjects?: Array<{ kind: string; name: string }> }).subjects?.some(
        (s) => s.kind === "ServiceAccount" && s.name === serviceAccount,
      ),
  ) as Array<KubernetesObject & { roleRef: { kind: string; name: string } }>;
  return bindings.flatMap((b) => {
    const role = docs.find(
      (d) =>
        d.kind === b.roleRef.kind &&
        d.metadata?.name === b.roleRef.name &&
        (d.kind === "ClusterRole" || d.metadata.namespace === b.metadata?.namespace),
    ) as Rbac | undefined;
    assert.ok(role, `${b.kind} ${b.metadata?.name} refers to a ${b.roleRef.kind} of the manifests`);
    return role.rules;
  });
}

/** The metrics-reader ClusterRole of the manifests (RBAC's non-resource rule on /metrics). */
function metricsReaderName(): string {
  const reader = docs.find(
    (d) =>
      d.kind === "ClusterRole" && (d as { rules: Array<{ nonResourceURLs?: string[] }> }).rules[0]?.nonResourceURLs,
  );
  assert.ok(reader?.metadata?.name, "the manifests hold a metrics-reader ClusterRole");
  return reader.metadata.name;
}

/**
 * A token of a new ServiceAccount `name` in the operator's namespace (TokenRequest API), bound to the metrics-reader
 * ClusterRole when `reader`: what a Prometheus scraping the operator has.
 */
async function scraperToken(name: string, reader: boolean): Promise<string> {
  await admin.request({
    method: "POST",
    path: `/api/v1/namespaces/${operatorNamespace}/serviceaccounts`,
    body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name } },
  });
  if (reader)
    await admin.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      body: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: metricsReaderName() },
        subjects: [{ kind: "ServiceAccount", name, namespace: operatorNamespace }],
      },
    });
  const review = await admin.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${operatorNamespace}/serviceaccounts/${name}/token`,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  });
  if (reader) await readerInEffect(name);
  return review.status.token;
}

/**
 * Waits until the API server's authorizer sees `name`'s ClusterRoleBinding (it reaches the cache a moment after the
 * write), asking as admin: the operator caches a denial for 30 s, so it must first be asked once the grant is in effect.
 */
async function readerInEffect(name: string): Promise<void> {
  await eventually(`${name} may get /metrics`, async () => {
    const review = await admin.request<{ status: { allowed?: boolean } }>({
      method: "POST",
      path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: serviceAccountUser(operatorNamespace, name),
          groups: ["system:serviceaccounts", `system:serviceaccounts:${operatorNamespace}`, "system:authenticated"],
          nonResourceAttributes: { path: "/metrics", verb: "get" },
        },
      },
    });
    return review.status.allowed ? true : undefined;
  });
}

/** GET https://127.0.0.1:<port><path> (the operator's certificate is self-signed: not verified), with a bearer token. */
function scrape(port: number, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: "127.0.0.1",
        port,
        path: "/metrics",
        rejectUnauthorized: false,
        agent: false,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

test("the operator, as the deployed ServiceAccount, runs a whole cluster lifecycle with no 403 and uses every permission it is granted", async (t) => {
  const rules = operatorRules();
  const access = operatorAccess();
  const primary = access[0]!.resource;
  const owned: readonly ResourceDescriptor[] = access.flatMap((a) => a.owns ?? []);
  const written: readonly ResourceDescriptor[] = access.flatMap((a) => a.writes ?? []);

  const recorded: Use[] = [];
  const asOperator = HttpKubeClient.fromKubeConfig(plane.kubeConfig(), {
    impersonate: { user: serviceAccountUser(operatorNamespace, serviceAccount) },
    onResponse: (r) => {
      for (const use of requestAttributes(r)) recorded.push({ ...use, status: r.status, path: r.path });
    },
  });
  // The bindings from `kubectl apply` reach the authorizer's cache a moment later: wait until both are in effect,
  // with requests that are not recorded, so a 403 below means a missing permission and not a slow cache.
  const probe = HttpKubeClient.fromKubeConfig(plane.kubeConfig(), {
    impersonate: { user: serviceAccountUser(operatorNamespace, serviceAccount) },
  });
  // (Also waits out the 503 "storage is (re)initializing" of a CRD just installed.)
  await eventually(`list mysqlclusters in ${served} as the ServiceAccount`, () =>
    newMySQLClusterClient(probe)
      .namespace(served)
      .list()
      .then(() => true),
  );
  await eventually("get the Lease as the ServiceAccount", () =>
    kubeLeaseLock(probe, operatorNamespace, leaseName)
      .get()
      .then(() => true),
  );
  probe.close();
  const logLines: string[] = [];
  const logger = newLogger({ level: "info", write: (line) => logLines.push(line) });
  const controller = newMySQLClusterController(asOperator, hooks, { logger, namespace: served });
  const stop = new AbortController();
  const reader = await scraperToken("scenario-scraper", true);
  const manager = await startManager([controller], {
    kube: asOperator,
    logger,
    signal: stop.signal,
    options: {
      // Secure metrics (the default): a scrape makes the operator create a TokenReview and a SubjectAccessReview.
      metricsBindAddress: "127.0.0.1:0",
      healthProbeBindAddress: "127.0.0.1:0",
      leaderElect: true,
      leaderElectionId: leaseName,
      leaderElectionNamespace: operatorNamespace,
    },
    // Short timings so the leader renews (updates) its Lease during the scenario.
    leaseDurationMs: 4_000,
    renewDeadlineMs: 3_000,
    retryPeriodMs: 500,
  });
  const namespace = served;
  const clusters: MySQLClusterVerbs = newMySQLClusterClient(admin).namespace(namespace);
  const statefulSets = new ResourceClient<V1StatefulSet>(admin, builtinResources.statefulSets);
  try {
    const scraped = await scrape(manager.metricsPort!, reader);
    assert.equal(scraped.status, 200, `a metrics-reader's scrape: ${scraped.body}`);
    await eventually("the operator ready (leading, caches synced)", async () => {
      const res = await fetch(`http://127.0.0.1:${manager.healthProbePort}/readyz`);
      return res.status === 200 && manager.isLeading() ? true : undefined;
    });

    const converged = async (what: string) => {
      const current = await clusters.get("db");
      await eventually(`${what}: status.observedGeneration ${current.metadata.generation}`, async () => {
        const c = await clusters.get("db");
        return c.status?.observedGeneration === c.metadata.generation ? c : undefined;
      });
    };
    const controlledChildren = async (kind: ResourceDescriptor, uid: string) => {
      const list = await new ResourceClient<KubernetesObject>(admin, kind).list(namespace);
      return list.items.filter((o) => o.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid));
    };
    // No StatefulSet controller runs here: play its part by reporting every replica ready and the rollout complete.
    const reportStatefulSetsReady = async (uid: string) => {
      for (const sts of (await controlledChildren(builtinResources.statefulSets, uid)) as V1StatefulSet[]) {
        const replicas = sts.spec?.replicas ?? 1;
        await statefulSets.patchStatus(namespace, sts.metadata!.name!, {
          type: "merge",
          body: {
            status: {
              observedGeneration: sts.metadata!.generation!,
              replicas,
              readyReplicas: replicas,
              currentReplicas: replicas,
              updatedReplicas: replicas,
              availableReplicas: replicas,
              currentRevision: "db-1",
              updateRevision: "db-1",
            },
          },
        });
      }
    };
    const ready = async (what: string, uid: string) => {
      await converged(what);
      await reportStatefulSetsReady(uid);
      await eventually(`${what}: phase Ready`, async () =>
        (await clusters.get("db")).status?.phase === "Ready" ? true : undefined,
      );
    };

    // 1. A cluster with everything optional switched on.
    const db = await clusters.create({
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name: "db" },
      spec: {
        replicas: 3,
        version: "8.0.36",
        storage: { reclaimPolicy: "Delete" },
        backup: { schedule: "0 3 * * *" },
      } as never,
    });
    const uid = db.metadata.uid!;
    await ready("created", uid);
    // 2. Scale 3 → 1 → 3.
    await clusters.patch("db", { type: "merge", body: { spec: { replicas: 1 } } });
    await ready("scaled to 1", uid);
    await clusters.patch("db", { type: "merge", body: { spec: { replicas: 3 } } });
    await ready("scaled back to 3", uid);
    // 3. Delete one child of every owned kind; each comes back (with the same name, a new uid).
    for (const kind of owned) {
      const [child] = await controlledChildren(kind, uid);
      if (!child) continue;
      await new ResourceClient<KubernetesObject>(admin, kind).delete(namespace, child.metadata!.name!);
      await eventually(`${kind.kind} ${child.metadata!.name} recreated`, async () => {
        const again = (await controlledChildren(kind, uid)).find((o) => o.metadata?.name === child.metadata!.name);
        return again && again.metadata?.uid !== child.metadata?.uid ? again : undefined;
      });
    }
    await reportStatefulSetsReady(uid);
    // 4. reclaimPolicy Delete → Retain: children that must outlive the cluster lose their ownerReference.
    await clusters.patch("db", { type: "merge", body: { spec: { storage: { reclaimPolicy: "Retain" } } } as never });
    await ready("reclaimPolicy Retain", uid);
    // 5. Backup switched off (its children, if any, go).
    await clusters.patch("db", { type: "merge", body: { spec: { backup: null } } });
    await ready("backup removed", uid);
    // 6. The cluster deleted: no finalizer holds it, and the operator's cache lets it go.
    await clusters.delete("db");
    await eventually("db gone from the API", () =>
      clusters.get("db").then(
        () => undefined,
        (e: unknown) => (isNotFound(e) ? true : undefined),
      ),
    );
    await eventually("db gone from the operator's cache", () =>
      controller.informer.getIndexer().getByKey(`${namespace}/db`) ? undefined : true,
    );
    // Leadership is renewed (an update of the Lease) at least once before stopping.
    const lease = kubeLeaseLock(admin, operatorNamespace, leaseName);
    const first = await lease.get();
    await eventually("the Lease renewed", async () =>
      (await lease.get())?.spec?.renewTime !== first?.spec?.renewTime ? true : undefined,
    );
  } catch (error) {
    // A step that timed out is most often a refused request: name those first.
    const refused = recorded.filter((u) => u.status === 401 || u.status === 403).map((u) => `${u.verb} ${u.path}`);
    if (refused.length > 0)
      throw new Error(`the scenario stalled; the ServiceAccount was refused: ${[...new Set(refused)].join(", ")}`, {
        cause: error,
      });
    throw error;
  } finally {
    stop.abort();
    await manager.done;
    asOperator.close();
  }

  // What the operator used, for the record.
  const counts = new Map<string, number>();
  for (const u of recorded)
    counts.set(
      `${u.group}|${u.resource}|${u.verb} ${u.status}`,
      (counts.get(`${u.group}|${u.resource}|${u.verb} ${u.status}`) ?? 0) + 1,
    );
  t.diagnostic(
    `requests as ${serviceAccount}: ${[...counts]
      .sort()
      .map(([k, n]) => `${label(k.split(" ")[0]!)} → ${k.split(" ")[1]} ×${n}`)
      .join("; ")}`,
  );

  // (a) No request was refused.
  const forbidden = recorded.filter((u) => u.status === 401 || u.status === 403);
  assert.deepEqual(
    forbidden.map((u) => `${u.verb} ${u.path}`),
    [],
    "requests the ServiceAccount was refused",
  );
  assert.ok(
    !logLines.some((l) => /forbidden/i.test(l)),
    `no forbidden in the operator's log:\n${logLines.filter((l) => /forbidden/i.test(l)).join("\n")}`,
  );

  // (b) Every granted permission was used, or a listed reason says why the scenario cannot use it.
  const used = new Set(
    recorded.filter((u) => u.status !== 401 && u.status !== 403).map((u) => `${u.group}|${u.resource}|${u.verb}`),
  );
  const ownedWrites = owned.some(
    (k) => used.has(`${k.group}|${k.plural}|create`) || used.has(`${k.group}|${k.plural}|patch`),
  );
  const justified: Array<{ applies(group: string, resource: string, verb: string): boolean; reason: string }> = [
    {
      applies: (g, r, v) =>
        g === primary.group && r === `${primary.plural}/finalizers` && v === "update" && ownedWrites,
      reason:
        "no request of its own: the OwnerReferencesPermissionEnforcement admission plugin (on in this control plane) checks it on every " +
        "owned-kind write carrying blockOwnerDeletion; the test below shows the 403 without it",
    },
    {
      applies: (g, r, v) => v === "delete" && written.some((k) => k.group === g && k.plural === r),
      reason:
        "no request of its own: OwnerReferencesPermissionEnforcement checks delete when reconcile changes an existing object's " +
        "ownerReferences, as step 4 (reclaimPolicy Delete → Retain) does; the test below shows the 403 without it",
    },
    {
      applies: (g, r, v) => v === "delete" && owned.some((k) => k.group === g && k.plural === r),
      reason:
        "reconcile deletes only the children the spec stops wanting; the other owned kinds are removed by the garbage collector, which " +
        "does not run here, and RBAC cannot grant delete per object",
    },
  ];
  const unused: string[] = [];
  const excused: string[] = [];
  for (const key of granted(rules)) {
    if (used.has(key)) continue;
    const [g = "", r = "", v = ""] = key.split("|");
    const reason = justified.find((j) => j.applies(g, r, v))?.reason;
    if (reason) excused.push(`${label(key)}: ${reason}`);
    else unused.push(label(key));
  }
  if (excused.length) t.diagnostic(`granted but not requested, with reasons: ${excused.join(" | ")}`);
  assert.deepEqual(
    unused,
    [],
    "granted permissions the operator never used (narrow the ClusterRole derivation, or exercise them)",
  );

  // (c) Steady state was reached at every step (asserted above); the controllers never failed a reconcile.
  assert.deepEqual(
    logLines.filter((l) => /reconcile failed/.test(l)),
    [],
    "reconcile errors",
  );
});

test("the ServiceAccount can read no Secret outside the namespace it serves: not by list, watch or get, not cluster-wide", async () => {
  const outside = "elsewhere";
  await admin.request({
    method: "POST",
    path: "/api/v1/namespaces",
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name: outside } },
  });
  const secrets = new ResourceClient<KubernetesObject>(admin, builtinResources.secrets);
  await secrets.create(outside, { apiVersion: "v1", kind: "Secret", metadata: { name: "not-yours" } });
  await secrets.create(served, { apiVersion: "v1", kind: "Secret", metadata: { name: "served" } });
  const asOperator = new ResourceClient<KubernetesObject>(
    HttpKubeClient.fromKubeConfig(plane.kubeConfig(), {
      impersonate: { user: serviceAccountUser(operatorNamespace, serviceAccount) },
    }),
    builtinResources.secrets,
  );
  const forbidden = (e: unknown) =>
    e instanceof ApiError && e.status === 403 && /cannot (get|list|watch)/.test(e.message);
  // Inside the served namespace its Role lets it (so the refusals below are about scope, not a slow authorizer cache).
  assert.equal((await whenAuthorized(() => asOperator.get(served, "served"))).metadata?.name, "served");
  await assert.rejects(asOperator.get(outside, "not-yours"), forbidden);
  await assert.rejects(asOperator.list(outside), forbidden);
  await assert.rejects(asOperator.list(operatorNamespace), forbidden, "not even in its own namespace");
  await assert.rejects(asOperator.list(undefined), forbidden, "nor cluster-wide");
  await assert.rejects(
    asOperator.list(outside, { labelSelector: "app.kubernetes.io/managed-by=mysql-operator" }),
    forbidden,
    "a label selector does not narrow what RBAC grants",
  );
});

test("a second replica is a ready standby (so a rolling update can proceed) that reconciles nothing until the leader stops", async () => {
  const quiet = newLogger({ write: () => undefined });
  const start = async () => {
    const kube = HttpKubeClient.fromKubeConfig(plane.kubeConfig(), {
      impersonate: { user: serviceAccountUser(operatorNamespace, serviceAccount) },
    });
    const controller = newMySQLClusterController(kube, hooks, { logger: quiet, namespace: served });
    const stop = new AbortController();
    const manager = await startManager([controller], {
      kube,
      logger: quiet,
      signal: stop.signal,
      options: {
        metricsBindAddress: "0",
        healthProbeBindAddress: "127.0.0.1:0",
        leaderElect: true,
        leaderElectionId: leaseName,
        leaderElectionNamespace: operatorNamespace,
      },
      leaseDurationMs: 4_000,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 500,
    });
    const readyz = async () => (await fetch(`http://127.0.0.1:${manager.healthProbePort}/readyz`)).status;
    const shutdown = async () => {
      stop.abort();
      await manager.done;
      kube.close();
    };
    return { controller, manager, readyz, shutdown };
  };
  const leader = await start();
  try {
    await eventually("the first replica leading and ready", async () =>
      leader.manager.isLeading() && (await leader.readyz()) === 200 ? true : undefined,
    );
    const standby = await start();
    try {
      assert.equal(await standby.readyz(), 200, "a standby answers ready");
      assert.equal(standby.manager.isLeading(), false);
      assert.equal(standby.controller.hasSynced(), false, "the standby's controller has not started");
      await leader.shutdown();
      await eventually("the standby taking over", () =>
        standby.manager.isLeading() && standby.controller.hasSynced() ? true : undefined,
      );
      assert.equal(await standby.readyz(), 200);
    } finally {
      await standby.shutdown();
    }
  } finally {
    await leader.shutdown();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The two API-server rules the ClusterRole derivation depends on, checked on the real API server.

/** A ServiceAccount-shaped identity in namespace `probe` with exactly `rules` (a Role there, or a ClusterRole when cluster). */
async function identityWith(name: string, rules: PolicyRule[], cluster = false): Promise<KubeClient> {
  const ns = "probe";
  await admin
    .request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
    })
    .catch((e: unknown) => {
      if (!(e instanceof ApiError && e.status === 409)) throw e;
    });
  const kind = cluster ? "ClusterRole" : "Role";
  const base = cluster ? "/apis/rbac.authorization.k8s.io/v1" : `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}`;
  await admin.request({
    method: "POST",
    path: `${base}/${kind.toLowerCase()}s`,
    body: { apiVersion: "rbac.authorization.k8s.io/v1", kind, metadata: { name }, rules },
  });
  await admin.request({
    method: "POST",
    path: `${base}/${kind.toLowerCase()}bindings`,
    body: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: `${kind}Binding`,
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind, name },
      subjects: [{ kind: "ServiceAccount", name, namespace: ns }],
    },
  });
  return HttpKubeClient.fromKubeConfig(plane.kubeConfig(), { impersonate: { user: serviceAccountUser(ns, name) } });
}

/** RBAC changes reach the authorizer's cache shortly after the write; retry a 403 for a little while. */
async function whenAuthorized<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 403) || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const configMap = (name: string, ownerReferences?: V1OwnerReference[]): Patch<V1ConfigMap> => ({
  type: "apply",
  fieldManager: "probe",
  force: true,
  body: {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "probe", ownerReferences },
    data: { a: "1" },
  },
});

test("server-side apply that creates an object needs create, not only patch; applying to an existing object needs only patch", async () => {
  const configMaps = new ResourceClient<V1ConfigMap>(admin, builtinResources.configMaps);
  const patchOnly = await identityWith("patch-only", [
    { apiGroups: [""], resources: ["configmaps"], verbs: ["patch"] },
  ]);
  const withCreate = await identityWith("patch-and-create", [
    { apiGroups: [""], resources: ["configmaps"], verbs: ["create", "patch"] },
  ]);
  try {
    // Existing object: patch alone is enough (this also waits for the Role to reach the authorizer).
    await configMaps.create("probe", { metadata: { name: "existing" }, data: { a: "0" } });
    const updated = await whenAuthorized(() =>
      new ResourceClient<V1ConfigMap>(patchOnly, builtinResources.configMaps).patch(
        "probe",
        "existing",
        configMap("existing"),
      ),
    );
    assert.equal(updated.data?.["a"], "1");
    // New object: patch alone is refused, naming create.
    await assert.rejects(
      new ResourceClient<V1ConfigMap>(patchOnly, builtinResources.configMaps).patch(
        "probe",
        "fresh",
        configMap("fresh"),
      ),
      (e: unknown) =>
        e instanceof ApiError && e.status === 403 && /cannot create resource "configmaps"/.test(e.message),
    );
    const created = await whenAuthorized(() =>
      new ResourceClient<V1ConfigMap>(withCreate, builtinResources.configMaps).patch(
        "probe",
        "fresh",
        configMap("fresh"),
      ),
    );
    assert.equal(created.metadata?.name, "fresh");
  } finally {
    patchOnly.close();
    withCreate.close();
  }
});

test("with OwnerReferencesPermissionEnforcement, a blockOwnerDeletion owner reference needs update on <primary>/finalizers, and changing an object's owner references needs delete", async () => {
  const clusters = newMySQLClusterClient(admin).namespace("probe");
  const owner = await clusters.create({
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "owner" },
    spec: { replicas: 1, version: "8.0.36" },
  });
  const ref = controllerOwnerReference(owner);
  assert.equal(ref.blockOwnerDeletion, true, "the runtime's controller owner references block owner deletion");
  const writeChildren: PolicyRule = { apiGroups: [""], resources: ["configmaps"], verbs: ["create", "patch"] };
  const without = await identityWith("no-finalizers", [writeChildren]);
  const withFinalizers = await identityWith(
    "finalizers",
    [writeChildren, { apiGroups: ["example.com"], resources: ["mysqlclusters/finalizers"], verbs: ["update"] }],
    true,
  );
  try {
    // The same child without an owner reference is allowed (waits for the Role to reach the authorizer).
    await whenAuthorized(() =>
      new ResourceClient<V1ConfigMap>(without, builtinResources.configMaps).patch("probe", "plain", configMap("plain")),
    );
    await assert.rejects(
      new ResourceClient<V1ConfigMap>(without, builtinResources.configMaps).patch(
        "probe",
        "child-a",
        configMap("child-a", [ref]),
      ),
      (e: unknown) => e instanceof ApiError && e.status === 403 && /finalizers/.test(e.message),
    );
    const child = await whenAuthorized(() =>
      new ResourceClient<V1ConfigMap>(withFinalizers, builtinResources.configMaps).patch(
        "probe",
        "child-b",
        configMap("child-b", [ref]),
      ),
    );
    assert.equal(child.metadata?.ownerReferences?.[0]?.uid, owner.metadata.uid);
    // Changing the owner references of an existing object (here: removing them) also needs delete on its kind.
    await assert.rejects(
      new ResourceClient<V1ConfigMap>(withFinalizers, builtinResources.configMaps).patch(
        "probe",
        "child-b",
        configMap("child-b", []),
      ),
      (e: unknown) => e instanceof ApiError && e.status === 403 && /delete/.test(e.message),
    );
    const canDelete = await identityWith(
      "finalizers-and-delete",
      [
        { ...writeChildren, verbs: [...writeChildren.verbs, "delete"] },
        { apiGroups: ["example.com"], resources: ["mysqlclusters/finalizers"], verbs: ["update"] },
      ],
      true,
    );
    try {
      const released = await whenAuthorized(() =>
        new ResourceClient<V1ConfigMap>(canDelete, builtinResources.configMaps).patch(
          "probe",
          "child-b",
          configMap("child-b", []),
        ),
      );
      assert.equal(released.metadata?.ownerReferences, undefined);
    } finally {
      canDelete.close();
    }
  } finally {
    without.close();
    withFinalizers.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The real process.

test("main.js with the Deployment's arguments, authenticated as the ServiceAccount by a token, serves probes, leads, serves /metrics over HTTPS to metrics-readers only (401 without a token, 403 without the role), and stops cleanly on SIGTERM", async () => {
  const token = await admin.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${operatorNamespace}/serviceaccounts/${serviceAccount}/token`,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  });
  const kc = plane.kubeConfig();
  const cluster = kc.getCurrentCluster()!;
  const saConfig = new KubeConfig();
  saConfig.loadFromOptions({
    clusters: [cluster],
    users: [{ name: serviceAccount, token: token.status.token }],
    contexts: [{ name: "operator", cluster: cluster.name, user: serviceAccount }],
    currentContext: "operator",
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), "crdgen-deploy-"));
  const kubeconfig = path.join(dir, "kubeconfig");
  await writeFile(kubeconfig, saConfig.exportConfig());

  // The container's arguments, with the ports moved to free ones on loopback (tests share the machine).
  const container = deployment.spec!.template.spec!.containers[0]!;
  const args = (container.args ?? []).map((a) =>
    a.startsWith("--metrics-bind-address=")
      ? "--metrics-bind-address=127.0.0.1:0"
      : a.startsWith("--health-probe-bind-address=")
        ? "--health-probe-bind-address=127.0.0.1:0"
        : a,
  );
  const main = path.join(repoRoot, "dist/samples/mysql/src/main.js");
  const child = spawn(process.execPath, [main, ...args], {
    // No webhook server: its certificate is cert-manager's Secret in a cluster (the webhooks' e2e serves them).
    env: {
      ...process.env,
      KUBECONFIG: kubeconfig,
      POD_NAMESPACE: operatorNamespace,
      KUBE_CONTEXT: "",
      ENABLE_WEBHOOKS: "false",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const ports: Record<string, number> = {};
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on("line", (line) => {
      lines.push(line);
      const entry = (() => {
        try {
          return JSON.parse(line) as { msg?: string; port?: number };
        } catch {
          return {};
        }
      })();
      if (entry.msg === "serving health probes" && entry.port) ports["health"] = entry.port;
      if (entry.msg === "serving metrics" && entry.port) ports["metrics"] = entry.port;
    });
  }
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("exit", (code, signal) => resolve([code, signal])),
  );
  try {
    await eventually("main.js serving probes", () => (ports["health"] && ports["metrics"] ? true : undefined));
    // Ready comes first (a standby is ready too); then it takes the free Lease.
    await eventually("main.js ready", async () =>
      (await fetch(`http://127.0.0.1:${ports["health"]}/readyz`)).status === 200 ? true : undefined,
    );
    await eventually(`main.js holding the Lease ${operatorNamespace}/${leaseName}`, async () =>
      (await kubeLeaseLock(admin, operatorNamespace, leaseName).get())?.spec?.holderIdentity ? true : undefined,
    );
    // Secure metrics: no token 401; a ServiceAccount token without metrics-reader 403; with it, the metrics.
    assert.deepEqual(await scrape(ports["metrics"]!), { status: 401, body: "Unauthorized\n" });
    const outsider = await scraperToken("process-outsider", false);
    assert.deepEqual(await scrape(ports["metrics"]!, outsider), {
      status: 403,
      body: `Authorization denied for user system:serviceaccount:${operatorNamespace}:process-outsider\n`,
    });
    const reader = await scraperToken("process-scraper", true);
    const metrics = await scrape(ports["metrics"]!, reader);
    assert.equal(metrics.status, 200, metrics.body);
    assert.match(metrics.body, /controller_runtime_reconcile_total\{controller="mysqlclusters\.example\.com"/);
    // It reconciles as the ServiceAccount, in the namespace it serves.
    const clusters = newMySQLClusterClient(admin).namespace(served);
    await clusters.create({
      apiVersion: "example.com/v1",
      kind: "MySQLCluster",
      metadata: { name: "by-process" },
      spec: { replicas: 1, version: "8.0.36" },
    });
    await eventually("main.js reconciled by-process", async () =>
      (await clusters.get("by-process")).status?.observedGeneration === 1 ? true : undefined,
    );
    child.kill("SIGTERM");
    assert.deepEqual(await exited, [0, null], `main.js exits 0 on SIGTERM:\n${lines.slice(-10).join("\n")}`);
    assert.equal(
      (await kubeLeaseLock(admin, operatorNamespace, leaseName).get())?.spec?.holderIdentity,
      "",
      "the Lease was released",
    );
    assert.ok(
      !lines.some((l) => /forbidden/i.test(l)),
      `nothing forbidden:\n${lines.filter((l) => /forbidden/i.test(l)).join("\n")}`,
    );
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
});
