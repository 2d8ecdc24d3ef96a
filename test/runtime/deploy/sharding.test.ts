// deployManifests with sharding: N replicas running --sharding instead of --leader-elect, and a Role that grants
// exactly what a sharding member does with its group's Leases (read from a member's own calls, not listed by hand).
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinResources, controllerFor, type ResourceDescriptor } from "@crdgen/runtime";
import type { KubeClient, RequestOptions } from "@crdgen/runtime/client";
import { deployManifests, offlineKubeClient, type DeployOptions, type ManifestFile } from "@crdgen/runtime/deploy";
import type { PolicyRule } from "@crdgen/runtime/manager";
import { ShardMember, type MemberLease } from "@crdgen/runtime/sharding";

const widgets: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

const options = (overrides: Partial<DeployOptions> = {}): DeployOptions => ({
  name: "widget-operator",
  image: "widget-operator:1.2.3",
  crds: [],
  controllers: [controllerFor(offlineKubeClient(), widgets, { reconcile: () => Promise.resolve({}) }, {}, () => ({}))],
  ...overrides,
});

interface DeploymentView {
  spec: { replicas: number; template: { spec: { containers: Array<{ args: string[] }> } } };
}
const objects = (files: ManifestFile[]) => files.flatMap((f) => f.objects);
const deploymentOf = (files: ManifestFile[]) =>
  objects(files).find((o) => o.kind === "Deployment") as unknown as DeploymentView;
const leaseRules = (files: ManifestFile[]) =>
  objects(files)
    .filter((o) => o.kind === "Role" || o.kind === "ClusterRole")
    .flatMap((o) => (o as unknown as { rules: PolicyRule[] }).rules.map((rule) => ({ role: o, rule })))
    .filter(({ rule }) => (rule.resources as string[] | undefined)?.includes("leases"));

test("sharding: the Deployment runs the replicas with --sharding <group> and no leader election", () => {
  const sharded = deployManifests(options({ sharding: { replicas: 3 } }));
  const deployment = deploymentOf(sharded);
  assert.equal(deployment.spec.replicas, 3);
  const args = deployment.spec.template.spec.containers[0]!.args;
  assert.ok(
    args.includes("--sharding=widget-operator"),
    `the group defaults to the operator's name: ${args.join(" ")}`,
  );
  assert.ok(!args.some((a) => a.startsWith("--leader-elect")), `no leader election flags: ${args.join(" ")}`);
  const named = deploymentOf(deployManifests(options({ sharding: { replicas: 2, group: "widgets" } })));
  assert.ok(named.spec.template.spec.containers[0]!.args.includes("--sharding=widgets"));

  const plain = deploymentOf(deployManifests(options()));
  assert.equal(plain.spec.replicas, 1);
  assert.ok(plain.spec.template.spec.containers[0]!.args.includes("--leader-elect"));
});

test("sharding: 04-sharding-rbac.yaml replaces the leader election Role; Leases only in the operator's namespace", () => {
  const sharded = deployManifests(options({ sharding: { replicas: 3 } }));
  const files = sharded.map((f) => f.file);
  assert.ok(
    files.includes("04-sharding-rbac.yaml") && !files.includes("04-leader-election-rbac.yaml"),
    files.join(" "),
  );
  const rules = leaseRules(sharded);
  assert.equal(rules.length, 1, "one rule grants Leases");
  assert.equal(rules[0]!.role.kind, "Role");
  assert.equal(rules[0]!.role.metadata?.namespace, "widget-operator-system");
  const binding = objects(sharded).find(
    (o) => o.kind === "RoleBinding" && o.metadata?.name === "widget-operator-sharding",
  );
  assert.deepEqual((binding as unknown as { subjects: unknown[] }).subjects, [
    { kind: "ServiceAccount", name: "widget-operator", namespace: "widget-operator-system" },
  ]);
});

/** An in-memory Lease collection behind a KubeClient that records each call as the RBAC verb it needs. */
function recordingLeases(namespace: string): { kube: KubeClient; verbs: Set<string>; namespaces: Set<string> } {
  const leases = new Map<string, MemberLease>();
  const verbs = new Set<string>();
  const namespaces = new Set<string>();
  let version = 0;
  const stored = (lease: MemberLease) => {
    const saved = { ...lease, metadata: { ...lease.metadata, resourceVersion: String(++version) } };
    leases.set(saved.metadata.name, saved);
    return structuredClone(saved);
  };
  const request = (opts: RequestOptions): Promise<unknown> => {
    const match = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/]+))?$/.exec(opts.path);
    assert.ok(match, `only Leases are touched: ${opts.method} ${opts.path}`);
    namespaces.add(match[1]!);
    const name = match[2];
    const verbOf: Record<string, string> = { POST: "create", PUT: "update", PATCH: "patch", DELETE: "delete" };
    const verb = opts.method === "GET" ? (name ? "get" : "list") : (verbOf[opts.method] ?? `unknown ${opts.method}`);
    verbs.add(verb);
    if (verb === "list") return Promise.resolve({ items: [...leases.values()].map((l) => structuredClone(l)) });
    if (verb === "create" || verb === "update") return Promise.resolve(stored(opts.body as MemberLease));
    if (verb === "delete") leases.delete(name!);
    return Promise.resolve({});
  };
  const kube: KubeClient = {
    request: request as KubeClient["request"],
    watch: () => {
      throw new Error("a member does not watch");
    },
    defaultNamespace: namespace,
    close: () => undefined,
  };
  return { kube, verbs, namespaces };
}

test("sharding: the Role grants exactly the verbs a member uses to join, renew, read the group and leave", async () => {
  const namespace = "widget-operator-system";
  const { kube, verbs, namespaces } = recordingLeases(namespace);
  const member = new ShardMember({
    name: "widget-operator",
    kube,
    namespace,
    leaseDurationMs: 300,
    renewDeadlineMs: 200,
    retryPeriodMs: 20,
  });
  const stop = new AbortController();
  const running = member.run(stop.signal);
  await member.ready();
  // A few renewals, then leave as runManager does on shutdown.
  await new Promise((resolve) => setTimeout(resolve, 100));
  stop.abort();
  await running;
  await member.leave();

  const [granted] = leaseRules(deployManifests(options({ sharding: { replicas: 3 } })));
  assert.deepEqual([...namespaces], [namespace]);
  assert.deepEqual([...granted!.rule.verbs].sort(), [...verbs].sort(), "granted verbs = verbs the member used");
  assert.deepEqual(granted!.rule.apiGroups, [builtinResources.leases.group]);
  assert.equal(granted!.rule.resourceNames, undefined, "member Lease names carry the Pod's name: none to pin");
});
