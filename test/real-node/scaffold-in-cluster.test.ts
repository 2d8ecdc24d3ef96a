// A `crdgen init` project in-cluster on a real node, as its user would run it: crdgen init (packages packed from this
// checkout), a Website CRD in crds/ whose hooks own a Deployment, npm install, npm run generate, the image built from
// the project's own Dockerfile (controlplane/node/images.sh project=<dir>, no image builder), then npm run install:crds
// and IMG=<image> npm run deploy against startControlPlane({ node: "real" }). The operator Pod runs as the project's
// ServiceAccount with the generated least-privilege RBAC, leads, logs no 403, and reconciles a Website into a
// Deployment whose Pod runs, its readiness flowing back into the Website's status. Needs root, the registry npm uses
// (the project's npm install), and the node's prerequisites (real-node.test.ts); run with
// `flock <the machine's real-node lock> npm run test:real-node`.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { V1Deployment, V1Lease, V1Pod } from "@kubernetes/client-node";
import { ResourceClient, builtinResources, type KubernetesObject } from "@crdgen/runtime";
import { findBinary, startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { eventually, repoRoot } from "../e2e/control-plane.js";
import { crdgenBin, runInProject } from "../e2e/linked-project.js";
import { ipForward, leftovers } from "./leftovers.js";

const operator = "website-operator";
const namespace = `${operator}-system`;
/** What the project's image is called on the node: never pulled, imported from images.sh's archive. */
const image = `localhost/crdgen/${operator}:0.1.0`;
const websites = { group: "web.example.com", version: "v1", plural: "websites", kind: "Website", namespaced: true };

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: websites.web.example.com
spec:
  group: web.example.com
  names: { kind: Website, plural: websites }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          required: [spec]
          properties:
            spec:
              type: object
              required: [image]
              properties:
                image: { type: string }
                replicas: { type: integer, minimum: 0 }
            status: { type: object, properties: { readyReplicas: { type: integer } } }
`;

/** The user's hooks: a Deployment per Website, its ready replicas copied into the Website's status. */
const hooks = `import { builtinResources, controllerOwnerReference, type ReconcileResult } from "@crdgen/runtime";
import type { Website, WebsiteContext } from "./generated/web.example.com/website.js";

export const owns = [builtinResources.deployments];

export async function reconcile(ctx: WebsiteContext, site: Website): Promise<ReconcileResult> {
  const name = site.metadata.name!;
  const namespace = site.metadata.namespace!;
  const labels = { "app.kubernetes.io/name": name };
  const { object } = await ctx.children.apply(builtinResources.deployments, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace, ownerReferences: [controllerOwnerReference(site)] },
    spec: {
      replicas: site.spec.replicas ?? 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "web", image: site.spec.image }] } },
    },
  });
  const readyReplicas = object.status?.readyReplicas ?? 0;
  if (site.status?.readyReplicas !== readyReplicas)
    await ctx.client.namespace(namespace).patchStatus(name, { type: "merge", body: { status: { readyReplicas } } });
  return {};
}
`;

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** crdgen init, the CRD, npm install (a real one: the image's build stage runs npm ci), generate, the hooks. */
function scaffold(root: string): string {
  const project = path.join(root, operator);
  runInProject(process.execPath, [crdgenBin, "init", project], root);
  writeFileSync(path.join(project, "crds", "website.yaml"), crd);
  runInProject("npm", ["install", "--no-audit", "--no-fund"], project);
  runInProject("npm", ["run", "generate"], project);
  writeFileSync(path.join(project, "src", "website.hooks.ts"), hooks);
  return project;
}

/** images.sh's archive of the project's image (its name for startControlPlane's nodeImages). */
function buildImage(project: string): string {
  const script = path.join(repoRoot, "controlplane", "node", "images.sh");
  runInProject("bash", [script, `project=${project}`], project, { env: { IMG: image } });
  return `project-${operator}`;
}

/** The operator's one Pod once its Deployment is available (its readiness probe passes once the caches synced). */
async function operatorPod(plane: ControlPlane): Promise<V1Pod> {
  const kube = plane.kubeClient();
  try {
    const deployments = new ResourceClient(kube, builtinResources.deployments);
    await eventually(
      `Deployment ${namespace}/${operator} available`,
      async () => ((await deployments.get(namespace, operator)).status?.availableReplicas === 1 ? true : undefined),
      300_000,
    );
    const pods = await new ResourceClient(kube, builtinResources.pods).list(namespace, {
      labelSelector: `app.kubernetes.io/name=${operator}`,
    });
    assert.equal(pods.items.length, 1, "one operator Pod");
    return pods.items[0]!;
  } finally {
    kube.close();
  }
}

/** A Website becomes a Deployment owned by it, whose Pod (the node's pause image) runs; status follows. */
async function websiteReconciled(plane: ControlPlane): Promise<V1Deployment> {
  const kube = plane.kubeClient();
  try {
    const sites = new ResourceClient<KubernetesObject & { status?: { readyReplicas?: number } }>(kube, websites);
    await sites.create("default", {
      apiVersion: "web.example.com/v1",
      kind: "Website",
      metadata: { name: "home" },
      spec: { image: "localhost/crdgen/pause:1", replicas: 1 },
    } as KubernetesObject);
    const site = await sites.get("default", "home");
    const child = await eventually("the Website's Deployment", () =>
      new ResourceClient(kube, builtinResources.deployments).get("default", "home"),
    );
    assert.deepEqual(
      child.metadata?.ownerReferences?.map((o) => [o.kind, o.uid, o.controller]),
      [["Website", site.metadata!.uid, true]],
    );
    await eventually(
      "the Website's status.readyReplicas 1, from its Deployment's Pod",
      async () => ((await sites.get("default", "home")).status?.readyReplicas === 1 ? true : undefined),
      180_000,
    );
    return child;
  } finally {
    kube.close();
  }
}

test("crdgen init, its Dockerfile's image, npm run deploy on a real node: runs as its ServiceAccount", async () => {
  assert.equal(process.getuid?.(), 0, "a real node needs root (containerd, runc, CNI, cgroups): run as root");
  const root = mkdtempSync(path.join(os.tmpdir(), "crdgen-scaffold-in-cluster-"));
  temps.push(root);
  const project = scaffold(root);
  const archive = buildImage(project);
  const ipForwardBefore = ipForward();
  const plane = await startControlPlane({ node: "real", nodeImages: [archive] });
  const nodeDir = path.join(plane.dir, "node");
  const nodeName = plane.realNodeName ?? "";
  let stopped = false;
  try {
    const env = { drop: ["KUBECONFIG", "IMG"], env: { KUBECONFIG: plane.kubeconfigPath, IMG: image } };
    runInProject("npm", ["run", "install:crds"], project, env);
    const deployed = runInProject("npm", ["run", "deploy"], project, env);
    assert.match(deployed, new RegExp(`^Deployment/${operator} serverside-applied$`, "m"));

    const pod = await operatorPod(plane);
    const spec = pod.spec!;
    assert.equal(spec.serviceAccountName, operator, "the Pod runs as the project's ServiceAccount");
    assert.equal(spec.containers[0]?.image, image);
    assert.equal(spec.nodeName, nodeName, "on the real node");
    const child = await websiteReconciled(plane);
    assert.equal(child.spec?.template.spec?.containers[0]?.image, "localhost/crdgen/pause:1");

    // The Lease is written with the Pod's own token: the leader is the Pod, through the generated Role.
    const kube = plane.kubeClient();
    const lease = await new ResourceClient<V1Lease & KubernetesObject>(kube, builtinResources.leases).get(
      namespace,
      operator,
    );
    kube.close();
    assert.match(lease.spec?.holderIdentity ?? "", new RegExp(`^${pod.metadata!.name}`), "the Pod leads");
    const logs = execFileSync(
      findBinary("kubectl"),
      [`--kubeconfig=${plane.kubeconfigPath}`, "logs", "-n", namespace, pod.metadata!.name!],
      { encoding: "utf8" },
    );
    assert.match(logs, /\S/, "the operator logged");
    assert.deepEqual(
      logs.split("\n").filter((l) => /forbidden|\b403\b/i.test(l)),
      [],
      "no request of the operator was refused",
    );

    await plane.stop();
    stopped = true;
    assert.deepEqual(leftovers(nodeDir, nodeName, ipForwardBefore), [], "stop leaves nothing of the run behind");
  } finally {
    if (!stopped) await plane.stop();
  }
});
