// Regeneration is a contract: user-owned files stay byte-identical, generated ones follow the CRDs, files of removed
// CRDs and versions go (and nothing else), crdgen.lock records it all, and --check is clean after every run.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { generatorVersion } from "../../../generator/version.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const crdgenBin = path.join(repoRoot, "bin", "crdgen.js");
const temps: string[] = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

function project(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-regen-"));
  temps.push(dir);
  mkdirSync(path.join(dir, "crds"));
  return dir;
}

function crdgen(cwd: string, ...extra: string[]): { status: number | null; stdout: string; stderr: string } {
  const args = ["generate", "crds", "--out", "src/generated", "--hooks", "src", "--tests", "test", ...extra];
  const run = spawnSync(process.execPath, [crdgenBin, ...args], { cwd, encoding: "utf8", timeout: 120_000 });
  if (run.error) throw run.error;
  return run;
}

function generateOk(cwd: string): void {
  const run = crdgen(cwd);
  assert.equal(run.status, 0, `crdgen generate failed:\n${run.stdout}${run.stderr}`);
  const check = crdgen(cwd, "--check");
  assert.equal(check.status, 0, `--check is not clean right after generate:\n${check.stdout}${check.stderr}`);
}

/** Relative path -> sha256 of every file under dir. */
function hashes(dir: string): Map<string, string> {
  const result = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else
        result.set(
          path.relative(dir, full).split(path.sep).join("/"),
          createHash("sha256").update(readFileSync(full)).digest("hex"),
        );
    }
  };
  if (existsSync(dir)) walk(dir);
  return result;
}

type Version = { name: string; served: boolean; storage: boolean; fields: Record<string, string> };

function writeCrd(dir: string, file: string, kind: string, group: string, versions: Version[]): void {
  const plural = `${kind.toLowerCase()}s`;
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase() },
      scope: "Namespaced",
      versions: versions.map((v) => ({
        name: v.name,
        served: v.served,
        storage: v.storage,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: Object.fromEntries(Object.entries(v.fields).map(([k, t]) => [k, { type: t }])),
              },
              status: { type: "object", properties: { ready: { type: "boolean" } } },
            },
          },
        },
      })),
    },
  };
  writeFileSync(path.join(dir, "crds", file), stringify(crd));
}

interface Lock {
  inputs: Array<{ path: string; sha256: string }>;
  crds: Array<{ name: string; versions: string[]; hooks: string }>;
  files: Array<{ path: string; sha256: string }>;
  userFiles: string[];
}

function lockOf(dir: string): Lock {
  return JSON.parse(readFileSync(path.join(dir, "src/generated/crdgen.lock"), "utf8")) as Lock;
}

test("edit user files, then add a field, add a version, remove a version and add a second CRD: each regeneration keeps user files and follows the CRDs", () => {
  const dir = project();
  const group = "shop.example.com";
  const v1alpha1: Version = { name: "v1alpha1", served: true, storage: false, fields: { size: "integer" } };
  const v1: Version = { name: "v1", served: true, storage: true, fields: { size: "integer" } };
  writeCrd(dir, "cart.yaml", "Cart", group, [v1alpha1, v1]);
  generateOk(dir);
  const gen = (rel: string) => path.join(dir, "src/generated", rel);
  assert.ok(existsSync(gen(`${group}/v1alpha1/cart.types.ts`)) && existsSync(gen(`${group}/v1/cart.controller.ts`)));
  for (const user of ["src/cart.hooks.ts", "src/main.ts", "test/cart.hooks.test.ts"])
    assert.ok(existsSync(path.join(dir, user)), `${user} was created`);
  // An earlier crdgen also created <kind>.expansion.ts: no longer planned, it is still the user's and stays.
  writeFileSync(path.join(dir, "src/cart.expansion.ts"), "// User-owned: crdgen created this file once.\n");

  // The user edits every file that is theirs.
  appendFileSync(path.join(dir, "src/cart.hooks.ts"), "\n// my reconcile notes\n");
  appendFileSync(path.join(dir, "src/cart.expansion.ts"), "\nexport const myHelper = 1;\n");
  appendFileSync(path.join(dir, "src/main.ts"), "\n// my main\n");
  appendFileSync(path.join(dir, "test/cart.hooks.test.ts"), "\n// my test notes\n");
  // A file of the user's in the generated folder, without crdgen's header, is never touched either.
  writeFileSync(gen(`${group}/v1alpha1/notes.ts`), "// mine\nexport const note = 1;\n");
  const userFiles = () =>
    new Map(
      [
        ...hashes(path.join(dir, "src")),
        ...[...hashes(path.join(dir, "test"))].map(([f, h]) => [`test/${f}`, h] as const),
      ].filter(([f]) => !f.startsWith("generated/")),
    );
  const userBefore = userFiles();
  const notesBefore = readFileSync(gen(`${group}/v1alpha1/notes.ts`), "utf8");

  // 1. Add a field.
  const typesBefore = readFileSync(gen(`${group}/v1/cart.types.ts`), "utf8");
  v1.fields = { ...v1.fields, color: "string" };
  writeCrd(dir, "cart.yaml", "Cart", group, [v1alpha1, v1]);
  assert.equal(crdgen(dir, "--check").status, 1, "--check sees the changed CRD");
  generateOk(dir);
  const typesAfter = readFileSync(gen(`${group}/v1/cart.types.ts`), "utf8");
  assert.notEqual(typesAfter, typesBefore);
  assert.match(typesAfter, /^ {2}color\?: string;$/m);
  assert.deepEqual(userFiles(), userBefore, "user files are byte-identical after adding a field");

  // 2. Add a version.
  const v2: Version = {
    name: "v2",
    served: true,
    storage: false,
    fields: { size: "integer", color: "string", shape: "string" },
  };
  writeCrd(dir, "cart.yaml", "Cart", group, [v1alpha1, v1, v2]);
  generateOk(dir);
  assert.match(readFileSync(gen(`${group}/v2/cart.types.ts`), "utf8"), /apiVersion: "shop\.example\.com\/v2";/);
  assert.match(
    readFileSync(gen("index.ts"), "utf8"),
    /export \* as shopExampleComV2 from "\.\/shop\.example\.com\/v2\/index\.js";/,
  );
  assert.deepEqual(
    lockOf(dir).crds.map((c) => c.versions),
    [["v1alpha1", "v1", "v2"]],
  );
  assert.deepEqual(userFiles(), userBefore, "user files are byte-identical after adding a version");

  // 3. Remove a version: its generated files go, and only those (the user's notes.ts in that folder stays).
  const alphaFiles = lockOf(dir)
    .files.filter((f) => f.path.startsWith(`${group}/v1alpha1/`))
    .map((f) => f.path);
  assert.deepEqual(
    alphaFiles.sort(),
    ["cart.client.ts", "cart.informer.ts", "cart.lister.ts", "cart.types.ts", "index.ts"].map(
      (f) => `${group}/v1alpha1/${f}`,
    ),
  );
  writeCrd(dir, "cart.yaml", "Cart", group, [v1, v2]);
  const check = crdgen(dir, "--check");
  assert.equal(check.status, 1);
  for (const f of alphaFiles)
    assert.match(check.stderr, new RegExp(`${f.replace(/[./]/g, "\\$&")} \\(no longer generated: would be removed\\)`));
  generateOk(dir);
  for (const f of alphaFiles) assert.ok(!existsSync(gen(f)), `${f} was removed`);
  assert.equal(
    readFileSync(gen(`${group}/v1alpha1/notes.ts`), "utf8"),
    notesBefore,
    "a file without crdgen's header is never removed",
  );
  assert.ok(
    !lockOf(dir).files.some((f) => f.path.includes("v1alpha1")),
    "the lock no longer lists the removed version",
  );
  assert.doesNotMatch(readFileSync(gen("index.ts"), "utf8"), /v1alpha1/);
  assert.deepEqual(userFiles(), userBefore, "user files are byte-identical after removing a version");

  // 4. Add a second CRD: its files and its controller in the generated registry appear; the first's user files stay.
  writeCrd(dir, "order.yaml", "Order", "orders.example.com", [
    { name: "v1", served: true, storage: true, fields: { item: "string" } },
  ]);
  generateOk(dir);
  const registry = readFileSync(gen("controllers.ts"), "utf8");
  assert.match(registry, /cartController\.newCartController\(kube, cartHooks, shared\)/);
  assert.match(registry, /orderController\.newOrderController\(kube, orderHooks, shared\)/);
  assert.equal(registry.match(/newOrderController\(/g)?.length, 1, "the registry names each controller once");
  for (const created of ["src/order.hooks.ts", "test/order.hooks.test.ts"])
    assert.ok(existsSync(path.join(dir, created)), `${created} was created`);
  const after = userFiles();
  for (const [file, hash] of userBefore)
    assert.equal(after.get(file), hash, `${file} is byte-identical after adding a second CRD`);
  assert.deepEqual(
    lockOf(dir).crds.map((c) => [c.name, c.hooks]),
    [
      ["carts.shop.example.com", "cart.hooks.ts"],
      ["orders.orders.example.com", "order.hooks.ts"],
    ],
  );
  assert.deepEqual(
    lockOf(dir).inputs.map((i) => i.path),
    ["crds/cart.yaml", "crds/order.yaml"],
  );

  // Running again is idempotent: nothing changes, the registry still names each controller once.
  const whole = hashes(dir);
  generateOk(dir);
  assert.deepEqual(hashes(dir), whole);

  // Removing the second CRD removes its generated files and its registry entry, never its user-owned files.
  rmSync(path.join(dir, "crds/order.yaml"));
  generateOk(dir);
  assert.ok(!existsSync(gen("orders.example.com")), "the removed CRD's generated folder is gone");
  assert.doesNotMatch(readFileSync(gen("controllers.ts"), "utf8"), /Order/);
  assert.ok(existsSync(path.join(dir, "src/order.hooks.ts")), "its hooks stay: they are the user's");
});

test("--check fails when crdgen.lock alone is out of date or missing, and names it", () => {
  const dir = project();
  writeCrd(dir, "cart.yaml", "Cart", "shop.example.com", [
    { name: "v1", served: true, storage: true, fields: { size: "integer" } },
  ]);
  generateOk(dir);
  const lock = path.join(dir, "src/generated/crdgen.lock");
  writeFileSync(lock, readFileSync(lock, "utf8").replace(/"sha256": "[0-9a-f]{64}"/, `"sha256": "${"0".repeat(64)}"`));
  const stale = crdgen(dir, "--check");
  assert.equal(stale.status, 1);
  assert.match(stale.stderr, /crdgen\.lock/);
  rmSync(lock);
  const missing = crdgen(dir, "--check");
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /crdgen\.lock/);
  generateOk(dir);
});

test("a crdgen.lock that is not valid JSON is an error naming it, and nothing is written", () => {
  const dir = project();
  writeCrd(dir, "cart.yaml", "Cart", "shop.example.com", [
    { name: "v1", served: true, storage: true, fields: { size: "integer" } },
  ]);
  generateOk(dir);
  const lock = path.join(dir, "src/generated/crdgen.lock");
  writeFileSync(lock, "{ not json");
  const before = hashes(dir);
  const run = crdgen(dir);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /src\/generated\/crdgen\.lock: is not valid JSON/);
  assert.deepEqual(hashes(dir), before);
});

test("two CRDs of the same kind in different groups get their own hooks files, and the first keeps its path when the second comes", () => {
  const dir = project();
  writeCrd(dir, "a.yaml", "Peer", "net.example.com", [
    { name: "v1", served: true, storage: true, fields: { asn: "integer" } },
  ]);
  generateOk(dir);
  assert.ok(existsSync(path.join(dir, "src/peer.hooks.ts")));
  writeCrd(dir, "b.yaml", "Peer", "mesh.example.com", [
    { name: "v1beta1", served: true, storage: true, fields: { id: "string" } },
  ]);
  generateOk(dir);
  assert.ok(
    existsSync(path.join(dir, "src/peer.mesh.example.com.hooks.ts")),
    "the newcomer's hooks file is named by its group",
  );
  const registry = readFileSync(path.join(dir, "src/generated/controllers.ts"), "utf8");
  assert.match(registry, /import \* as peer_netExampleComV1Hooks from "\.\.\/peer\.hooks\.js";/);
  assert.match(
    registry,
    /import \* as peer_meshExampleComV1beta1Hooks from "\.\.\/peer\.mesh\.example\.com\.hooks\.js";/,
  );
});

test("adding one field to one CRD of two rewrites only the files whose code changes, and crdgen.lock", () => {
  const dir = project();
  const cart: Version = { name: "v1", served: true, storage: true, fields: { size: "integer" } };
  writeCrd(dir, "cart.yaml", "Cart", "shop.example.com", [
    { name: "v1alpha1", served: true, storage: false, fields: { size: "integer" } },
    cart,
  ]);
  writeCrd(dir, "order.yaml", "Order", "orders.example.com", [
    { name: "v1", served: true, storage: true, fields: { item: "string" } },
  ]);
  generateOk(dir);
  const before = hashes(dir);
  cart.fields = { ...cart.fields, color: "string" };
  writeCrd(dir, "cart.yaml", "Cart", "shop.example.com", [
    { name: "v1alpha1", served: true, storage: false, fields: { size: "integer" } },
    cart,
  ]);
  generateOk(dir);
  const after = hashes(dir);
  const changed = [...after.keys()].filter((file) => before.get(file) !== after.get(file));
  assert.deepEqual(changed, [
    "crds/cart.yaml",
    "src/generated/crdgen.lock",
    "src/generated/shop.example.com/v1/cart.types.ts",
  ]);
  assert.deepEqual([...after.keys()], [...before.keys()], "no file appears or goes");
});

test("headers and crdgen.lock name inputs relative to the project, never by an absolute path", () => {
  const dir = project();
  writeCrd(dir, "cart.yaml", "Cart", "shop.example.com", [
    { name: "v1", served: true, storage: true, fields: { size: "integer" } },
  ]);
  const elsewhere = project(); // a folder outside this project
  writeCrd(elsewhere, "order.yaml", "Order", "orders.example.com", [
    { name: "v1", served: true, storage: true, fields: { item: "string" } },
  ]);
  const args = ["generate", path.join(dir, "crds/cart.yaml"), path.join(elsewhere, "crds/order.yaml")];
  const run = spawnSync(process.execPath, [crdgenBin, ...args, "--out", "gen", "--hooks", "src"], {
    cwd: dir,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  const written = [...hashes(dir).keys()].filter((f) => f.startsWith("gen/") || f.startsWith("src/"));
  for (const file of written) {
    const text = readFileSync(path.join(dir, file), "utf8");
    for (const machinePath of [dir, elsewhere, os.tmpdir()])
      assert.ok(!text.includes(machinePath), `${file} names ${machinePath}`);
  }
  assert.equal(
    readFileSync(path.join(dir, "gen/shop.example.com/v1/cart.types.ts"), "utf8").split("\n")[0],
    `// Code generated by crdgen ${generatorVersion} from crds/cart.yaml. DO NOT EDIT.`,
  );
  assert.equal(
    readFileSync(path.join(dir, "gen/orders.example.com/v1/order.types.ts"), "utf8").split("\n")[0],
    `// Code generated by crdgen ${generatorVersion} from order.yaml (outside the project folder). DO NOT EDIT.`,
  );
  const lock = JSON.parse(readFileSync(path.join(dir, "gen/crdgen.lock"), "utf8")) as Lock;
  assert.deepEqual(
    lock.inputs.map((i) => i.path),
    ["crds/cart.yaml", "order.yaml"],
  );
});
