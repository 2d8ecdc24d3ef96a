// What the sharded real-node test does to the operator's Pods and measures meanwhile: API writes made continuously
// through the webhooks (each failure kept), a true kill -9 of a Pod's process from the node, and the wait until the
// other members hold a dead member's buckets.
import { readdirSync, readFileSync } from "node:fs";
import type { V1Lease, V1Pod } from "@kubernetes/client-node";
import { ResourceClient, builtinResources as kinds, type KubeClient } from "@crdgen/runtime";
import { pollUntil } from "@crdgen/runtime/wait";
import { memberHoldings, type MemberHolding } from "../../samples/mysql/tools/shard-owners.js";

export interface WriteCount {
  ok: number;
  failed: string[];
}

/**
 * Writes continuously (`write(i)` for i = 0, 1, …, one at a time, `pauseMs` apart, never retried) until stop() is
 * called; stop resolves with how many succeeded and each failure's message.
 */
export function writeContinuously(write: (i: number) => Promise<unknown>, pauseMs = 100) {
  const count: WriteCount = { ok: 0, failed: [] };
  const state = { stopped: false };
  const loop = (async () => {
    for (let i = 0; !state.stopped; i++) {
      try {
        await write(i);
        count.ok++;
      } catch (error) {
        count.failed.push(`${new Date().toISOString()} ${String(error).slice(0, 600)}`);
      }
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return {
    stop: async (): Promise<WriteCount> => {
      state.stopped = true;
      await loop;
      return count;
    },
  };
}

/** The process ids of a Pod's containers other than its sandbox (pause), found by the Pod's cgroup on this node. */
function containerProcesses(pod: V1Pod): number[] {
  const uid = pod.metadata?.uid ?? "";
  if (!uid) throw new Error("containerProcesses: the Pod has no uid");
  const marks = [`pod${uid}`, `pod${uid.replaceAll("-", "_")}`];
  const pids: number[] = [];
  for (const entry of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cgroup = readFileSync(`/proc/${entry}/cgroup`, "utf8");
      if (!marks.some((m) => cgroup.includes(m))) continue;
      const argv0 = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")[0] ?? "";
      if (!argv0.endsWith("pause")) pids.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

/** SIGKILLs every process of a Pod's containers from the node (nothing runs on its way out); returns their ids. */
export function killPodProcesses(pod: V1Pod): number[] {
  const pids = containerProcesses(pod);
  if (pids.length === 0) throw new Error(`no process found in the cgroup of Pod ${pod.metadata?.name}`);
  for (const pid of pids) process.kill(pid, "SIGKILL");
  return pids;
}

/** A member Lease's leaseDurationSeconds, in milliseconds. */
export async function leaseDurationMs(kube: KubeClient, namespace: string, member: string): Promise<number> {
  const lease = await new ResourceClient<V1Lease>(kube, kinds.leases).get(namespace, member);
  const seconds = lease.spec?.leaseDurationSeconds;
  if (!seconds) throw new Error(`member Lease ${member} has no leaseDurationSeconds`);
  return seconds * 1000;
}

/**
 * Resolves once members other than `gone` hold each of `buckets` (a dead member's), each bucket by exactly one of
 * them, with the live members' holdings; polls every 250 ms. The dead member's Lease may still name its buckets until
 * it is collected.
 */
export function takenOver(
  kube: KubeClient,
  namespace: string,
  group: string,
  gone: ReadonlySet<string>,
  buckets: ReadonlySet<number>,
  timeoutMs: number,
): Promise<MemberHolding[]> {
  const check = async () => {
    const live = (await memberHoldings(kube, namespace, group)).filter((h) => !gone.has(h.member));
    const holders = (b: number) => live.filter((h) => h.held.has(b)).length;
    return [...buckets].every((b) => holders(b) === 1) ? live : undefined;
  };
  return pollUntil(() => check().catch(() => undefined), {
    intervalMs: 250,
    timeoutMs,
    what: `members other than ${[...gone].join(", ")} holding its buckets`,
  });
}
