// deployManifests: RBAC read from the controllers themselves (owns, watches, finalize) and the CRDs' status
// subresource; Roles per served namespace; webhooks adding their Service, certificate and configurations; the writer's
// check mode and its removal of files it no longer makes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { builtinResources, controllerFor, type KubernetesObject, type ResourceDescriptor } from "@crdgen/runtime";
import {
  DeployError,
  deployManifests,
  offlineKubeClient,
  writeManifests,
  type DeployOptions,
  type ManifestFile,
} from "@crdgen/runtime/deploy";
import type { PolicyRule } from "@crdgen/runtime/manager";
import { conversionWebhookFor } from "@crdgen/runtime/webhook";

const widgets: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

const crd = (status: boolean): KubernetesObject =>
  ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { kind: "Widget", plural: "widgets" },
      scope: "Namespaced",
      versions: [{ name: "v1", served: true, storage: true, ...(status ? { subresources: { status: {} } } : {}) }],
    },
  }) as KubernetesObject;

/** A generated-style controller of widgets with these hooks, built without a cluster. */
function widgetController(hooks: { finalize?: boolean; owns?: ResourceDescriptor[]; watchSecrets?: boolean }) {
  return controllerFor(
    offlineKubeClient(),
    widgets,
    {
      reconcile: () => Promise.resolve({}),
      ...(hooks.finalize ? { finalize: () => Promise.resolve() } : {}),
      owns: hooks.owns ?? [],
      watches: hooks.watchSecrets ? [{ resource: builtinResources.secrets, mapToKeys: () => [] }] : [],
    },
    {},
    () => ({}),
  );
}

const options = (overrides: Partial<DeployOptions> = {}): DeployOptions => ({
  name: "widget-operator",
  image: "widget-operator:1.2.3",
  crds: [crd(true)],
  controllers: [widgetController({ finalize: true, owns: [builtinResources.configMaps] })],
  ...overrides,
});

const objects = (files: ManifestFile[], kind: string) => files.flatMap((f) => f.objects).filter((o) => o.kind === kind);
/** The parts of a Deployment and a CRD these tests read. */
interface DeploymentView {
  metadata: { namespace: string };
  spec: { template: { spec: { containers: Array<{ image: string; args: string[] }>; volumes?: unknown[] } } };
}
interface CrdView {
  metadata: { annotations?: Record<string, string> };
  spec: { conversion: { strategy: string; webhook: { clientConfig: { service: unknown } } } };
}
interface PodTemplateView {
  spec: {
    template: {
      spec: {
        terminationGracePeriodSeconds: number;
        containers: Array<{ lifecycle?: { preStop?: { sleep?: { seconds: number } } } }>;
      };
    };
  };
}
const deploymentOf = (files: ManifestFile[]) => objects(files, "Deployment")[0] as unknown as DeploymentView;
const rulesOf = (role: KubernetesObject) => (role as unknown as { rules: PolicyRule[] }).rules;
const grants = (rules: PolicyRule[]) =>
  rules.flatMap((r) => r.resources.map((res) => `${r.apiGroups[0]}/${res}: ${r.verbs.join(",")}`)).sort();

test("the manager's ClusterRole grants what the controller declares: owned kinds, finalizer, status, events", () => {
  const files = deployManifests(options());
  const [role] = objects(files, "ClusterRole").filter((r) => r.metadata?.name === "widget-operator-manager");
  assert.deepEqual(grants(rulesOf(role!)), [
    "/configmaps: create,delete,list,patch,watch",
    "events.k8s.io/events: create,patch",
    "example.com/widgets/finalizers: update",
    "example.com/widgets/status: patch",
    "example.com/widgets: list,patch,watch",
  ]);
  assert.deepEqual(
    files.map((f) => f.file),
    [
      "00-namespace.yaml",
      "01-crds.yaml",
      "02-service-account.yaml",
      "03-manager-rbac.yaml",
      "04-leader-election-rbac.yaml",
      "05-metrics-auth-rbac.yaml",
      "06-metrics-reader-role.yaml",
      "07-deployment.yaml",
      "08-metrics-service.yaml",
    ],
  );
  const deployment = deploymentOf(files);
  assert.equal(deployment.metadata.namespace, "widget-operator-system");
  const container = deployment.spec.template.spec.containers[0]!;
  assert.equal(container.image, "widget-operator:1.2.3");
  assert.ok(container.args.includes("--leader-election-id=widget-operator"));
  assert.equal(deployment.spec.template.spec.volumes, undefined, "no webhook certificate without webhooks");
});

test("the Deployment's Pods keep serving until taken out of their Services, then shut down within the grace period", () => {
  const pod = (deploymentOf(deployManifests(options())) as unknown as PodTemplateView).spec.template.spec;
  const sleep = pod.containers[0]!.lifecycle?.preStop?.sleep?.seconds ?? 0;
  assert.ok(sleep >= 5, `a preStop sleep long enough for the endpoints and kube-proxy to follow: ${sleep} s`);
  // The API server rejects a sleep not shorter than the grace period; the manager's shutdown takes up to 30 s after.
  assert.ok(pod.terminationGracePeriodSeconds >= sleep + 30, `grace ${pod.terminationGracePeriodSeconds} s`);
});

test("without finalize, a status subresource or owned kinds, none of their grants; a watched kind is list/watch", () => {
  const files = deployManifests(
    options({ crds: [crd(false)], controllers: [widgetController({ watchSecrets: true })] }),
  );
  const [role] = objects(files, "ClusterRole").filter((r) => r.metadata?.name === "widget-operator-manager");
  assert.deepEqual(grants(rulesOf(role!)), [
    "/secrets: list,watch",
    "events.k8s.io/events: create,patch",
    "example.com/widgets: list,watch",
  ]);
});

test("watchNamespaces: a Role and RoleBinding in each served namespace, no manager ClusterRole", () => {
  const files = deployManifests(options({ watchNamespaces: ["team-a", "team-b"] }));
  const managerRoles = objects(files, "Role").filter((r) => r.metadata?.name === "widget-operator-manager");
  assert.deepEqual(
    managerRoles.map((r) => r.metadata?.namespace),
    ["team-a", "team-b"],
  );
  assert.deepEqual(
    objects(files, "ClusterRole").map((r) => r.metadata?.name),
    ["widget-operator-metrics-auth", "widget-operator-metrics-reader"],
  );
  const deployment = deploymentOf(files);
  assert.ok(deployment.spec.template.spec.containers[0]!.args.includes("--watch-namespaces=team-a,team-b"));
  // The served namespaces are someone else's unless createWatchNamespaces says they are the operator's own.
  assert.deepEqual(
    objects(files, "Namespace").map((n) => n.metadata?.name),
    ["widget-operator-system"],
  );
  const owned = deployManifests(options({ watchNamespaces: ["team-a", "team-b"], createWatchNamespaces: true }));
  assert.deepEqual(
    owned[0]!.objects.map((n) => `${n.kind}/${n.metadata?.name}`),
    ["Namespace/widget-operator-system", "Namespace/team-a", "Namespace/team-b"],
    "created first, before the Roles in them",
  );
  assert.throws(
    () =>
      deployManifests(
        options({
          watchNamespaces: ["team-a"],
          controllers: [widgetController({ owns: [builtinResources.namespaces] })],
        }),
      ),
    (e: unknown) => e instanceof DeployError && /Namespace is cluster-scoped/.test(e.message),
  );
});

test("with a conversion webhook: its Service, cert-manager objects, and the CRD pointed at /convert", () => {
  const conversion = conversionWebhookFor(widgets, { hub: "v1", spokes: {} });
  const files = deployManifests(options({ webhooks: [conversion] }));
  // No admission webhook, so no webhook configuration file.
  assert.deepEqual(files.map((f) => f.file).slice(-3), [
    "08-metrics-service.yaml",
    "09-webhook-service.yaml",
    "webhooks/00-certificate.yaml",
  ]);
  const deployment = deploymentOf(files);
  assert.deepEqual(deployment.spec.template.spec.volumes, [
    { name: "webhook-certs", secret: { secretName: "widget-operator-webhook-cert" } },
  ]);
  const stored = objects(files, "CustomResourceDefinition")[0] as unknown as CrdView;
  assert.equal(stored.spec.conversion.strategy, "Webhook");
  assert.deepEqual(stored.spec.conversion.webhook.clientConfig.service, {
    name: "widget-operator-webhook",
    namespace: "widget-operator-system",
    path: "/convert",
    port: 443,
  });
  assert.equal(
    stored.metadata.annotations?.["cert-manager.io/inject-ca-from"],
    "widget-operator-system/widget-operator-serving-cert",
  );
});

test("writeManifests: --check reports without writing; a generated file no longer made is removed, the user's kept", (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-deploy-write-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const files = deployManifests(options());
  const by = "npm run manifests";
  assert.equal(writeManifests(dir, files, { by, check: true }).changed.length, files.length);
  assert.equal(writeManifests(dir, files, { by }).changed.length, files.length);
  assert.deepEqual(writeManifests(dir, files, { by, check: true }), {
    changed: [],
    removed: [],
    unchanged: files.length,
  });
  writeFileSync(path.join(dir, "99-old.yaml"), "# Code generated by npm run manifests. DO NOT EDIT.\n");
  writeFileSync(path.join(dir, "mine.yaml"), "kind: ConfigMap\n");
  assert.deepEqual(writeManifests(dir, files, { by }).removed, ["99-old.yaml"]);
  assert.equal(readFileSync(path.join(dir, "mine.yaml"), "utf8"), "kind: ConfigMap\n");
});
