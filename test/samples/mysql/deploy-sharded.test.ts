// samples/mysql/deploy-sharded/ is exactly what `npm run deploy:manifests` writes, and differs from deploy/ only where
// sharding must: 3 replicas with --sharding instead of one leader, and the member Leases' Role instead of the leader's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import type { V1Deployment, V1Role, V1RoleBinding } from "@kubernetes/client-node";
import { manifestFilesUnder } from "@crdgen/runtime/deploy";
import { deployManifests, shardedDeploy, shardedDeployDir } from "../../../samples/mysql/tools/deploy-manifests.js";

test("the committed samples/mysql/deploy-sharded/ is exactly what npm run deploy:manifests writes", async () => {
  const wanted = deployManifests(shardedDeploy);
  assert.deepEqual(
    manifestFilesUnder(shardedDeployDir),
    [...wanted.keys()].sort(),
    "samples/mysql/deploy-sharded/ holds exactly the generated files (run npm run deploy:manifests)",
  );
  for (const [file, content] of wanted)
    assert.equal(
      await readFile(path.join(shardedDeployDir, file), "utf8"),
      content,
      `samples/mysql/deploy-sharded/${file} is stale (run npm run deploy:manifests)`,
    );
});

test("deploy-sharded/ is deploy/ with 3 --sharding replicas and the member Leases' Role instead of the leader's", () => {
  const plain = deployManifests();
  const sharded = deployManifests(shardedDeploy);
  const same = [...plain.keys()].filter((f) => f !== "07-deployment.yaml" && f !== "04-leader-election-rbac.yaml");
  for (const file of same) assert.equal(sharded.get(file), plain.get(file), `${file} is the same in both`);
  assert.deepEqual(
    [...sharded.keys()].filter((f) => !plain.has(f)),
    ["04-sharding-rbac.yaml"],
  );

  const deployment = (files: Map<string, string>) => parse(files.get("07-deployment.yaml")!) as V1Deployment;
  const [before, after] = [deployment(plain), deployment(sharded)];
  assert.equal(after.spec?.replicas, 3);
  const args = (d: V1Deployment) => d.spec!.template.spec!.containers[0]!.args!;
  assert.deepEqual(
    args(after),
    args(before).flatMap((a) =>
      a === "--leader-elect" ? ["--sharding=mysql-operator"] : a.startsWith("--leader-election-id") ? [] : [a],
    ),
  );

  const [roleDoc, bindingDoc] = sharded.get("04-sharding-rbac.yaml")!.split(/^---$/m);
  const role = parse(roleDoc!) as V1Role;
  const binding = parse(bindingDoc!) as V1RoleBinding;
  assert.equal(role.metadata?.namespace, "mysql-operator", "Leases in the operator's own namespace only");
  assert.deepEqual(role.rules, [
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "delete", "list", "update"] },
  ]);
  assert.equal(binding.roleRef.name, role.metadata.name);
});
