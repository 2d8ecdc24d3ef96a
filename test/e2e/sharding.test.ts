// Horizontal sharding end to end (issue 31): manager processes of one sharding group reconcile MySQLClusters on a real
// kube-apiserver, with ShardedListAndWatch on (the server filters) and off (each member filters on its side). Every
// reconcile is recorded (member, uid, start, end); the test asserts that every object converges and that no two
// members' reconciles of one object overlap, through start, steady state, kill -9, SIGTERM, SIGSTOP past the Lease and
// SIGCONT, a fourth member joining and an API server restart; with the gate on, each member's primary LIST/WATCH
// bytes are about 1/N of the whole.
// SHARDING_E2E_OBJECTS sets the object count: default 1000 (this file takes ~3.5 min); 10,000 takes 10.4 min for the
// gate-on tests alone, more than CI's budget allows, so bench:runtime's sharding scenario runs 10,000.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { ResourceClient, type KubeClient } from "@crdgen/runtime/client";
import { repoRoot, eventually } from "./control-plane.js";
import { type Cluster, Fleet, clustersResource, inBatches, overlaps } from "./sharding-fleet.js";

const OBJECTS = Number(process.env["SHARDING_E2E_OBJECTS"] ?? 1000);
const LEASE_MS = 4_000;

/** One control plane and fleet per gate setting. */
function scenario(gate: boolean) {
  let plane: ControlPlane;
  let kube: KubeClient;
  let clusters: ResourceClient<Cluster>;
  let fleet: Fleet;
  let created = 0;

  const create = async (count: number) => {
    const names = Array.from({ length: count }, () => `c-${created++}`);
    await inBatches(names, 50, (name) =>
      clusters.create("default", {
        apiVersion: "example.com/v1",
        kind: "MySQLCluster",
        metadata: { name },
        spec: { version: "8.0.36" },
      }),
    );
  };
  /** Bumps the generation of every `every`-th object, so their members must reconcile again. */
  const touch = async (every: number) => {
    const list = await clusters.list("default");
    const some = list.items.filter((_, i) => i % every === 0);
    await inBatches(some, 50, (c) =>
      clusters.patch("default", c.metadata?.name ?? "", {
        type: "merge",
        body: { spec: { replicas: (c.spec?.replicas ?? 1) + 1 } },
      }),
    );
  };
  const converged = (what: string, timeoutMs = 120_000 * Math.max(1, OBJECTS / 1000)) =>
    eventually(
      `${what}: every MySQLCluster reconciled at its generation`,
      async () => {
        const list = await clusters.list("default");
        const behind = list.items.filter((c) => c.status?.observedGeneration !== c.metadata?.generation);
        return list.items.length === created && behind.length === 0 ? true : undefined;
      },
      timeoutMs,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${fleet.logs()}`);
    });

  before(async () => {
    plane = await startControlPlane({
      crdFiles: [path.join(repoRoot, "samples/mysql/crd.yaml")],
      apiServerArgs: gate ? ["--feature-gates=ShardedListAndWatch=true"] : [],
    });
    kube = plane.kubeClient();
    clusters = new ResourceClient(kube, clustersResource);
    fleet = new Fleet(plane.kubeconfigPath, gate ? "gate-on" : "gate-off");
  });

  after(async () => {
    (fleet as Fleet | undefined)?.stopAll();
    await (plane as ControlPlane | undefined)?.stop();
  });

  /** Resolves once the API server answers LISTs of MySQLClusters again (after a restart its storage initialises). */
  const serving = () => eventually("MySQLClusters listed", () => clusters.list("default").then(() => true), 60_000);

  return {
    serving,
    get fleet() {
      return fleet;
    },
    get plane() {
      return plane;
    },
    create,
    touch,
    converged,
  };
}

const on = scenario(true);

test(`gate on: 3 members split ${OBJECTS} MySQLClusters; each receives about 1/3 of the bytes`, async () => {
  const { fleet } = on;
  for (const m of ["a", "b", "c"]) fleet.start(m);
  await eventually("3 members hold their shares", () => (fleet.allOwn(["a", "b", "c"]) ? true : undefined), 60_000);
  const started = Date.now();
  await on.create(OBJECTS);
  await on.converged("start");
  const seconds = (Date.now() - started) / 1000;
  const bytes = ["a", "b", "c"].map((m) => fleet.bytes.get(m) ?? 0);
  await new Promise((resolve) => setTimeout(resolve, 1_200)); // the next byte report
  const total = ["a", "b", "c"].reduce((sum, m) => sum + (fleet.bytes.get(m) ?? 0), 0);
  const shares = ["a", "b", "c"].map((m) => (fleet.bytes.get(m) ?? 0) / total);
  console.log(
    `# ${OBJECTS} objects converged in ${seconds.toFixed(1)} s; primary LIST/WATCH bytes per member ${bytes.join(", ")}; shares ${shares.map((s) => s.toFixed(2)).join(", ")}`,
  );
  for (const share of shares) assert.ok(share > 0.15 && share < 0.55, `a member's share of the bytes is ${share}`);
  const members = new Set(fleet.reconciles.map((r) => r.member));
  assert.deepEqual([...members].sort(), ["a", "b", "c"]);
  assert.deepEqual(overlaps(fleet.reconciles), []);
});

test("gate on: kill -9 of a member; its objects move after its Lease expires", async () => {
  const { fleet } = on;
  fleet.signal("a", "SIGKILL");
  await fleet.exited("a");
  const killed = Date.now();
  await on.touch(5);
  await on.create(50);
  await on.converged("after kill -9");
  console.log(`# converged ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill (Lease ${LEASE_MS / 1000} s)`);
  assert.deepEqual(overlaps(fleet.reconciles), []);
});

test("gate on: SIGTERM of a member hands over at once; two members join", async () => {
  const { fleet } = on;
  fleet.signal("b", "SIGTERM");
  assert.equal(await fleet.exited("b"), 0);
  await on.touch(5);
  await on.converged("after SIGTERM");
  fleet.start("d");
  fleet.start("e");
  await eventually("c, d, e hold their shares", () => (fleet.allOwn(["c", "d", "e"]) ? true : undefined), 60_000);
  await on.touch(4);
  await on.converged("after d and e joined");
  assert.deepEqual(overlaps(fleet.reconciles), []);
});

test("gate on: SIGSTOP past the Lease and SIGCONT: the others take over, the woken member reconciles nothing it lost", async () => {
  const { fleet } = on;
  fleet.signal("c", "SIGSTOP");
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 1_000));
  await on.touch(3);
  await on.create(50);
  await on.converged("while c is stopped");
  fleet.signal("c", "SIGCONT");
  await on.touch(3);
  await on.converged("after SIGCONT");
  assert.deepEqual(overlaps(fleet.reconciles), []);
});

test("gate on: a fourth member joins; then the API server restarts", async () => {
  const { fleet } = on;
  fleet.start("f");
  await eventually(
    "4 members hold their shares",
    () => (fleet.allOwn(["c", "d", "e", "f"]) ? true : undefined),
    60_000,
  );
  await on.touch(3);
  await on.converged("after f joined");
  await on.plane.restartApiServer();
  await on.serving();
  await on.touch(3);
  await on.converged("after the API server restart");
  assert.deepEqual(overlaps(fleet.reconciles), []);
  const members = new Set(fleet.reconciles.map((r) => r.member));
  assert.deepEqual([...members].sort(), ["a", "b", "c", "d", "e", "f"]);
});

const off = scenario(false);

test(`gate off: the members filter on their side; ${OBJECTS} converge, each receives every object's bytes`, async () => {
  const { fleet } = off;
  for (const m of ["a", "b", "c"]) fleet.start(m);
  await eventually("3 members hold their shares", () => (fleet.allOwn(["a", "b", "c"]) ? true : undefined), 60_000);
  await off.create(OBJECTS);
  await off.converged("start");
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  const bytes = ["a", "b", "c"].map((m) => fleet.bytes.get(m) ?? 0);
  console.log(`# gate off: primary LIST/WATCH bytes per member ${bytes.join(", ")}`);
  // Each receives every object (and every status write's event): no member gets less than 0.8 of the most.
  for (const b of bytes) assert.ok(b > 0.8 * Math.max(...bytes), `bytes ${bytes.join(", ")}`);
  fleet.signal("a", "SIGKILL");
  await fleet.exited("a");
  await off.touch(4);
  await off.converged("after kill -9");
  assert.deepEqual(overlaps(fleet.reconciles), []);
});
