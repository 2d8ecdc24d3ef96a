// Kinds named like JavaScript globals (Promise, Object, Array, Map, Error, Date) and properties named like
// Object.prototype's members (constructor, toString, hasOwnProperty, valueOf): the golden output of the
// js-global-names fixture type-checks under strict (tsc -b compiles test/fixtures/schema/*/expected), and here it runs.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { FakeCluster, Indexer } from "@crdgen/runtime/testing";
import type { KubernetesObject, ResourceDescriptor } from "@crdgen/runtime/client";
import { generate } from "../../../generator/generate.js";
import { compileOutput, repoRoot, repoTempDir } from "../support/compile-output.js";

/** The compiled goldens: dist/test/fixtures/schema/js-global-names/expected/<group>/v1/. */
const goldenDir = path.join(
  repoRoot,
  "dist/test/fixtures/schema/js-global-names/expected/js-global-names.fixtures.crdgen.dev/v1",
);
const kinds = ["Promise", "Object", "Array", "Map", "Error", "Date"] as const;

interface Verbs {
  create(obj: KubernetesObject): Promise<KubernetesObject & { spec?: Record<string, unknown> }>;
  get(name: string): Promise<KubernetesObject & { spec?: Record<string, unknown> }>;
  list(): Promise<{ items: KubernetesObject[] }>;
}
type GeneratedClient = Verbs & { namespace?: (ns: string) => Verbs; listAllNamespaces?: () => Promise<unknown> };

async function load(kind: string, artifact: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(path.join(goldenDir, `${kind.toLowerCase()}.${artifact}.js`)).href)) as Record<
    string,
    unknown
  >;
}

// Keys Object.prototype has: an object literal or a lookup that confuses them with the prototype's would lose them.
const spec = { constructor: "c", toString: "t", hasOwnProperty: true, valueOf: 3, entries: [[{ valueOf: "v" }]] };

test("every kind named like a global gets a client that creates, reads and lists it, prototype-named fields intact", async () => {
  assert.deepEqual(
    readdirSync(goldenDir)
      .filter((f) => f.endsWith(".client.js"))
      .sort(),
    kinds.map((k) => `${k.toLowerCase()}.client.js`).sort(),
  );
  for (const kind of kinds) {
    const resource = (await load(kind, "types"))[`${kind[0]!.toLowerCase()}${kind.slice(1)}Resource`] as
      (ResourceDescriptor & { apiVersion: string; namespaced: boolean }) | undefined;
    assert.ok(resource, `${kind}: the resource const`);
    assert.equal(resource.kind, kind);
    const cluster = new FakeCluster();
    cluster.register(resource, { status: true });
    const newClient = (await load(kind, "client"))[`new${kind}Client`] as (kube: unknown) => GeneratedClient;
    const client = newClient(cluster.kubeClient());
    const verbs = resource.namespaced ? client.namespace!("default") : client;
    const metadata = { name: "one", ...(resource.namespaced ? { namespace: "default" } : {}) };
    const created = await verbs.create({ apiVersion: resource.apiVersion, kind, metadata, spec } as KubernetesObject);
    assert.deepEqual(created.spec, spec, `${kind}: created as sent`);
    assert.deepEqual((await verbs.get("one")).spec, spec, `${kind}: read back`);
    assert.equal((await verbs.list()).items.length, 1, `${kind}: listed`);
    if (resource.namespaced) assert.ok(client.listAllNamespaces, `${kind}: a namespaced client lists all namespaces`);

    const newLister = (await load(kind, "lister"))[`new${kind}Lister`] as (indexer: Indexer<KubernetesObject>) => {
      list(): KubernetesObject[];
    };
    const indexer = new Indexer<KubernetesObject>();
    indexer.add(created);
    assert.equal(newLister(indexer).list().length, 1, `${kind}: the lister reads the cache`);
    assert.equal(typeof (await load(kind, "controller"))[`new${kind}Controller`], "function");
  }
});

const scratch = repoTempDir("js-global-names-");
after(() => rmSync(scratch, { recursive: true, force: true }));

test("with --validation and --hooks the output type-checks, and pruning keeps declared prototype-named keys only", async () => {
  await generate({
    inputs: [path.join(repoRoot, "test/fixtures/schema/js-global-names/crd.yaml")],
    outDir: path.join(scratch, "generated"),
    hooksDir: path.join(scratch, "src"),
    testsDir: path.join(scratch, "test"),
    validation: true,
  });
  const compiled = compileOutput(scratch);
  assert.equal(compiled.status, 0, `the generated operator compiles under strict TypeScript:\n${compiled.output}`);
  const validation = (await import(
    pathToFileURL(path.join(compiled.jsDir, "generated/js-global-names.fixtures.crdgen.dev/v1/promise.validation.js"))
      .href
  )) as {
    normalizePromise(obj: unknown): { spec: Record<string, unknown>; status: Record<string, unknown> };
    validatePromise(obj: unknown): { valid: boolean; errors: unknown[] };
  };
  const object = {
    apiVersion: "js-global-names.fixtures.crdgen.dev/v1",
    kind: "Promise",
    metadata: { name: "one", namespace: "default" },
    spec,
    // status declares only toString: the other prototype-named keys are unknown fields, which the API server prunes.
    status: { toString: "kept", valueOf: 1, constructor: "pruned", hasOwnProperty: false },
  };
  const normalized = validation.normalizePromise(object);
  assert.deepEqual(normalized.spec, spec);
  assert.deepEqual(normalized.status, { toString: "kept" });
  assert.deepEqual(validation.validatePromise(object).errors, []);
  const invalid = validation.validatePromise({ ...object, spec: { ...spec, valueOf: "three" } });
  assert.equal(invalid.valid, false, "a wrong type under a prototype-named key is caught");
});

/** A CRD of `kind` with a prototype-named field and a subtree repeated often enough to be declared once. */
function crdOf(kind: string): string {
  const plural = `${kind.toLowerCase()}s`;
  const limits = `{ type: object, properties: { cpuMillicores: { type: integer }, memoryMebibytes: { type: integer } } }`;
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${plural}.runtime-names.fixtures.crdgen.dev }
spec:
  group: runtime-names.fixtures.crdgen.dev
  names: { kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()} }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                constructor: { type: object, properties: { name: { type: string } } }
                requests: ${limits}
                limits: ${limits}
                burst: ${limits}
`;
}

test("kinds named like the runtime names generated modules import (StructuralNode, Indexer, FakeCluster) type-check", async () => {
  const dir = path.join(scratch, "runtime-names");
  const kinds = ["StructuralNode", "VersionValidation", "ValidateOptions", "Indexer", "FakeCluster"];
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "crds.yaml"), kinds.map(crdOf).join("---\n"));
  await generate({
    inputs: [path.join(dir, "crds.yaml")],
    outDir: path.join(dir, "generated"),
    hooksDir: path.join(dir, "src"),
    testsDir: path.join(dir, "test"),
    validation: true,
  });
  const compiled = compileOutput(dir);
  assert.equal(compiled.status, 0, `the generated operator compiles under strict TypeScript:\n${compiled.output}`);
});
