// The generated apply<Kind>Defaults / normalize<Kind> / validate<Kind> against the real API server: for every
// object in validation-cases.ts, the server's dry-run result (create, or update of a stored object) is
// compared with what the generated code says: the defaulted object (metadata aside; status too where the
// status subresource drops it on create), the verdict, and the set of error fields.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "yaml";
import { ApiError, retryOnConflict, type KubeClient } from "@crdgen/runtime";
import { isInvalid } from "@crdgen/runtime/client";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import type { ValidateOptions, ValidationResult } from "@crdgen/runtime/validation";
import { generate } from "../../generator/generate.js";
import { fileStem } from "../../generator/emit/names.js";
import { repoRoot } from "./control-plane.js";
import { validationCases, type CrdCases, type ValidationCase } from "./validation-cases.js";

const corpusDir = path.resolve(repoRoot, "../shared/crds");
/** Inside the repo (gitignored .tmp/) so the compiled modules resolve @crdgen/runtime from node_modules. */
const workDir = path.join(repoRoot, ".tmp", `validation-${process.pid}`);

interface GeneratedModule {
  normalize: (obj: unknown) => Record<string, unknown>;
  applyDefaults: (obj: unknown) => Record<string, unknown>;
  validate: (obj: unknown, options?: ValidateOptions) => ValidationResult;
}

interface LoadedCrd {
  cases: CrdCases;
  path: string;
  group: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  statusSubresource: boolean;
  module: GeneratedModule;
}

let plane: ControlPlane | undefined;
let kube: KubeClient;
const crds: LoadedCrd[] = [];
const tally = new Map<
  string,
  { compared: number; rejected: number; agreed: number; disagreements: string[]; skippedRules: Set<string> }
>();

const crdPath = (c: CrdCases) => (c.corpus ? path.join(corpusDir, c.file) : path.join(repoRoot, c.file));

before(async () => {
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  // Generate every CRD with --validation, then compile all of it with the repo's strict settings.
  for (const [index, cases] of validationCases.entries()) {
    await generate({ inputs: [crdPath(cases)], outDir: path.join(workDir, "gen", String(index)), validation: true });
  }
  await generate({
    inputs: [path.join(repoRoot, "test/fixtures/validation/ratchet.yaml")],
    outDir: path.join(workDir, "gen", "ratchet"),
    validation: true,
  });
  writeFileSync(
    path.join(workDir, "tsconfig.json"),
    JSON.stringify({
      extends: path.join(repoRoot, "tsconfig.base.json"),
      compilerOptions: {
        rootDir: ".",
        outDir: "out",
        declaration: false,
        sourceMap: false,
        skipLibCheck: true,
        types: ["node"],
      },
      include: ["gen/**/*.ts"],
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [
      path.join(repoRoot, "node_modules/typescript/bin/tsc"),
      "-p",
      path.join(workDir, "tsconfig.json"),
      "--pretty",
      "false",
    ],
    { encoding: "utf8" },
  );
  assert.equal(
    tsc.status,
    0,
    `the generated validation modules compile under strict TypeScript:\n${tsc.stdout}${tsc.stderr}`,
  );

  for (const [index, cases] of validationCases.entries()) {
    const file = crdPath(cases);
    const crd = parse(readFileSync(file, "utf8")) as {
      spec: {
        group: string;
        scope: string;
        names: { kind: string; plural: string };
        versions: Array<{ name: string; subresources?: { status?: object } }>;
      };
    };
    const { group, names } = crd.spec;
    const version = crd.spec.versions.find((v) => v.name === cases.version);
    assert.ok(version, `${cases.file} has version ${cases.version}`);
    const url = pathToFileURL(
      path.join(workDir, "out", "gen", String(index), group, cases.version, `${fileStem(names.kind)}.validation.js`),
    ).href;
    const loaded = (await import(url)) as Record<string, unknown>;
    const pick = (name: string) => {
      assert.equal(typeof loaded[name], "function", `${cases.file}: the generated module exports ${name}`);
      return loaded[name] as never;
    };
    crds.push({
      cases,
      path: file,
      group,
      kind: names.kind,
      plural: names.plural,
      namespaced: crd.spec.scope === "Namespaced",
      statusSubresource: version.subresources?.status !== undefined,
      module: {
        normalize: pick(`normalize${names.kind}`),
        applyDefaults: pick(`apply${names.kind}Defaults`),
        validate: pick(`validate${names.kind}`),
      },
    });
  }
  plane = await startControlPlane({ crdFiles: crds.map((c) => c.path) });
  kube = plane.kubeClient();
});

after(async () => {
  const rows = [...tally].map(
    ([file, t]) =>
      `  ${file}: ${t.compared} objects (${t.rejected} rejected by the API server), ${t.agreed} agree with the API server, ${t.compared - t.agreed} disagree; CEL rules skipped by crdgen on the way: ${t.skippedRules.size}`,
  );
  if (rows.length) console.log(`validation vs the API server:\n${rows.join("\n")}`);
  (kube as KubeClient | undefined)?.close(); // before() may have failed before setting it
  await plane?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

interface ServerOutcome {
  accepted: boolean;
  object?: Record<string, unknown>;
  fields: string[];
  messages: string[];
}

function resourcePath(crd: LoadedCrd, name?: string): string {
  return `/apis/${crd.group}/${crd.cases.version}${crd.namespaced ? "/namespaces/default" : ""}/${crd.plural}${name ? `/${name}` : ""}`;
}

let counter = 0;

async function serverOutcome(crd: LoadedCrd, c: ValidationCase, name: string): Promise<ServerOutcome> {
  const object = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    apiVersion: `${crd.group}/${crd.cases.version}`,
    kind: crd.kind,
    metadata: { name, ...extra },
    spec,
  });
  try {
    let result: Record<string, unknown>;
    if (c.old) {
      const stored = await kube.request<{ metadata: { resourceVersion: string } }>({
        method: "POST",
        path: resourcePath(crd),
        body: object(c.old),
      });
      result = await kube.request({
        method: "PUT",
        path: resourcePath(crd, name),
        query: { dryRun: "All" },
        body: object(c.spec, { resourceVersion: stored.metadata.resourceVersion }),
      });
    } else {
      result = await kube.request({
        method: "POST",
        path: resourcePath(crd),
        query: { dryRun: "All" },
        body: object(c.spec),
      });
    }
    return { accepted: true, object: result, fields: [], messages: [] };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 422 || typeof error.body !== "object") throw error;
    const causes = error.body.details?.causes ?? [];
    return {
      accepted: false,
      fields: [...new Set(causes.map((cause) => cause.field ?? ""))].sort(),
      messages: causes.map((cause) => `${cause.field}: ${cause.message}`),
    };
  }
}

/** What the comparison ignores: metadata (server-set), and status where the subresource drops it on create. */
function comparable(obj: Record<string, unknown>, crd: LoadedCrd): Record<string, unknown> {
  const { metadata: _metadata, ...rest } = obj;
  if (crd.statusSubresource) delete rest["status"];
  return rest;
}

/** The server names the "rules not checked" cause's field "<nil>"; validate() leaves it empty. */
const clientFields = (r: ValidationResult) =>
  [...new Set(r.errors.map((e) => (e.field === "" ? "<nil>" : e.field)))].sort();

for (const cases of validationCases) {
  test(`validate and applyDefaults agree with the API server: ${cases.file}`, async () => {
    const crd = crds.find((c) => c.cases === cases);
    assert.ok(crd, `${cases.file} was generated and loaded`);
    const t = { compared: 0, rejected: 0, agreed: 0, disagreements: [] as string[], skippedRules: new Set<string>() };
    tally.set(cases.file, t);
    for (const c of cases.cases) {
      const name = c.name ?? `obj-${++counter}`;
      const server = await serverOutcome(crd, c, name);
      const input = { apiVersion: `${crd.group}/${cases.version}`, kind: crd.kind, metadata: { name }, spec: c.spec };
      const old = c.old ? { apiVersion: input.apiVersion, kind: crd.kind, metadata: { name }, spec: c.old } : undefined;
      const result = crd.module.validate(input, old ? { oldObject: old } : {});
      for (const s of result.skipped) t.skippedRules.add(`${s.schemaPath}: ${s.reason}`);
      const problems: string[] = [];
      if (result.valid !== server.accepted) {
        problems.push(
          `verdict: API server ${server.accepted ? "accepted" : `rejected (${server.messages.join("; ")})`}, validate() ${result.valid ? "accepted" : `rejected (${result.errors.map((e) => `${e.field}: ${e.message}`).join("; ")})`}`,
        );
      } else if (!server.accepted) {
        const mine = clientFields(result);
        if (JSON.stringify(mine) !== JSON.stringify(server.fields)) {
          problems.push(
            `error fields: API server ${JSON.stringify(server.fields)} (${server.messages.join("; ")}), validate() ${JSON.stringify(mine)} (${result.errors.map((e) => `${e.field}: ${e.message}`).join("; ")})`,
          );
        }
        // The server words a cause as `Invalid value: "<type>": <message>` (and so on): validate() gives the message.
        const unmatched = c.messages
          ? result.errors.filter(
              (e) => !server.messages.some((m) => m.startsWith(`${e.field || "<nil>"}: `) && m.endsWith(e.message)),
            )
          : [];
        if (unmatched.length)
          problems.push(
            `messages: API server ${JSON.stringify(server.messages)}, validate() ${JSON.stringify(unmatched.map((e) => `${e.field}: ${e.message}`))}`,
          );
      }
      if (server.accepted && server.object) {
        const expected = comparable(server.object, crd);
        const normalized = comparable(crd.module.normalize(input), crd);
        if (JSON.stringify(sortKeys(normalized)) !== JSON.stringify(sortKeys(expected))) {
          problems.push(
            `normalize: API server ${JSON.stringify(sortKeys(expected))}, normalize() ${JSON.stringify(sortKeys(normalized))}`,
          );
        }
        // Without unknown fields, defaulting alone gives the same object.
        const defaulted = comparable(crd.module.applyDefaults(input), crd);
        if (
          JSON.stringify(sortKeys(normalized)) ===
            JSON.stringify(sortKeys(comparable(crd.module.normalize(crd.module.applyDefaults(input)), crd))) &&
          !c.what.includes("unknown")
        ) {
          if (JSON.stringify(sortKeys(defaulted)) !== JSON.stringify(sortKeys(expected)))
            problems.push(
              `applyDefaults: API server ${JSON.stringify(sortKeys(expected))}, applyDefaults() ${JSON.stringify(sortKeys(defaulted))}`,
            );
        }
      }
      t.compared++;
      if (!server.accepted) t.rejected++;
      if (problems.length === 0) t.agreed++;
      else t.disagreements.push(`${c.what}: ${problems.join(" | ")}`);
    }
    assert.deepEqual(
      t.disagreements,
      [],
      `${cases.file}: ${t.compared - t.agreed} of ${t.compared} objects disagree with the API server`,
    );
  });
}

test("updates: errors in values left unchanged are ratcheted, as the API server does after a schema tightened", async () => {
  const url = pathToFileURL(
    path.join(workDir, "out", "gen", "ratchet", "validation.crdgen.dev", "v1", "ratchet.validation.js"),
  ).href;
  const { validateRatchet } = (await import(url)) as {
    validateRatchet: (obj: unknown, options?: ValidateOptions) => ValidationResult;
  };
  const resource = "/apis/validation.crdgen.dev/v1/namespaces/default/ratchets";
  const object = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    apiVersion: "validation.crdgen.dev/v1",
    kind: "Ratchet",
    metadata: { name: "stored", ...extra },
    spec,
  });
  await plane!.installCrds([path.join(repoRoot, "test/fixtures/validation/ratchet-loose.yaml")]);
  const storedSpec = { name: "ninechars", count: 150, tags: ["long-tag", "ok"] };
  const stored = await kube.request<{ metadata: { resourceVersion: string } }>({
    method: "POST",
    path: resource,
    body: object(storedSpec),
  });
  // Tighten the schema in place, then wait until the API server validates with it.
  const tight = parse(readFileSync(path.join(repoRoot, "test/fixtures/validation/ratchet.yaml"), "utf8")) as {
    spec: unknown;
  };
  const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ratchets.validation.crdgen.dev";
  // The apiextensions controllers may still be writing the new CRD's status: read afresh on a conflict.
  await retryOnConflict(async () => {
    const current = await kube.request<{ metadata: Record<string, unknown> }>({ method: "GET", path: crdPath });
    await kube.request({
      method: "PUT",
      path: crdPath,
      body: {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: current.metadata,
        spec: tight.spec,
      },
    });
  });
  const probe = { ...object(storedSpec), metadata: { name: "probe" } };
  for (let i = 0; ; i++) {
    // Only a 422 says the new schema is in effect; any other error (the CRD's storage being swapped) is waited out.
    const rejected = await kube.request({ method: "POST", path: resource, query: { dryRun: "All" }, body: probe }).then(
      () => false,
      (e: unknown) => isInvalid(e),
    );
    if (rejected) break;
    assert.ok(i < 300, "the tightened schema is in effect within 30 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  const cases: Array<{ what: string; spec: Record<string, unknown> }> = [
    { what: "spec unchanged (every invalid value ratcheted)", spec: { ...storedSpec } },
    { what: "only an unrelated field changed (the rule on spec runs again)", spec: { ...storedSpec, note: "hello" } },
    { what: "the invalid name changed to another invalid one", spec: { ...storedSpec, name: "tenletters" } },
    { what: "the count changed but still breaks the rule", spec: { ...storedSpec, count: 200 } },
    {
      what: "an invalid tag kept, a new invalid one added (atomic list: not correlated)",
      spec: { ...storedSpec, tags: ["long-tag", "ok", "other-long"] },
    },
    { what: "everything invalid fixed", spec: { name: "short", count: 1, tags: ["a"] } },
  ];
  const disagreements: string[] = [];
  for (const c of cases) {
    const server = await kube
      .request({
        method: "PUT",
        path: `${resource}/stored`,
        query: { dryRun: "All" },
        body: object(c.spec, { resourceVersion: stored.metadata.resourceVersion }),
      })
      .then(
        () => ({ accepted: true, fields: [] as string[] }),
        (error: unknown) => {
          if (!(error instanceof ApiError) || typeof error.body !== "object") throw error;
          return {
            accepted: false,
            fields: [...new Set((error.body.details?.causes ?? []).map((cause) => cause.field ?? ""))].sort(),
          };
        },
      );
    const result = validateRatchet(object(c.spec), { oldObject: object(storedSpec) });
    const mine = clientFields(result);
    console.log(
      `ratcheting: ${c.what}: API server ${server.accepted ? "accepted" : `rejected ${JSON.stringify(server.fields)}`}, validate() ${result.valid ? "accepted" : `rejected ${JSON.stringify(mine)}`}`,
    );
    if (result.valid !== server.accepted || JSON.stringify(mine) !== JSON.stringify(server.fields)) {
      disagreements.push(
        `${c.what}: API server ${server.accepted ? "accepted" : `rejected ${JSON.stringify(server.fields)}`}, validate() ${result.valid ? "accepted" : `rejected ${JSON.stringify(mine)}: ${result.errors.map((e) => e.message).join("; ")}`}`,
      );
    }
  }
  // A new object with the old content is not ratcheted.
  assert.equal(validateRatchet(object(storedSpec)).valid, false);
  assert.deepEqual(disagreements, [], "validate() with oldObject agrees with the API server on every update");
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  return value;
}
