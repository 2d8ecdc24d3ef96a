// One member of the sharding benchmark (bench/sharding.ts runs it with node --expose-gc): a manager with one sharded
// MySQLCluster controller whose reconcile burns BENCH_RECONCILE_MS of CPU and writes nothing. It prints a JSON line
// per reconcile ({r: [uid, start, end]}), and every 200 ms {held, bytes, synced} (the part of the hash space it
// reconciles, bytes of its primary LIST/WATCH, whether its caches synced); on SIGUSR2 {heap, rss, cpuMs, loopMaxMs,
// deadlineMissed} (V8 heap used after forced full GCs and peak RSS in MB, CPU time used in ms, the longest event-loop
// delay seen, and how often the member let its buckets go because it could not renew its Lease in time), and with
// BENCH_HEAP_SNAPSHOTS=<dir> a heap snapshot <dir>/<group>-<member>.heapsnapshot after that reading.
// argv: kubeconfig member group
import { controllerFor, loadKubeClient, newLogger, runManager } from "@crdgen/runtime";
import { shardingFor } from "@crdgen/runtime/manager";
import type { ResourceDescriptor } from "@crdgen/runtime/client";
import { HASH_SPACE } from "@crdgen/runtime/sharding";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { writeHeapSnapshot } from "node:v8";
import { countingKube } from "./sharding-counting-kube.js";

const [kubeconfig, member, group] = process.argv.slice(2);
if (!kubeconfig || !member || !group) throw new Error("usage: sharding-member <kubeconfig> <member> <group>");
const reconcileMs = Number(process.env["BENCH_RECONCILE_MS"] ?? 2);
const say = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
const now = () => performance.timeOrigin + performance.now();

const clusters: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  plural: "mysqlclusters",
  kind: "MySQLCluster",
  namespaced: true,
};

const counter = { bytes: 0 };
const loopDelay = monitorEventLoopDelay({ resolution: 20 });
loopDelay.enable();
let deadlineMissed = 0;
const logger = newLogger({
  level: "warn",
  write: (line: string) => {
    if (line.includes("could not renew the member Lease within the renew deadline")) deadlineMissed++;
    process.stderr.write(`[${member}] ${line}`);
  },
});
const kube = countingKube(loadKubeClient({ kubeconfig }), counter);
const sharding = shardingFor(
  kube,
  { sharding: group, shardingField: "uid", leaderElectionNamespace: "default" },
  { identity: member, leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500, logger },
);
if (!sharding) throw new Error("no sharding member");
const controller = controllerFor(
  kube,
  clusters,
  {
    // eslint-disable-next-line @typescript-eslint/require-await -- the hook's type is async; this one only burns CPU
    async reconcile(_ctx, obj) {
      const start = now();
      while (now() - start < reconcileMs); // the reconcile's CPU cost
      say({ r: [obj.metadata?.uid, start, now()] });
    },
  },
  // A first LIST of 100,000 large objects on a loaded machine can take minutes: the bench waits for it.
  { sharding, workers: 4, logger, cacheSyncTimeoutMs: 900_000 },
  () => ({}),
);
/** The part of the hash space this member reconciles. */
const held = () => {
  let covered = 0n;
  for (const r of sharding.heldRanges()) covered += r.end - r.start;
  return Number((covered * 1_000_000n) / HASH_SPACE) / 1_000_000;
};
const report = setInterval(() => say({ held: held(), bytes: counter.bytes, synced: controller.hasSynced() }), 200);
process.on("SIGUSR2", () => {
  // Full, synchronous collections: what is left is what the member holds, not garbage waiting for the next GC.
  for (let i = 0; i < 4; i++) globalThis.gc?.();
  const { user, system } = process.cpuUsage();
  say({
    heap: process.memoryUsage().heapUsed / 2 ** 20,
    rss: process.resourceUsage().maxRSS / 1024,
    cpuMs: (user + system) / 1000,
    loopMaxMs: loopDelay.max / 1e6,
    deadlineMissed,
  });
  const snapshots = process.env["BENCH_HEAP_SNAPSHOTS"];
  if (snapshots) writeHeapSnapshot(path.join(snapshots, `${group}-${member}.heapsnapshot`));
});
try {
  await runManager([controller], {
    kube,
    options: { metricsBindAddress: "0", healthProbeBindAddress: "0", leaderElect: false },
    sharding,
    logger,
  });
} finally {
  clearInterval(report);
  kube.close();
}
