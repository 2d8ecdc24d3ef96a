// samples/mysql/deploy-sharded/'s sharding Role on a real kube-apiserver: two sharding members running as the
// manifests' ServiceAccount (impersonated) join, split the hash space, and one leaves (deleting its Lease) without one
// 403; and the Role grants nothing more: no get of a Lease, no Lease in another namespace.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import type { V1Lease } from "@kubernetes/client-node";
import { ResourceClient, builtinResources, isNotFound, type KubeClient } from "@crdgen/runtime";
import { HttpKubeClient, isForbidden, serviceAccountUser } from "@crdgen/runtime/client";
import { applyManifests, readManifests } from "@crdgen/runtime/deploy";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { ShardMember } from "@crdgen/runtime/sharding";
import { pollUntil } from "@crdgen/runtime/wait";
import { deployment, shardedDeployDir } from "../../samples/mysql/tools/deploy-manifests.js";
import { memberHoldings, type MemberHolding } from "../../samples/mysql/tools/shard-owners.js";

const group = "mysql-operator";
const namespace = deployment.namespace;

let plane: ControlPlane;
let admin: KubeClient;
/** Every response status the impersonated ServiceAccount got since the Role took effect. */
const statuses: number[] = [];
let asOperator: HttpKubeClient;
let leases: ResourceClient<V1Lease>;

before(async () => {
  plane = await startControlPlane();
  admin = plane.kubeClient();
  asOperator = HttpKubeClient.fromKubeConfig(plane.kubeConfig(), {
    impersonate: { user: serviceAccountUser(namespace, deployment.name) },
    onResponse: (r) => statuses.push(r.status),
  });
  const files = ["00-namespace.yaml", "02-service-account.yaml", "04-sharding-rbac.yaml"];
  await applyManifests(
    admin,
    files.flatMap((f) => readManifests(path.join(shardedDeployDir, f))),
  );
  leases = new ResourceClient<V1Lease>(asOperator, builtinResources.leases);
  // The binding reaches the authorizer's cache a moment after it is written.
  await pollUntil(
    () =>
      leases.list(namespace).then(
        () => true,
        () => undefined,
      ),
    {
      intervalMs: 200,
      timeoutMs: 30_000,
      what: "list Leases as the ServiceAccount",
    },
  );
  statuses.length = 0;
});

after(async () => {
  (asOperator as HttpKubeClient | undefined)?.close();
  (admin as KubeClient | undefined)?.close();
  await (plane as ControlPlane | undefined)?.stop();
});

/** Polls the group's Leases (as the admin) until check accepts them. */
const groupUntil = (what: string, check: (h: MemberHolding[]) => boolean) =>
  pollUntil(
    async () => {
      const h = await memberHoldings(admin, namespace, group);
      return check(h) ? h : undefined;
    },
    { intervalMs: 200, timeoutMs: 30_000, what },
  );

test("two members as the ServiceAccount join, split the hash space and leave with no 403", async () => {
  const timings = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };
  const member = (identity: string) =>
    new ShardMember({ name: group, kube: asOperator, namespace, identity, ...timings });
  const [a, b] = [member(`${group}-a`), member(`${group}-b`)];
  const stops = [new AbortController(), new AbortController()];
  const runs = [a.run(stops[0]!.signal), b.run(stops[1]!.signal)];
  try {
    await Promise.all([a.ready(), b.ready()]);
    const split = await groupUntil(
      "two members splitting the hash space",
      (h) => h.length === 2 && h.every((m) => m.held.size > 0) && h[0]!.held.size + h[1]!.held.size === 256,
    );
    assert.deepEqual(split.map((m) => m.member).sort(), [`${group}-a`, `${group}-b`]);

    stops[0]!.abort();
    await runs[0];
    await a.leave();
    await groupUntil("b holding everything once a left", (h) => h.length === 1 && h[0]!.held.size === 256);
    await assert.rejects(
      new ResourceClient<V1Lease>(admin, builtinResources.leases).get(namespace, `${group}-a`),
      isNotFound,
      "a deleted its Lease as it left",
    );
    assert.deepEqual(
      statuses.filter((s) => s === 401 || s === 403),
      [],
      "joining, renewing, reading the group and leaving needed nothing the Role does not grant",
    );
  } finally {
    for (const stop of stops) stop.abort();
    await Promise.all(runs);
  }
});

test("the Role grants no get of a Lease and no Lease outside the operator's namespace", async () => {
  await assert.rejects(leases.get(namespace, `${group}-b`), isForbidden, "no get: members list their group");
  await assert.rejects(leases.list("default"), isForbidden, "no Leases outside the operator's namespace");
  await assert.rejects(
    leases.create("kube-system", { metadata: { name: "x" } }),
    isForbidden,
    "no Lease created elsewhere",
  );
});
