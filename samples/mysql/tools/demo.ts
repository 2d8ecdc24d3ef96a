// The README's main job: the generated MySQL operator, step by step, against a local control plane (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler, kwok) or, with `--kube-context <name>`, a real cluster; with
// `--real-node`, the whole story on a real kubelet + containerd node (real-node-story.ts); with `--shards 3`, three
// replicas of the operator split the MySQLClusters (--sharding), one is killed, the others take over (demo-shards.ts).
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import {
  MissingBinaryError,
  startControlPlane,
  startWebhookEnvironment,
  type ControlPlane,
  type WebhookEnvironment,
} from "@crdgen/runtime/envtest";
import type { V1StatefulSet } from "@kubernetes/client-node";
import { PollTimeoutError, pollUntil } from "@crdgen/runtime/wait";
import {
  ApiError,
  ResourceClient,
  builtinResources as kinds,
  isNotFound,
  loadKubeClient,
  newLogger,
  type KubeClient,
  type KubernetesObject,
} from "@crdgen/runtime";
import { newMySQLClusterController } from "../generated/example.com/v1/mysqlcluster.controller.js";
import { newMySQLClusterClient, type MySQLClusterVerbs } from "../generated/example.com/v1/mysqlcluster.client.js";
import type { MySQLCluster } from "../generated/example.com/v1/mysqlcluster.types.js";
import { newMySQLClusterClient as newV1alpha1Client } from "../generated/example.com/v1alpha1/mysqlcluster.client.js";
import { newWebhooks } from "../generated/webhooks.js";
import * as hooks from "../src/mysqlcluster.hooks.js";
import { runRealNodeStoryOnNewPlane } from "./real-node-story.js";
import { shardsDemo } from "./demo-shards.js";

const sampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../samples/mysql");
const say = (line: string) => process.stdout.write(`${line}\n`);
const upgradeTo = "8.0.37";

/** The cluster: a local control plane (default) or the kubeconfig context given with --kube-context (--context). */
async function connect(
  context: string | undefined,
): Promise<{ kube: KubeClient; plane?: ControlPlane; kubeletLike: boolean }> {
  const crdFile = path.join(sampleDir, "crd.yaml");
  if (context) {
    say(
      `== using kubeconfig context ${context} (no local control plane); installing samples/mysql/crd.yaml with server-side apply`,
    );
    const kube = loadKubeClient({ context });
    const crd = parse(await readFile(crdFile, "utf8")) as KubernetesObject;
    const crds = new ResourceClient<KubernetesObject>(kube, {
      group: "apiextensions.k8s.io",
      version: "v1",
      plural: "customresourcedefinitions",
      kind: "CustomResourceDefinition",
      namespaced: false,
    });
    await crds.patch(undefined, crd.metadata!.name!, {
      type: "apply",
      body: crd as never,
      fieldManager: "crdgen-demo",
      force: true,
    });
    await until(30_000, async () =>
      (
        (await crds.get(undefined, crd.metadata!.name!)) as {
          status?: { conditions?: Array<{ type: string; status: string }> };
        }
      ).status?.conditions?.some((c) => c.type === "Established" && c.status === "True"),
    );
    return { kube, kubeletLike: true };
  }
  say(
    "== starting a local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok) and installing samples/mysql/crd.yaml",
  );
  const plane = await startControlPlane({ crdFiles: [crdFile], controllers: true }).catch((error: unknown) => {
    if (error instanceof MissingBinaryError)
      say("   run `npm run controlplane:build` first (npm run demo does it for you)");
    throw error;
  });
  say(`   API server ${plane.apiServerUrl}; kubeconfig ${plane.kubeconfigPath}`);
  say(
    plane.fakeNodeName
      ? `   pods run on the kwok fake node ${plane.fakeNodeName}: kwok reports them Running and Ready (no real MySQL starts)`
      : `   no kwok (${plane.kwokUnavailable}): the demo plays the StatefulSet controller's part and writes StatefulSet status itself`,
  );
  return { kube: plane.kubeClient(), plane, kubeletLike: plane.fakeNodeName !== undefined };
}

/** What check returned first within ms (an error counts as "not yet"), or undefined when it never did. */
function until<T>(ms: number, check: () => Promise<T | undefined | false>): Promise<T | undefined> {
  return pollUntil(() => check().catch(() => undefined), { intervalMs: 250, timeoutMs: ms }).catch((error: unknown) => {
    if (error instanceof PollTimeoutError) return undefined;
    throw error;
  });
}

/** Without kwok nothing runs pods: report every StatefulSet rollout as complete, as its controller would. */
function playStatefulSetController(kube: KubeClient, signal: AbortSignal): void {
  const sts = new ResourceClient<V1StatefulSet>(kube, kinds.statefulSets);
  void (async () => {
    while (!signal.aborted) {
      const s = await sts.get("default", "db").catch(() => undefined);
      const n = s?.spec?.replicas ?? 0;
      const rev = `rev-${s?.metadata?.generation ?? 0}`;
      if (s && (s.status?.readyReplicas !== n || s.status.observedGeneration !== s.metadata?.generation)) {
        await sts
          .patchStatus("default", "db", {
            type: "merge",
            body: {
              status: {
                replicas: n,
                readyReplicas: n,
                updatedReplicas: n,
                currentRevision: rev,
                updateRevision: rev,
                observedGeneration: s.metadata?.generation,
              },
            },
          })
          .catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
}

/**
 * --real-node: the story for real (real-node-story.ts) on a local control plane with a real kubelet + containerd node:
 * the operator in-cluster, real MariaDB servers, backup and restore. Needs root and `npm run images:build`.
 */
async function realNodeDemo(): Promise<number> {
  say(
    "== starting a local control plane with a real node (kubelet, containerd, runc, CNI bridge, kube-proxy, CoreDNS)",
  );
  await runRealNodeStoryOnNewPlane({
    started: (plane) =>
      say(`   API server ${plane.apiServerUrl}; node ${plane.realNodeName}; kubeconfig ${plane.kubeconfigPath}`),
    report: (step, facts, seconds) => {
      say(`\n== ${step} (${seconds.toFixed(0)} s)`);
      for (const [key, value] of Object.entries(facts)) say(`   ${key}: ${JSON.stringify(value)}`);
    },
    stopping: () => say("== stopping the control plane and the node (removes containers, mounts, veths and cgroups)"),
  });
  say("\n== done: every step saw what it waited for");
  return 0;
}

async function main(): Promise<number> {
  // --kube-context, as the operator and crdgen spell it, or kubectl's --context.
  const contextFlags = { context: { type: "string" }, "kube-context": { type: "string" } } as const;
  const { values } = parseArgs({
    options: { ...contextFlags, "real-node": { type: "boolean" }, shards: { type: "string" } },
  });
  if (values["real-node"]) return realNodeDemo();
  // --shards N: N replicas of the operator with --sharding split the MySQLClusters (demo-shards.ts).
  if (values.shards) return shardsDemo(Number(values.shards));
  const { kube, plane, kubeletLike } = await connect(values["kube-context"] ?? values.context);
  const stop = new AbortController();
  let webhooks: WebhookEnvironment | undefined;
  try {
    const controller = newMySQLClusterController(kube, hooks, { logger: newLogger({ level: "warn" }) });
    const running = controller.run(stop.signal);
    if (!kubeletLike) playStatefulSetController(kube, stop.signal);
    const steps = stepper();
    const story: Story = { kube, kubeletLike, clusters: newMySQLClusterClient(kube).namespace("default"), ...steps };

    await createCluster(story);
    if (plane) {
      // The API server calls the operator's webhooks over TLS: a CA made here, the server on loopback, caBundle set.
      webhooks = await startWebhookEnvironment({ kube, webhooks: newWebhooks(), logger: newLogger({ level: "warn" }) });
      say(`\n== webhooks served at ${webhooks.url} (${webhooks.server.paths.join(", ")})`);
      await webhookSteps(kube, story.step);
    } else {
      say("\n== webhook steps skipped: a remote cluster's API server cannot call a webhook served on this machine");
    }
    await scaleAndUpgrade(story);
    await restoreDeletedService(story);
    await deleteCluster(story);

    stop.abort();
    await running;
    const failures = steps.failures();
    say(
      failures === 0
        ? "\nall steps reached their expected state"
        : `\n${failures} step(s) did not reach their expected state`,
    );
    return failures === 0 ? 0 : 1;
  } finally {
    stop.abort();
    await webhooks?.stop();
    await plane?.stop();
  }
}

/** What the demo's steps share: the cluster, the sample's MySQLCluster client, and the step that checks each one. */
interface Story {
  kube: KubeClient;
  /** A real kube-controller-manager runs (garbage collection, the StatefulSet controller). */
  kubeletLike: boolean;
  clusters: MySQLClusterVerbs;
  step: Step;
}

/** A step prints its title and what it saw, or FAILED with what it expected; failures() counts those. */
function stepper(): { step: Step; failures: () => number } {
  let failures = 0;
  const step: Step = async (title, expectation, check, ms = 60_000) => {
    say(`\n== ${title}`);
    const seen = await until(ms, check);
    if (seen)
      say(
        seen
          .split("\n")
          .map((l) => `   ${l}`)
          .join("\n"),
      );
    else {
      failures++;
      say(`   FAILED: expected ${expectation} within ${ms / 1000}s`);
    }
  };
  return { step, failures: () => failures };
}

/** Phase, versions and conditions, as `kubectl get myc db -o wide` and `kubectl describe` would show them. */
function clusterSummary(db: MySQLCluster): string {
  const s = db.status ?? {};
  const conditions = (s.conditions ?? []).map((c) => `${c.type}=${c.status} (${c.reason}: ${c.message})`);
  return [
    `phase ${s.phase}, ready ${s.readyReplicas ?? 0}/${db.spec?.replicas}, currentVersion ${s.currentVersion ?? "-"}, observedGeneration ${s.observedGeneration}`,
    ...conditions.map((c) => `  ${c}`),
  ].join("\n");
}

/** A check that passes, with the cluster's summary, once MySQLCluster db is as `accept` wants. */
function whenStatus(story: Story, accept: (db: MySQLCluster) => boolean): () => Promise<string | undefined> {
  return async () => {
    const db = await story.clusters.get("db");
    return accept(db) ? clusterSummary(db) : undefined;
  };
}

/** Every child of db with its owner, once all exist. */
async function childList(kube: KubeClient): Promise<string | undefined> {
  const found: string[] = [];
  for (const [r, name] of [
    [kinds.secrets, "db-root"],
    [kinds.configMaps, "db-config"],
    [kinds.serviceAccounts, "db"],
    [kinds.services, "db-headless"],
    [kinds.services, "db"],
    [kinds.statefulSets, "db"],
    [kinds.podDisruptionBudgets, "db"],
  ] as const) {
    const o = await new ResourceClient<KubernetesObject>(kube, r).get("default", name).catch(() => undefined);
    if (!o) return undefined;
    const owner = o.metadata?.ownerReferences?.find((x) => x.controller);
    found.push(
      `${r.kind} ${name}${owner ? ` (owned by ${owner.kind} ${owner.name})` : " (not owned: outlives the cluster with reclaimPolicy Retain)"}`,
    );
  }
  return found.join("\n");
}

async function createCluster(story: Story): Promise<void> {
  const desired = parse(await readFile(path.join(sampleDir, "cluster.yaml"), "utf8")) as MySQLCluster;
  await story.clusters.create(desired);
  await story.step(
    `apply samples/mysql/cluster.yaml (replicas ${desired.spec?.replicas}, version ${desired.spec?.version})`,
    "status.observedGeneration 1",
    whenStatus(story, (db) => db.status?.observedGeneration === 1),
  );
  await story.step(
    "children created",
    "Secret, ConfigMap, ServiceAccount, two Services, StatefulSet and PodDisruptionBudget",
    () => childList(story.kube),
  );
  await story.step(
    "status moves to Ready",
    "phase Ready with 3 ready instances",
    whenStatus(story, (db) => db.status?.phase === "Ready" && db.status.readyReplicas === 3),
  );
}

async function scaleAndUpgrade(story: Story): Promise<void> {
  const statefulSets = new ResourceClient<V1StatefulSet>(story.kube, kinds.statefulSets);
  await story.clusters.patch("db", { type: "merge", body: { spec: { replicas: 5 } } });
  await story.step("scale from 3 to 5 instances", "the StatefulSet at 5 replicas", async () => {
    const sts = await statefulSets.get("default", "db");
    return sts.spec?.replicas === 5
      ? `StatefulSet db: spec.replicas 5 (pod template unchanged: no restart)`
      : undefined;
  });
  await story.step(
    "Ready again with 5 instances",
    "phase Ready with 5 ready instances",
    whenStatus(story, (db) => db.status?.phase === "Ready" && db.status.readyReplicas === 5),
  );

  await story.clusters.patch("db", { type: "merge", body: { spec: { version: upgradeTo } } });
  await story.step(
    `upgrade to ${upgradeTo}`,
    `image mysql:${upgradeTo} rolled out and currentVersion ${upgradeTo}`,
    whenStatus(story, (db) => db.status?.currentVersion === upgradeTo && db.status.phase === "Ready"),
    120_000,
  );
}

async function restoreDeletedService(story: Story): Promise<void> {
  const services = new ResourceClient<KubernetesObject>(story.kube, kinds.services);
  const before = await services.get("default", "db");
  await services.delete("default", "db");
  say(`\n== deleted Service db by hand (uid ${before.metadata?.uid})`);
  await story.step("deleted Service restored", "a new Service db", async () => {
    const svc = await services.get("default", "db").catch(() => undefined);
    return svc && svc.metadata?.uid !== before.metadata?.uid
      ? `Service db recreated (uid ${svc.metadata?.uid}) by the reconcile its delete event triggered`
      : undefined;
  });
}

async function deleteCluster(story: Story): Promise<void> {
  await story.clusters.delete("db");
  await story.step("delete the cluster", "the MySQLCluster to be gone", async () =>
    story.clusters.get("db").then(
      () => undefined,
      (error: unknown) =>
        isNotFound(error)
          ? "MySQLCluster db is gone (no finalizer: the garbage collector removes the children)"
          : undefined,
    ),
  );
  if (!story.kubeletLike) return;
  const statefulSets = new ResourceClient<V1StatefulSet>(story.kube, kinds.statefulSets);
  await story.step("children garbage-collected", "the StatefulSet to be deleted through its ownerReference", async () =>
    statefulSets.get("default", "db").then(
      () => undefined,
      (error: unknown) => (isNotFound(error) ? "StatefulSet db deleted by the garbage collector" : undefined),
    ),
  );
}

type Step = (
  title: string,
  expectation: string,
  check: () => Promise<string | undefined>,
  ms?: number,
) => Promise<void>;

/**
 * Defaulting, a refused downgrade (CEL first for v1; the validating webhook for v1alpha1, whose schema has no such
 * rule) and a v1alpha1 object read back as v1 through the conversion webhook.
 */
async function webhookSteps(kube: KubeClient, step: Step): Promise<void> {
  const clusters = newMySQLClusterClient(kube).namespace("default");
  const legacy = newV1alpha1Client(kube).namespace("default");
  const refusal = (error: unknown) =>
    error instanceof ApiError ? `${error.status} ${error.reason}: ${error.message}` : undefined;

  // The API server takes up new webhook configurations within about a second: until then the schema refuses a
  // MySQLCluster without spec.version, so the create is retried until the defaulting webhook fills it in.
  const withoutVersion = {
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "defaulted" },
    spec: { replicas: 1 },
  } as unknown as MySQLCluster;
  await step(
    "create a MySQLCluster without spec.version",
    "spec.version filled in by the defaulting webhook",
    async () => {
      const created = await clusters.create(withoutVersion);
      return `spec.version ${created.spec?.version} (the newest supported version, set by the mutating webhook)`;
    },
  );
  await clusters.delete("defaulted").catch(() => undefined);

  await step("downgrade db to 5.7.44 as v1", "a 422 refusal", async () =>
    clusters.patch("db", { type: "merge", body: { spec: { version: "5.7.44" } } }).then(
      () => undefined,
      (error: unknown) => `refused (the CRD's CEL rule fires before the validating webhook): ${refusal(error)}`,
    ),
  );
  await step("downgrade db to 5.7.44 as v1alpha1 (spec.image)", "a 422 refusal with the field spec.version", async () =>
    legacy.patch("db", { type: "merge", body: { spec: { image: "mysql:5.7.44" } } }).then(
      () => undefined,
      (error: unknown) =>
        `refused (v1alpha1 has no CEL rule; the validating webhook sees the object as v1): ${refusal(error)}`,
    ),
  );

  await legacy.create({
    apiVersion: "example.com/v1alpha1",
    kind: "MySQLCluster",
    metadata: { name: "legacy" },
    spec: { size: 1, image: "mysql:8.0.36" },
  });
  await step(
    "create legacy as v1alpha1 (size 1, image mysql:8.0.36), read it as v1",
    "replicas 1, version 8.0.36",
    async () => {
      const v1 = await clusters.get("legacy");
      return v1.spec?.replicas === 1 && v1.spec.version === "8.0.36"
        ? `${v1.apiVersion}: replicas ${v1.spec.replicas}, imageRepository ${v1.spec.imageRepository}, version ${v1.spec.version} (converted by the conversion webhook)`
        : undefined;
    },
  );
  await legacy.delete("legacy").catch(() => undefined);
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
