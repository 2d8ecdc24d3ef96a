// The least-privilege RBAC helper: rules from what controllers touch, merged per API group and verb set, sorted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinResources } from "@crdgen/runtime";
import {
  accessVerbs,
  clusterRoleFor,
  leaderElectionRole,
  rulesFor,
  type ControllerAccess,
} from "@crdgen/runtime/manager";
import { mergeRules } from "#runtime/manager/rbac.js";

const clusters = {
  group: "example.com",
  version: "v1",
  plural: "mysqlclusters",
  kind: "MySQLCluster",
  namespaced: true,
};
const backups = { group: "example.com", version: "v1", plural: "backups", kind: "Backup", namespaced: true };
const b = builtinResources;

const mysql: ControllerAccess = {
  resource: clusters,
  status: true,
  owns: [b.statefulSets, b.services, b.configMaps, b.podDisruptionBudgets, b.cronJobs],
  watches: [b.secrets],
};

test("an operator with status, owned and watched kinds gets exactly the verbs each use needs, one rule per group and verb set", () => {
  assert.deepEqual(rulesFor([mysql]), [
    { apiGroups: [""], resources: ["configmaps", "services"], verbs: ["create", "delete", "list", "patch", "watch"] },
    { apiGroups: [""], resources: ["secrets"], verbs: ["list", "watch"] },
    { apiGroups: ["apps"], resources: ["statefulsets"], verbs: ["create", "delete", "list", "patch", "watch"] },
    { apiGroups: ["batch"], resources: ["cronjobs"], verbs: ["create", "delete", "list", "patch", "watch"] },
    { apiGroups: ["events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
    { apiGroups: ["example.com"], resources: ["mysqlclusters"], verbs: ["list", "watch"] },
    { apiGroups: ["example.com"], resources: ["mysqlclusters/finalizers"], verbs: ["update"] },
    { apiGroups: ["example.com"], resources: ["mysqlclusters/status"], verbs: ["patch"] },
    {
      apiGroups: ["policy"],
      resources: ["poddisruptionbudgets"],
      verbs: ["create", "delete", "list", "patch", "watch"],
    },
  ]);
});

test("the output does not depend on the order of controllers, kinds or verbs", () => {
  const shuffled: ControllerAccess = { ...mysql, owns: [...mysql.owns!].reverse() };
  const other: ControllerAccess = { resource: backups, owns: [b.jobs] };
  assert.deepEqual(rulesFor([other, shuffled]), rulesFor([mysql, other]));
  const rules = mergeRules([
    { apiGroups: ["apps"], resources: ["statefulsets"], verbs: ["watch", "get"] },
    { apiGroups: [""], resources: ["services"], verbs: ["list"] },
    { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "watch"] },
  ]);
  assert.deepEqual(rules, [
    { apiGroups: [""], resources: ["services"], verbs: ["list"] },
    { apiGroups: ["apps"], resources: ["deployments", "statefulsets"], verbs: ["get", "watch"] },
  ]);
});

test("a finalizer adds patch on the primary resource; without owned kinds there is no finalizers rule; no status, no status rule", () => {
  const rules = rulesFor([{ resource: backups, finalizer: true }], { events: false });
  assert.deepEqual(rules, [{ apiGroups: ["example.com"], resources: ["backups"], verbs: ["list", "patch", "watch"] }]);
});

test("a kind both owned and watched gets the union; two controllers sharing a kind do not duplicate it", () => {
  const rules = rulesFor(
    [
      { resource: clusters, owns: [b.secrets], watches: [b.secrets] },
      { resource: backups, owns: [b.secrets] },
    ],
    { events: false },
  );
  const secrets = rules.filter((r) => r.resources.includes("secrets"));
  assert.deepEqual(secrets, [{ apiGroups: [""], resources: ["secrets"], verbs: [...accessVerbs.owned].sort() }]);
  assert.deepEqual(
    rules.find((r) => r.resources.includes("backups/finalizers")),
    { apiGroups: ["example.com"], resources: ["backups/finalizers", "mysqlclusters/finalizers"], verbs: ["update"] },
  );
});

test("kinds written without being owned get create/patch/delete, kinds read by GET get get; merged with their watch", () => {
  const rules = rulesFor(
    [
      {
        resource: clusters,
        watches: [b.secrets, b.persistentVolumeClaims],
        writes: [b.secrets, b.persistentVolumeClaims],
        reads: [b.secrets],
      },
    ],
    { events: false },
  );
  assert.deepEqual(
    rules.filter((r) => r.apiGroups[0] === ""),
    [
      { apiGroups: [""], resources: ["persistentvolumeclaims"], verbs: ["create", "delete", "list", "patch", "watch"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ["create", "delete", "get", "list", "patch", "watch"] },
    ],
  );
});

test("extraVerbs widen a category, extraRules are merged in, leases can be granted cluster-wide", () => {
  const rules = rulesFor([mysql], {
    extraVerbs: { watched: ["get"] },
    extraRules: [{ apiGroups: [""], resources: ["secrets", "namespaces"], verbs: ["get"] }],
    leases: true,
  });
  assert.deepEqual(
    rules.filter((r) => r.apiGroups[0] === ""),
    [
      { apiGroups: [""], resources: ["configmaps", "services"], verbs: ["create", "delete", "list", "patch", "watch"] },
      { apiGroups: [""], resources: ["namespaces"], verbs: ["get"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ["get", "list", "watch"] },
    ],
  );
  assert.deepEqual(
    rules.find((r) => r.apiGroups[0] === "coordination.k8s.io"),
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "get", "update"] },
  );
});

test("the ClusterRole wraps the rules; the leader election Role limits get/update to its Lease and cannot limit create", () => {
  const role = clusterRoleFor("mysql-operator", [mysql], { labels: { app: "x" } });
  assert.equal(role.apiVersion, "rbac.authorization.k8s.io/v1");
  assert.equal(role.kind, "ClusterRole");
  assert.deepEqual(role.metadata, { name: "mysql-operator", labels: { app: "x" } });
  assert.deepEqual(role.rules, rulesFor([mysql]));
  assert.ok(
    !role.rules.some((r) => r.apiGroups.includes("coordination.k8s.io")),
    "leases are left to the namespaced Role by default",
  );
  assert.deepEqual(leaderElectionRole("le", "ops", "mysql-operator"), {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: "le", namespace: "ops" },
    rules: [
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: ["coordination.k8s.io"],
        resources: ["leases"],
        resourceNames: ["mysql-operator"],
        verbs: ["get", "update"],
      },
    ],
  });
});
