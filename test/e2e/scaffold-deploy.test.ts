// From `crdgen init` to a deployed operator, on the local control plane: a scaffolded project with one CRD and hooks
// that own a ConfigMap, patch status, record an event and hold a finalizer runs `npm run install:crds` and
// `npm run deploy` (server-side apply with the runtime's client, the current kubeconfig context); then its main.js,
// with the Deployment's arguments, runs as the deployed ServiceAccount (a TokenRequest token): it leads, reconciles and
// finalizes without one 403, and what its controllers do not declare (Secrets, Deployments) is refused. There is no
// node here, so the Deployment's pod never runs: the in-cluster run is test/real-node's.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { KubeConfig, type V1ConfigMap, type V1Deployment } from "@kubernetes/client-node";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import {
  ApiError,
  ResourceClient,
  builtinResources,
  loadKubeClient,
  type KubeClient,
  type KubernetesObject,
} from "@crdgen/runtime";
import { Discovery, manifestFilesUnder, readManifests } from "@crdgen/runtime/deploy";
import { kubeLeaseLock } from "@crdgen/runtime/leaderelection";
import { eventually } from "./control-plane.js";
import { crdgenBin, linkPackages, runInProject } from "./linked-project.js";

const operator = "greeter";
const namespace = `${operator}-system`;
const greetings = {
  group: "deploy.example.com",
  version: "v1",
  plural: "greetings",
  kind: "Greeting",
  namespaced: true,
} as const;

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: greetings.deploy.example.com
spec:
  group: deploy.example.com
  names: { kind: Greeting, plural: greetings }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { message: { type: string } } }
            status: { type: object, properties: { ready: { type: boolean } } }
`;

/** The user's hooks: every permission the generated RBAC must grant is used once. */
const hooks = `import { builtinResources, controllerOwnerReference, type ReconcileResult } from "@crdgen/runtime";
import type { Greeting } from "./generated/deploy.example.com/v1/greeting.types.js";
import type { GreetingContext } from "./generated/deploy.example.com/v1/greeting.controller.js";

export const owns = [builtinResources.configMaps];

export async function reconcile(ctx: GreetingContext, obj: Greeting): Promise<ReconcileResult> {
  const namespace = obj.metadata.namespace!;
  await ctx.children.apply(builtinResources.configMaps, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: obj.metadata.name + "-greeting", namespace, ownerReferences: [controllerOwnerReference(obj)] },
    data: { message: obj.spec?.message ?? "hello" },
  });
  const status = { type: "merge" as const, body: { status: { ready: true } } };
  await ctx.client.namespace(namespace).patchStatus(obj.metadata.name!, status);
  ctx.recorder.event(obj, "Normal", "Greeted", "wrote the greeting ConfigMap");
  return {};
}

export async function finalize(ctx: GreetingContext, obj: Greeting): Promise<void> {
  ctx.log.info("finalized", { name: obj.metadata.name });
}
`;

let plane: ControlPlane;
let admin: KubeClient;
const temps: string[] = [];

before(async () => {
  plane = await startControlPlane();
  admin = plane.kubeClient();
});

after(async () => {
  (admin as KubeClient | undefined)?.close();
  await (plane as ControlPlane | undefined)?.stop();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The project's commands run as a user's would, with the control plane as current context. */
const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  runInProject(command, args, cwd, { drop: ["KUBECONFIG"], env: { KUBECONFIG: plane.kubeconfigPath, ...env } });

/** Every object of the project's deploy/, in the order the files apply. */
function deployDocs(project: string): KubernetesObject[] {
  const dir = path.join(project, "deploy");
  return manifestFilesUnder(dir).flatMap((f) => readManifests(path.join(dir, f)));
}

/** A kubeconfig for the control plane that authenticates as the ServiceAccount with a TokenRequest token. */
async function serviceAccountKubeconfig(dir: string): Promise<{ file: string; client: KubeClient }> {
  const review = await admin.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${operator}/token`,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  });
  const cluster = plane.kubeConfig().getCurrentCluster()!;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: operator, token: review.status.token }],
    contexts: [{ name: operator, cluster: cluster.name, user: operator }],
    currentContext: operator,
  });
  const file = path.join(dir, "service-account.kubeconfig");
  writeFileSync(file, config.exportConfig());
  return { file, client: loadKubeClient({ kubeconfig: file }) };
}

const status = (error: unknown) => (error instanceof ApiError ? error.status : error);

/** crdgen init, a CRD in crds/, npm run generate, the hooks written: the project a new user has before deploying. */
function scaffold(root: string): string {
  const project = path.join(root, operator);
  run(process.execPath, [crdgenBin, "init", project], root);
  linkPackages(project);
  writeFileSync(path.join(project, "crds", "greeting.yaml"), crd);
  run("npm", ["run", "generate"], project);
  writeFileSync(path.join(project, "src", "greeting.hooks.ts"), hooks);
  for (const file of ["Dockerfile", ".dockerignore", "src/deploy.ts"])
    assert.ok(existsSync(path.join(project, file)), `crdgen init created ${file}`);
  return project;
}

/** npm run install:crds applies the CRDs only; npm run deploy everything, by the field manager crdgen. */
async function installAndDeploy(project: string): Promise<KubernetesObject[]> {
  const installed = run("npm", ["run", "install:crds"], project);
  assert.match(installed, /^CustomResourceDefinition\/greetings\.deploy\.example\.com serverside-applied$/m);
  assert.doesNotMatch(installed, /Deployment\//);
  const deployed = run("npm", ["run", "deploy"], project);
  const docs = deployDocs(project);
  const discovery = new Discovery(admin);
  for (const doc of docs) {
    assert.match(deployed, new RegExp(`^${doc.kind}/${doc.metadata!.name} serverside-applied$`, "m"));
    const resource = await discovery.resourceFor(doc.apiVersion!, doc.kind!);
    const stored = await new ResourceClient(admin, resource).get(doc.metadata!.namespace, doc.metadata!.name!);
    assert.ok(
      stored.metadata?.managedFields?.some((f) => f.manager === "crdgen" && f.operation === "Apply"),
      `${doc.kind}/${doc.metadata!.name} applied by field manager crdgen`,
    );
  }
  // Applying again changes nothing, and deploy/ is what the project makes.
  run("npm", ["run", "deploy"], project);
  run("npm", ["run", "manifests:check"], project);
  return docs;
}

interface Operator {
  lines: string[];
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** main.js with the Deployment's arguments (ports moved to free ones on loopback), as the ServiceAccount. */
function startOperator(project: string, docs: KubernetesObject[], kubeconfig: string): Operator {
  const deployment = docs.find((d) => d.kind === "Deployment") as V1Deployment;
  const args = (deployment.spec!.template.spec!.containers[0]!.args ?? []).map((a) =>
    a.startsWith("--metrics-bind-address=") || a.startsWith("--health-probe-bind-address=")
      ? `${a.split("=")[0]}=127.0.0.1:0`
      : a,
  );
  const child = spawn(process.execPath, [path.join(project, "dist/src/main.js"), ...args], {
    cwd: project,
    env: { ...process.env, KUBECONFIG: kubeconfig, POD_NAMESPACE: namespace, NODE_TEST_CONTEXT: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr])
    readline.createInterface({ input: stream }).on("line", (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    lines,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** A Greeting's whole life: its ConfigMap, status and event, then its finalizer taken off on delete. */
async function greetingLifecycle(): Promise<void> {
  const greetingClient = new ResourceClient<KubernetesObject & { status?: { ready?: boolean } }>(admin, greetings);
  await greetingClient.create("default", {
    apiVersion: "deploy.example.com/v1",
    kind: "Greeting",
    metadata: { name: "hello" },
    spec: { message: "hi" },
  } as KubernetesObject);
  const configMaps = new ResourceClient<V1ConfigMap & KubernetesObject>(admin, builtinResources.configMaps);
  const made = await eventually("the owned ConfigMap", () => configMaps.get("default", "hello-greeting"));
  assert.equal(made.data?.["message"], "hi");
  await eventually(
    "status.ready",
    async () => (await greetingClient.get("default", "hello")).status?.ready || undefined,
  );
  await eventually("the Greeted event", async () => {
    const events = await admin.request<{ items: Array<{ reason?: string }> }>({
      method: "GET",
      path: "/apis/events.k8s.io/v1/namespaces/default/events",
    });
    return events.items.some((e) => e.reason === "Greeted") ? true : undefined;
  });
  await greetingClient.delete("default", "hello");
  await eventually("the Greeting deleted", async () =>
    greetingClient.get("default", "hello").then(
      () => undefined,
      (error: unknown) => (status(error) === 404 ? true : undefined),
    ),
  );
}

test("crdgen init -> npm run deploy: the operator runs as its ServiceAccount with no 403, and no more", async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "crdgen-scaffold-deploy-"));
  temps.push(root);
  const project = scaffold(root);
  const docs = await installAndDeploy(project);
  const sa = await serviceAccountKubeconfig(root);
  const running = startOperator(project, docs, sa.file);
  try {
    await eventually(`main.js holding the Lease ${namespace}/${operator}`, async () =>
      (await kubeLeaseLock(admin, namespace, operator).get())?.spec?.holderIdentity ? true : undefined,
    );
    await greetingLifecycle();
    assert.ok(
      running.lines.some((l) => l.includes('"finalized"')),
      `finalize ran:\n${running.lines.join("\n")}`,
    );
    assert.deepEqual(
      running.lines.filter((l) => /forbidden|\b403\b/i.test(l)),
      [],
      "no request of the operator was refused",
    );
    // Least privilege is real: the ServiceAccount cannot read Secrets or touch Deployments anywhere.
    const secrets = new ResourceClient(sa.client, builtinResources.secrets);
    await assert.rejects(secrets.list(undefined), (e: unknown) => status(e) === 403);
    await assert.rejects(secrets.list(namespace), (e: unknown) => status(e) === 403);
    const deployments = new ResourceClient(sa.client, builtinResources.deployments);
    await assert.rejects(deployments.list(namespace), (e: unknown) => status(e) === 403);
    // What it declares it may do: list the ConfigMaps it owns.
    await new ResourceClient(sa.client, builtinResources.configMaps).list(undefined);
  } finally {
    const code = await running.stop();
    sa.client.close();
    assert.equal(code, 0, `main.js stopped cleanly on SIGTERM:\n${running.lines.slice(-20).join("\n")}`);
  }
  // undeploy deletes what deploy applied, the CRD included; a second run finds everything gone and still succeeds.
  const undeployed = run("npm", ["run", "undeploy"], project);
  for (const doc of docs) assert.match(undeployed, new RegExp(`^${doc.kind}/${doc.metadata!.name} deleted$`, "m"));
  await eventually("the CRD deleted", () =>
    admin
      .request({
        method: "GET",
        path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/greetings.deploy.example.com",
      })
      .then(
        () => undefined,
        (error: unknown) => (status(error) === 404 ? true : undefined),
      ),
  );
  run("npm", ["run", "undeploy"], project);
});

test("crdgen init --webhooks: deploy/webhooks/ holds the certificate; npm run deploy without cert-manager says so", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "crdgen-scaffold-deploy-webhooks-"));
  temps.push(root);
  const project = path.join(root, "guarded");
  run(process.execPath, [crdgenBin, "init", "--webhooks", project], root);
  linkPackages(project);
  writeFileSync(path.join(project, "crds", "greeting.yaml"), crd);
  run("npm", ["run", "generate"], project);
  run("npm", ["run", "manifests"], project);
  const certificate = readManifests(path.join(project, "deploy", "webhooks", "00-certificate.yaml"));
  assert.deepEqual(
    certificate.map((o) => `${o.kind}/${o.metadata?.name}`),
    ["Issuer/guarded-selfsigned", "Certificate/guarded-serving-cert"],
  );
  const configurations = readManifests(path.join(project, "deploy", "webhooks", "01-webhook-configurations.yaml"));
  assert.ok(configurations.length > 0, "the generated webhooks' configurations");
  const service = readManifests(path.join(project, "deploy", "09-webhook-service.yaml"))[0];
  assert.equal(service?.metadata?.name, "guarded-webhook");
  // Without cert-manager, everything before deploy/webhooks/ is applied, then the Issuer is refused by name.
  const result = spawnSync("npm", ["run", "deploy"], {
    cwd: project,
    encoding: "utf8",
    env: { ...process.env, NODE_TEST_CONTEXT: "", KUBECONFIG: plane.kubeconfigPath },
  });
  assert.notEqual(result.status, 0, result.stdout);
  assert.match(result.stdout, /^Deployment\/guarded serverside-applied$/m);
  assert.match(
    result.stderr,
    /Issuer\/guarded-selfsigned: the API server does not serve cert-manager\.io\/v1: install cert-manager first/,
  );
});
