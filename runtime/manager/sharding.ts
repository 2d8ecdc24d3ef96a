// --sharding: every replica is a member of a sharding group; its sharded controllers run on every replica (each on
// its part of the hash space) while the others stay leader-elected.
import type { KubeClient } from "../client/kube-client.js";
import type { Logger } from "../log/logger.js";
import type { Registry } from "prom-client";
import { ShardMember, type ShardMemberOptions } from "../sharding/member.js";
import type { ManagerOptions } from "./options.js";
import {
  GracefulShutdownTimeoutError,
  runControllers,
  type Runnable,
  type RunControllersOptions,
} from "./run-controllers.js";

/**
 * The member a manager's --sharding asks for (undefined without it), its Lease in the leader election namespace.
 * Pass it to the controllers (their `sharding` option) and to runManager. `overrides` sets timings (tests shorten them).
 */
export function shardingFor(
  kube: KubeClient,
  options: Pick<ManagerOptions, "sharding" | "shardingField" | "leaderElectionNamespace">,
  overrides: Partial<Omit<ShardMemberOptions, "name" | "kube">> & { namespace?: string; registry?: Registry } = {},
): ShardMember | undefined {
  if (!options.sharding) return undefined;
  const namespace = overrides.namespace ?? options.leaderElectionNamespace ?? kube.defaultNamespace ?? "default";
  return new ShardMember({ field: options.shardingField, ...overrides, name: options.sharding, kube, namespace });
}

/** A runnable that says whether it needs the leader Lease (controller-runtime's LeaderElectionRunnable). */
export interface MaybeElected {
  needLeaderElection?(): boolean;
}

/**
 * Runs the member around the controllers: they start once it has seen the group, the sharded ones on every replica
 * and the rest under leader election (if any); after they all stopped (their reconciles finished) the member leaves,
 * so the others take its ranges at once. A graceful shutdown that timed out leaves the Lease to expire instead.
 */
export async function runShardedControllers(
  member: ShardMember,
  runnables: readonly Runnable[],
  controllers: readonly MaybeElected[],
  options: RunControllersOptions,
  log: Logger,
): Promise<void> {
  const stop = new AbortController();
  const membership = member.run(stop.signal);
  let leave = true;
  try {
    await member.ready();
    log.info("sharding group joined", { group: member.name, member: member.identity, members: member.liveMembers() });
    const elected = runnables.filter((_, i) => controllers[i]?.needLeaderElection?.() !== false);
    const sharded = runnables.filter((_, i) => controllers[i]?.needLeaderElection?.() === false);
    const { leaderElection: _elected, ...rest } = options;
    await Promise.all([
      sharded.length > 0 ? runControllers(sharded, rest) : undefined,
      elected.length > 0 ? runControllers(elected, options) : undefined,
    ]);
  } catch (error) {
    if (error instanceof GracefulShutdownTimeoutError) leave = false;
    throw error;
  } finally {
    stop.abort();
    await membership;
    if (leave) await member.leave();
  }
}
