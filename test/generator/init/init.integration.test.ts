// crdgen init: a new project, installed from this checkout (npm pack of crdgen and @crdgen/runtime), generates from a
// corpus CRD, builds and passes its scaffolded test, all through its own npm scripts.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const crdgenBin = path.join(repoRoot, "bin", "crdgen.js");
const corpusCrd = path.resolve(repoRoot, "../shared/crds/external-dns/dnsendpoints.externaldns.k8s.io.yaml");
const temps: string[] = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The environment of the project's commands: without NODE_TEST_CONTEXT, or its `node --test` would think it is nested in this one and run nothing. */
const childEnv = Object.fromEntries(
  Object.entries({ ...process.env, npm_config_audit: "false", npm_config_fund: "false" }).filter(
    ([k]) => k !== "NODE_TEST_CONTEXT",
  ),
);

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 600_000, env: childEnv });
  if (result.error) throw new Error(`${command} ${args.join(" ")} could not run in ${cwd}: ${result.error.message}`);
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(" ")} (in ${cwd}) exited ${result.status}:\n${result.stdout}\n${result.stderr}`,
  );
  return result.stdout + result.stderr;
}

test("crdgen init scaffolds a project where npm run generate && npm test work at once", () => {
  assert.ok(
    existsSync(corpusCrd),
    `the corpus CRD ${corpusCrd} is missing (the corpus lives in ../shared/crds beside the repo)`,
  );
  for (const built of ["dist/generator/cli.js", "runtime/dist/index.js", "runtime/dist/testing/index.js"]) {
    assert.ok(existsSync(path.join(repoRoot, built)), `${built} is missing: run npm run build first`);
  }
  const root = mkdtempSync(path.join(os.tmpdir(), "crdgen-init-"));
  temps.push(root);

  // The two packages as npm would publish them.
  const packs = path.join(root, "packs");
  mkdirSync(packs);
  run("npm", ["pack", "--pack-destination", packs, "--silent"], repoRoot);
  run("npm", ["pack", "--pack-destination", packs, "--silent"], path.join(repoRoot, "runtime"));
  const tarball = (prefix: string) => {
    const found = readdirSync(packs).find((f) => f.startsWith(prefix) && f.endsWith(".tgz"));
    assert.ok(found, `npm pack made no ${prefix}*.tgz in ${packs}: ${readdirSync(packs).join(", ")}`);
    return path.join(packs, found);
  };
  const crdgenTarball = tarball("crdgen-0");
  const runtimeTarball = tarball("crdgen-runtime-");

  const project = path.join(root, "my-operator");
  const init = spawnSync(process.execPath, [crdgenBin, "init", project], { encoding: "utf8" });
  assert.equal(init.status, 0, init.stderr);
  const pkg = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8")) as {
    name: string;
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  assert.equal(pkg.name, "my-operator");
  assert.deepEqual(
    Object.keys(pkg.scripts)
      .filter((s) => ["generate", "build", "start", "test"].includes(s))
      .sort(),
    ["build", "generate", "start", "test"],
  );
  assert.ok(pkg.dependencies["@crdgen/runtime"], "the runtime is a dependency");
  assert.ok(pkg.devDependencies["crdgen"], "crdgen is a (dev) dependency");
  const tsconfig = JSON.parse(readFileSync(path.join(project, "tsconfig.json"), "utf8")) as {
    compilerOptions: { strict?: boolean; module?: string };
  };
  assert.equal(tsconfig.compilerOptions.strict, true);
  assert.equal(tsconfig.compilerOptions.module, "NodeNext");
  for (const file of ["README.md", ".gitignore", "crds"])
    assert.ok(existsSync(path.join(project, file)), `${file} was created`);

  // Install from this checkout instead of the registry: the same package.json with the two specs pointing at the
  // tarballs.
  pkg.dependencies["@crdgen/runtime"] = `file:${runtimeTarball}`;
  pkg.devDependencies["crdgen"] = `file:${crdgenTarball}`;
  writeFileSync(path.join(project, "package.json"), JSON.stringify(pkg, null, 2));
  copyFileSync(corpusCrd, path.join(project, "crds", path.basename(corpusCrd)));
  run("npm", ["install"], project);

  run("npm", ["run", "generate"], project);
  for (const file of [
    "src/dnsendpoint.hooks.ts",
    "src/main.ts",
    "test/dnsendpoint.hooks.test.ts",
    "src/generated/crdgen.lock",
    "src/generated/controllers.ts",
  ]) {
    assert.ok(existsSync(path.join(project, file)), `npm run generate created ${file}`);
  }
  const tested = run("npm", ["test"], project);
  assert.match(tested, /^# pass 1$/m, tested);
  assert.match(tested, /^# fail 0$/m, tested);
  assert.ok(existsSync(path.join(project, "dist/src/main.js")), "npm test built the operator too");
  run("npm", ["run", "generate:check"], project);

  // init never writes into a folder that has something in it.
  const again = spawnSync(process.execPath, [crdgenBin, "init", project], { encoding: "utf8" });
  assert.equal(again.status, 1);
  assert.match(again.stderr, /is not empty/);
});
