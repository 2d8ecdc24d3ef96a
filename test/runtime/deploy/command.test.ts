// runDeployCommand as a project's scripts call it: usage errors exit 2, manifests writes deploy/ from crds/ and the
// registry (IMG overrides the image), --check exits 1 naming a stale file, and an apply with an empty deploy/ says to
// run manifests first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { controllerFor, type KubeClient, type ResourceDescriptor } from "@crdgen/runtime";
import { runDeployCommand, type DeployCommandOptions } from "@crdgen/runtime/deploy";

const gadgets: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  plural: "gadgets",
  kind: "Gadget",
  namespaced: true,
};

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gadgets.example.com }
spec:
  group: example.com
  names: { kind: Gadget, plural: gadgets }
  scope: Namespaced
  versions: [{ name: v1, served: true, storage: true, subresources: { status: {} } }]
`;

function project(t: { after: (fn: () => void) => void }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-deploy-command-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, "crds"));
  writeFileSync(path.join(dir, "crds", "gadget.yaml"), crd);
  const out: string[] = [];
  const err: string[] = [];
  const options: DeployCommandOptions = {
    name: "gadgets",
    image: "gadgets:0.1.0",
    crdsDir: path.join(dir, "crds"),
    deployDir: path.join(dir, "deploy"),
    newControllers: (kube: KubeClient) => [
      controllerFor(kube, gadgets, { reconcile: () => Promise.resolve({}) }, {}, () => ({})),
    ],
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  };
  return { dir, options, out, err };
}

test("a command it does not know, or a stray argument, exits 2 with the usage", async (t) => {
  const { options, err } = project(t);
  assert.equal(await runDeployCommand(["publish"], options), 2);
  assert.equal(await runDeployCommand(["manifests", "extra"], options), 2);
  assert.equal(await runDeployCommand(["manifests", "--force"], options), 2);
  assert.equal(err.filter((l) => l.includes("usage: manifests [--check] | install | deploy")).length, 3);
});

test("manifests writes deploy/ with $IMG as the image; --check passes, then fails on a file changed by hand", async (t) => {
  const { dir, options, out, err } = project(t);
  const previous = process.env["IMG"];
  process.env["IMG"] = "registry.example/gadgets:dev";
  t.after(() => (previous === undefined ? delete process.env["IMG"] : (process.env["IMG"] = previous)));
  assert.equal(await runDeployCommand(["manifests"], options), 0);
  assert.match(out.at(-1)!, /deploy\/: 9 file\(s\) written, 0 unchanged$/);
  const deployment = readFileSync(path.join(dir, "deploy", "07-deployment.yaml"), "utf8");
  assert.match(deployment, /^ {10}image: registry\.example\/gadgets:dev$/m);
  assert.match(readFileSync(path.join(dir, "deploy", "01-crds.yaml"), "utf8"), /name: gadgets\.example\.com/);
  assert.equal(await runDeployCommand(["manifests", "--check"], options), 0);
  writeFileSync(path.join(dir, "deploy", "07-deployment.yaml"), deployment.replace("replicas: 1", "replicas: 2"));
  assert.equal(await runDeployCommand(["manifests", "--check"], options), 1);
  assert.match(err.at(-1)!, /is stale; run npm run manifests\. Would change:\n {2}07-deployment\.yaml$/);
});

test("install and deploy with nothing in deploy/ say to run manifests first, before reaching for a cluster", async (t) => {
  const { options, err } = project(t);
  mkdirSync(options.deployDir!);
  assert.equal(await runDeployCommand(["deploy"], options), 1);
  assert.match(err.at(-1)!, /has nothing to apply: run npm run manifests first$/);
});
