// The manager's side of --sharding: shardingFor makes the member the flags ask for, and a manager given sharded
// controllers without their member refuses to start (they would wait for buckets forever).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ManagedController } from "@crdgen/runtime";
import { shardingFor, startManager } from "@crdgen/runtime/manager";
import { ShardMember } from "@crdgen/runtime/sharding";
import { Registry } from "@crdgen/runtime/metrics";
import { unreachableKube } from "../support/fake-api-server.js";
import { quiet } from "../support/cache-fakes.js";

const kube = unreachableKube();

test("shardingFor: none without --sharding; otherwise a member of that group, hashing the field asked for", () => {
  assert.equal(shardingFor(kube, { shardingField: "uid" }), undefined);
  const member = shardingFor(
    kube,
    { sharding: "mysql-operator", shardingField: "namespace", leaderElectionNamespace: "ops" },
    { identity: "replica-0", registry: new Registry() },
  );
  assert.ok(member instanceof ShardMember);
  assert.deepEqual([member.name, member.field, member.identity], ["mysql-operator", "namespace", "replica-0"]);
  // The default member name starts with the group's, so `kubectl get leases` lists a group together.
  const named = shardingFor(kube, { sharding: "g", shardingField: "uid" }, { registry: new Registry() });
  assert.match(named?.identity ?? "", /^g-[a-z0-9-]+-[0-9a-f]{8}$/);
});

test("sharded controllers without their member: startManager refuses before anything runs", async () => {
  let runs = 0;
  const sharded: ManagedController = {
    name: "things",
    hasSynced: () => true,
    needLeaderElection: () => false,
    run: () => {
      runs++;
      return Promise.resolve();
    },
  };
  await assert.rejects(
    startManager([sharded], {
      kube,
      logger: quiet,
      options: { metricsBindAddress: "0", healthProbeBindAddress: "0", leaderElect: false },
    }),
    /sharded controllers need their member: pass it as the sharding option/,
  );
  assert.equal(runs, 0);
});
