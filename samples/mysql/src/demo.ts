// The README's main job: the generated MySQL operator against a local control plane (etcd + kube-apiserver), step by step.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { MissingBinaryError, startControlPlane } from "@crdgen/runtime/envtest";
import type { V1StatefulSet } from "@kubernetes/client-node";
import { ResourceClient, builtinResources, isNotFound, newLogger } from "@crdgen/runtime";
import { newMySQLClusterController } from "../generated/example.com/v1/mysqlcluster.controller.js";
import { newMySQLClusterClient } from "../generated/example.com/v1/mysqlcluster.client.js";
import type { MySQLCluster } from "../generated/example.com/v1/mysqlcluster.types.js";
import * as hooks from "./mysqlcluster.hooks.js";

const sampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../samples/mysql");
const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  say("== starting a local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok) and installing samples/mysql/crd.yaml");
  const plane = await startControlPlane({ crdFiles: [path.join(sampleDir, "crd.yaml")], controllers: true }).catch((error: unknown) => {
    if (error instanceof MissingBinaryError) say("   run `npm run controlplane:build` first (npm run demo does it for you)");
    throw error;
  });
  const stop = new AbortController();
  try {
    say(`   API server ${plane.apiServerUrl}; kubeconfig ${plane.kubeconfigPath}`);
    say(plane.fakeNodeName
      ? `   pods run on the kwok fake node ${plane.fakeNodeName}: kwok reports them Running and Ready (no real MySQL starts)`
      : `   no kwok (${plane.kwokUnavailable}): pods stay Pending, so the cluster cannot become Ready`);
    const kube = plane.kubeClient();
    const controller = newMySQLClusterController(kube, hooks, { logger: newLogger({ level: "info" }) });
    const running = controller.run(stop.signal);

    const clusters = newMySQLClusterClient(kube).namespace("default");
    const desired = parse(await readFile(path.join(sampleDir, "cluster.yaml"), "utf8")) as MySQLCluster;
    let failures = 0;
    const step = async (title: string, expectation: string, check: () => Promise<string | undefined>) => {
      say(`\n== ${title}`);
      const deadline = Date.now() + 30_000;
      let seen: string | undefined;
      for (;;) {
        seen = await check();
        if (seen !== undefined || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      if (seen !== undefined) say(`   ok: ${seen}`);
      else {
        failures++;
        say(`   FAILED: expected ${expectation} within 30s`);
      }
    };
    const observed = (generation: number) => async () => {
      const db = await clusters.get("db");
      return db.status?.observedGeneration === generation
        ? `generation ${db.metadata.generation}, status ${JSON.stringify(db.status)}`
        : undefined;
    };

    const statefulSets = new ResourceClient<V1StatefulSet>(kube, builtinResources.statefulSets);
    const children = async (replicas: number) => {
      const sts = await statefulSets.get("default", "db").catch(() => undefined);
      const owner = sts?.metadata?.ownerReferences?.find((r) => r.controller);
      return sts?.spec?.replicas === replicas && owner ? `StatefulSet db (replicas ${replicas}, image ${sts.spec.template.spec?.containers[0]?.image}, owned by ${owner.kind} ${owner.name})` : undefined;
    };
    await clusters.create(desired);
    const ready = (replicas: number, generation: number) => async () => {
      const db = await clusters.get("db");
      const s = db.status;
      return s?.phase === "Ready" && s.readyReplicas === replicas && s.observedGeneration === generation
        ? `phase Ready, readyReplicas ${s.readyReplicas}/${db.spec?.replicas}, observedGeneration ${s.observedGeneration}`
        : undefined;
    };
    await step(`apply samples/mysql/cluster.yaml (replicas ${desired.spec?.replicas}, version ${desired.spec?.version})`, "status.observedGeneration 1", observed(1));
    await step("children created", "a StatefulSet db with 3 replicas owned by the MySQLCluster", () => children(3));
    await step("status moves to Ready", "phase Ready with 3 ready replicas", ready(3, 1));
    await clusters.patch("db", { type: "merge", body: { spec: { replicas: 5 } } });
    await step("scale from 3 to 5 replicas", "status.observedGeneration 2", observed(2));
    await step("StatefulSet scaled", "the StatefulSet at 5 replicas", () => children(5));
    await step("Ready again with 5 instances", "phase Ready with 5 ready replicas", ready(5, 2));
    await clusters.patch("db", { type: "merge", body: { spec: { version: "8.0.37" } } });
    await step("upgrade to 8.0.37", "status.observedGeneration 3", observed(3));
    await clusters.delete("db");
    await step("delete the cluster", "the MySQLCluster to be gone", async () =>
      clusters.get("db").then(() => undefined, (error: unknown) => (isNotFound(error) ? "db is gone" : undefined)),
    );
    await step("children garbage-collected", "the StatefulSet to be deleted through its ownerReference", async () =>
      statefulSets.get("default", "db").then(() => undefined, (error: unknown) => (isNotFound(error) ? "StatefulSet db deleted by the garbage collector" : undefined)),
    );

    stop.abort();
    await running;
    say(failures === 0 ? "\nall steps reached their expected state" : `\n${failures} step(s) did not reach their expected state`);
    return failures === 0 ? 0 : 1;
  } finally {
    stop.abort();
    await plane.stop();
  }
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
