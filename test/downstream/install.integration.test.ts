// The downstream path as README's "Use crdgen in your project" gives it, run for real: the three packages packed from
// this checkout, a local npm registry (verdaccio, in a temp folder, proxying every other package to the registry npm is
// configured with), and a new user's commands with their own empty npm cache. Before any release, `crdgen init` run
// from a checkout or from tarballs must give a project that installs although the registry has no crdgen; after the
// packages are published, `npx crdgen init my-operator`, `npm install && npm run generate && npm test` must pass.
// The cases run in order: the registry gets crdgen's packages only in the last one.
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
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startLocalRegistry, type LocalRegistry } from "./local-registry.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const crd = path.join(repoRoot, "test", "fixtures", "downstream", "widget.yaml");
const packages = [
  { dir: ".", tarball: "crdgen-" },
  { dir: "runtime", tarball: "crdgen-runtime-" },
  { dir: "explore", tarball: "crdgen-explore-" },
];

let work: string;
let registry: LocalRegistry | undefined;
/** The environment of a new user's commands: npm talks to the local registry only, with an empty cache. */
let userEnv: NodeJS.ProcessEnv;
/** The packed packages: crdgen, @crdgen/runtime, @crdgen/explore. */
let tarballs: string[];

after(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs a command; fails the test with its output unless it exits 0. */
function run(command: string, args: string[], cwd: string, env = userEnv): string {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 600_000 });
  if (result.error) throw new Error(`${command} ${args.join(" ")} could not run in ${cwd}: ${result.error.message}`);
  const output = `${result.stdout}\n${result.stderr}`;
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(" ")} (in ${cwd}) exited ${result.status}:\n${output}\n${registry ? `verdaccio:\n${registry.log()}` : ""}`,
  );
  return output;
}

/**
 * This process's environment without what npm and node --test put into it: npm_* (an `npm run` exports its whole
 * config as npm_config_*), NODE_TEST_CONTEXT (a nested `node --test` would run nothing) and this checkout's
 * node_modules/.bin on PATH.
 */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== "NODE_TEST_CONTEXT"),
  );
  env["PATH"] = (env["PATH"] ?? "")
    .split(path.delimiter)
    .filter((dir) => !path.resolve(dir).startsWith(repoRoot + path.sep))
    .join(path.delimiter);
  return env;
}

before(async () => {
  for (const built of ["dist/generator/cli.js", "runtime/dist/index.js", "explore/dist/index.js"])
    assert.ok(existsSync(path.join(repoRoot, built)), `${built} is missing: run npm run build first`);
  work = mkdtempSync(path.join(os.tmpdir(), "crdgen-downstream-"));

  // The registry a user of this machine installs from (npmrc or environment), read now: never written into the repo.
  const config = spawnSync("npm", ["config", "get", "registry"], { cwd: repoRoot, encoding: "utf8" });
  const uplink = config.stdout.trim();
  assert.match(uplink, /^https?:\/\/\S+$/, `npm config get registry gave no URL: ${uplink}${config.stderr}`);
  registry = await startLocalRegistry(mkdirIn(work, "registry"), uplink);

  const npmrc = path.join(work, "npmrc");
  const host = registry.url.replace(/^https?:/, "");
  writeFileSync(npmrc, `registry=${registry.url}\n${host}:_authToken=${registry.token}\n`);
  writeFileSync(path.join(work, "npmrc-global"), "");
  userEnv = {
    ...cleanEnv(),
    npm_config_userconfig: npmrc,
    npm_config_globalconfig: path.join(work, "npmrc-global"),
    npm_config_registry: registry.url,
    npm_config_cache: mkdirIn(work, "npm-cache"),
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };

  const packs = mkdirIn(work, "packs");
  for (const { dir } of packages)
    run("npm", ["pack", "--pack-destination", packs, "--silent"], path.join(repoRoot, dir), cleanEnv());
  tarballs = packages.map(({ tarball }) => {
    // crdgen-0.1.0.tgz, not crdgen-runtime-0.1.0.tgz: the prefix, then the version.
    const found = readdirSync(packs).find((f) => f.startsWith(tarball) && /^\d/.test(f.slice(tarball.length)));
    assert.ok(found, `npm pack made no ${tarball}<version>.tgz: ${readdirSync(packs).join(", ")}`);
    return path.join(packs, found);
  });
});

function mkdirIn(parent: string, name: string): string {
  const dir = path.join(parent, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

interface ProjectPackage {
  name: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const readPackage = (project: string) =>
  JSON.parse(readFileSync(path.join(project, "package.json"), "utf8")) as ProjectPackage;

/** What the scaffold's README and init's "Next:" line say after init: CRDs in crds/, then install, generate, test. */
function installGenerateTest(project: string): void {
  copyFileSync(crd, path.join(project, "crds", "widget.yaml"));
  run("npm", ["install"], project);
  run("npm", ["run", "generate"], project);
  for (const file of ["src/widget.hooks.ts", "src/main.ts", "test/widget.hooks.test.ts", "src/generated/crdgen.lock"])
    assert.ok(existsSync(path.join(project, file)), `npm run generate created ${file}`);
  const tested = run("npm", ["test"], project);
  const passed = Number(/^# pass (\d+)$/m.exec(tested)?.[1] ?? 0);
  assert.ok(passed > 0, `npm test ran no passing test:\n${tested}`);
  assert.match(tested, /^# fail 0$/m, tested);
  assert.ok(existsSync(path.join(project, "dist/src/main.js")), "npm test built the operator too");
}

/** Asserts the registry does not have the package: what makes a version range fail with E404 before a release. */
function assertUnpublished(name: string): void {
  const view = spawnSync("npm", ["view", name, "version"], { cwd: work, env: userEnv, encoding: "utf8" });
  assert.notEqual(view.status, 0, `the local registry already has ${name}: ${view.stdout}`);
  assert.match(view.stderr, /E404/, `npm view ${name} failed, but not with E404:\n${view.stderr}`);
}

test("from a checkout: init packs crdgen and the runtime into vendor/, and the project installs before a release", () => {
  assertUnpublished("crdgen");
  assertUnpublished("@crdgen/runtime");
  const project = path.join(mkdirIn(work, "from-checkout"), "my-operator");
  const printed = run("npx", ["crdgen", "init", project], repoRoot);
  assert.match(printed, /crdgen: file:vendor\/crdgen-[\d.]+\.tgz, packed from /);
  assert.match(printed, /Next: .*npm install && npm run generate && npm test/);

  const pkg = readPackage(project);
  assert.equal(pkg.name, "my-operator");
  for (const script of ["generate", "generate:check", "build", "start", "test"])
    assert.ok(pkg.scripts[script], `package.json has a ${script} script`);
  for (const [name, spec] of [
    ["crdgen", pkg.devDependencies["crdgen"]],
    ["@crdgen/runtime", pkg.dependencies["@crdgen/runtime"]],
  ]) {
    assert.match(spec ?? "", /^file:vendor\/.+\.tgz$/, `${name} comes from vendor/`);
    assert.ok(existsSync(path.join(project, spec!.slice("file:".length))), `${spec} exists`);
  }
  const tsconfig = JSON.parse(readFileSync(path.join(project, "tsconfig.json"), "utf8")) as {
    compilerOptions: { strict?: boolean; module?: string };
  };
  assert.deepEqual([tsconfig.compilerOptions.strict, tsconfig.compilerOptions.module], [true, "NodeNext"]);

  installGenerateTest(project);
  run("npm", ["run", "generate:check"], project);
  // init never writes into a folder that has something in it.
  const again = spawnSync("npx", ["crdgen", "init", project], { cwd: repoRoot, env: userEnv, encoding: "utf8" });
  assert.equal(again.status, 1);
  assert.match(again.stderr, /is not empty/);
});

test("from tarballs: npx with both tarballs runs init, whose project installs before a release", () => {
  assertUnpublished("crdgen");
  const folder = mkdirIn(work, "from-tarballs");
  const [crdgenTarball, runtimeTarball] = tarballs.map((tarball) => {
    copyFileSync(tarball, path.join(folder, path.basename(tarball)));
    return `./${path.basename(tarball)}`;
  });
  run("npx", ["--package", runtimeTarball!, "--package", crdgenTarball!, "crdgen", "init", "my-operator"], folder);
  const project = path.join(folder, "my-operator");
  const pkg = readPackage(project);
  assert.match(pkg.devDependencies["crdgen"] ?? "", /^file:vendor\//);
  assert.match(pkg.dependencies["@crdgen/runtime"] ?? "", /^file:vendor\//);
  installGenerateTest(project);
});

test("after a release: README's npx crdgen init my-operator, then npm install && npm run generate && npm test", () => {
  for (const tarball of tarballs) run("npm", ["publish", tarball], work);
  for (const name of ["crdgen", "@crdgen/runtime", "@crdgen/explore"])
    assert.match(run("npm", ["view", name, "version"], work), /^\d+\.\d+\.\d+/m, `${name} is published`);

  const folder = mkdirIn(work, "after-release");
  run("npx", ["crdgen", "init", "my-operator"], folder);
  const project = path.join(folder, "my-operator");
  const pkg = readPackage(project);
  assert.match(pkg.devDependencies["crdgen"] ?? "", /^\^\d/, "crdgen from the registry");
  assert.match(pkg.dependencies["@crdgen/runtime"] ?? "", /^\^\d/, "@crdgen/runtime from the registry");
  assert.ok(!existsSync(path.join(project, "vendor")), "nothing packed into vendor/");
  installGenerateTest(project);
});
