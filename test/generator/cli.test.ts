// The crdgen command as users run it: `node bin/crdgen.js ...` in a child process, checked by its files, exit code and
// messages.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { LockFile } from "../../generator/write/lock-file.js";

/** The repo root: this file runs as dist/test/generator/cli.test.js. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const crdgenBin = path.join(repoRoot, "bin", "crdgen.js");
const sampleCrd = "samples/mysql/crd.yaml";
const inputs = "test/fixtures/inputs";
const bad = "test/fixtures/bad";

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-cli-"));
  temps.push(dir);
  return dir;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/crdgen.js ...args` (from the repo root unless cwd says otherwise). */
/** Runs bin/crdgen.js; `env` is laid over this process's environment (undefined removes a variable). */
function crdgen(
  args: string[],
  options: { input?: string; cwd?: string; env?: Record<string, string | undefined> } = {},
): Run {
  const env = Object.fromEntries(Object.entries({ ...process.env, ...options.env }).filter(([, v]) => v !== undefined));
  const result = spawnSync(process.execPath, [crdgenBin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env,
    input: options.input ?? "",
    encoding: "utf8",
    timeout: 120_000,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function describe(run: Run): string {
  return `exit ${run.status}\n--- stdout\n${run.stdout}--- stderr\n${run.stderr}`;
}

function assertOk(run: Run): void {
  assert.equal(run.status, 0, describe(run));
}

/** Every entry under dir (folders as "dir/", files with their sha256), sorted; undefined when dir does not exist. */
function tree(dir: string): Record<string, string> | undefined {
  if (!existsSync(dir)) return undefined;
  const entries: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name);
      const rel = path.relative(dir, full).split(path.sep).join("/");
      if (statSync(full).isDirectory()) {
        entries[`${rel}/`] = "dir";
        walk(full);
      } else {
        entries[rel] = createHash("sha256").update(readFileSync(full)).digest("hex");
      }
    }
  };
  walk(dir);
  return entries;
}

function files(dir: string): string[] {
  return Object.keys(tree(dir) ?? {}).filter((f) => !f.endsWith("/"));
}

/** Copies the committed sample (generated/ and src/) into a temp folder and brings the copy up to date. */
function freshSampleCopy(): { root: string; out: string; hooks: string; args: string[] } {
  const root = tempDir();
  const out = path.join(root, "generated");
  const hooks = path.join(root, "src");
  cpSync(path.join(repoRoot, "samples/mysql/generated"), out, { recursive: true });
  cpSync(path.join(repoRoot, "samples/mysql/src"), hooks, { recursive: true });
  // As npm run generate runs it.
  const args = ["generate", sampleCrd, "--out", out, "--hooks", hooks, "--webhooks"];
  // Whether the committed copy is current is the previous test's business; here only the one change made below may
  // differ.
  assertOk(crdgen(args));
  assertOk(crdgen([...args, "--check"]));
  return { root, out, hooks, args };
}

test("generate run twice gives byte-identical output", () => {
  const root = tempDir();
  const args = [
    "generate",
    sampleCrd,
    `${inputs}/multi.yaml`,
    `${inputs}/folder`,
    "--out",
    path.join(root, "generated"),
    "--hooks",
    path.join(root, "src"),
  ];
  assertOk(crdgen(args));
  const first = tree(root);
  assert.ok(first && Object.keys(first).length > 20, "the first run wrote the output tree");
  rmSync(root, { recursive: true });
  assertOk(crdgen(args));
  assert.deepEqual(tree(root), first, "a second run from scratch writes the same bytes");
  const again = crdgen(args);
  assertOk(again);
  assert.deepEqual(tree(root), first, "a run over its own output changes nothing");
  assert.match(again.stdout, / 0 file\(s\) written/);
});

test("--check passes on the committed samples/mysql/generated", () => {
  const before = tree(path.join(repoRoot, "samples/mysql"));
  const run = crdgen([
    "generate",
    sampleCrd,
    "--out",
    "samples/mysql/generated",
    "--hooks",
    "samples/mysql/src",
    "--webhooks",
    "--check",
  ]);
  assert.equal(run.status, 0, `samples/mysql/generated is stale; run npm run generate\n${describe(run)}`);
  assert.match(run.stdout, /up to date/);
  assert.deepEqual(tree(path.join(repoRoot, "samples/mysql")), before, "--check wrote nothing");
});

test("--check fails on a modified generated file, names it and writes nothing", () => {
  const { root, args } = freshSampleCopy();
  const modified = path.join(root, "generated/example.com/v1/mysqlcluster.client.ts");
  appendFileSync(modified, "// a hand edit\n");
  const before = tree(root);
  const run = crdgen([...args, "--check"]);
  assert.equal(run.status, 1, describe(run));
  assert.ok(run.stderr.includes(modified), `stderr names ${modified}\n${describe(run)}`);
  assert.match(run.stderr, /\b1 file\(s\) would change/, "only the modified file is stale");
  assert.deepEqual(tree(root), before, "--check wrote nothing");
});

test("--check fails on a deleted generated file, names it and writes nothing", () => {
  const { root, args } = freshSampleCopy();
  const deleted = path.join(root, "generated/example.com/v1/mysqlcluster.lister.ts");
  unlinkSync(deleted);
  const before = tree(root);
  const run = crdgen([...args, "--check"]);
  assert.equal(run.status, 1, describe(run));
  assert.ok(run.stderr.includes(deleted), `stderr names ${deleted}\n${describe(run)}`);
  assert.match(run.stderr, /\b1 file\(s\) would change/, "only the deleted file is stale");
  assert.deepEqual(tree(root), before, "--check wrote nothing");
});

test("files generated for a CRD no longer in the inputs are removed, and --check lists them", () => {
  const root = tempDir();
  const out = path.join(root, "generated");
  assertOk(crdgen(["generate", `${inputs}/multi.yaml`, `${inputs}/folder`, "--out", out]));
  const userFile = path.join(out, "folder.example.com", "notes.ts");
  writeFileSync(userFile, "// not generated: crdgen leaves it alone\nexport {};\n");
  const orphan = path.join(out, "folder.example.com", "v1", "alpha.types.ts");
  const only = ["generate", `${inputs}/multi.yaml`, "--out", out];

  const before = tree(root);
  const check = crdgen([...only, "--check"]);
  assert.equal(check.status, 1, describe(check));
  assert.ok(check.stderr.includes(`${orphan} (no longer generated`), describe(check));
  assert.deepEqual(tree(root), before, "--check wrote nothing");

  const run = crdgen(only);
  assertOk(run);
  assert.deepEqual(
    files(path.join(out, "folder.example.com")),
    ["notes.ts"],
    "generated files of the dropped CRDs are gone, the user's file stays",
  );
  assert.ok(!existsSync(path.join(out, "folder.example.com", "v1")), "the emptied folder is gone");
  assert.ok(run.stderr.includes(`removed: ${orphan}`), describe(run));
  assertOk(crdgen([...only, "--check"]));
});

test("an edited reconcile hook is kept byte-identical and no .new file appears", () => {
  const root = tempDir();
  const hooks = path.join(root, "src");
  const args = ["generate", sampleCrd, "--out", path.join(root, "generated"), "--hooks", hooks];
  assertOk(crdgen(args));
  const hooksFile = path.join(hooks, "mysqlcluster.hooks.ts");
  const original = readFileSync(hooksFile, "utf8");
  const edited = original.replace(
    /(export async function reconcile\([^)]*\)[^{]*\{\n)/,
    `$1  ctx.log.info("my own line", { name: obj.metadata.name });\n`,
  );
  assert.notEqual(edited, original, "the template's reconcile was found and edited");
  writeFileSync(hooksFile, edited);

  const run = crdgen(args);
  assertOk(run);
  assert.equal(readFileSync(hooksFile, "utf8"), edited);
  assert.ok(!existsSync(`${hooksFile}.new`), "no .new file");
  assert.doesNotMatch(run.stderr, /hooks changed/);
});

test("a reconcile hook with changed parameter types is kept byte-identical and a .new file is written beside it", () => {
  const root = tempDir();
  const hooks = path.join(root, "src");
  const args = ["generate", sampleCrd, "--out", path.join(root, "generated"), "--hooks", hooks];
  assertOk(crdgen(args));
  const hooksFile = path.join(hooks, "mysqlcluster.hooks.ts");
  const template = readFileSync(hooksFile, "utf8");
  const edited = template.replace(
    "reconcile(ctx: MySQLClusterContext, obj: MySQLCluster)",
    "reconcile(ctx: unknown, obj: MySQLCluster)",
  );
  assert.notEqual(edited, template, "the template's reconcile signature was found and edited");
  writeFileSync(hooksFile, edited);

  const run = crdgen(args);
  assertOk(run);
  assert.equal(readFileSync(hooksFile, "utf8"), edited, "the user's file is untouched");
  assert.equal(readFileSync(`${hooksFile}.new`, "utf8"), template, "the .new file holds the current template");
  assert.ok(run.stderr.includes(`${hooksFile}.new`), `stderr names the .new file\n${describe(run)}`);
  assert.match(
    run.stderr,
    /reconcile\(unknown, MySQLCluster\) should be reconcile\(MySQLClusterContext, MySQLCluster\)/,
  );
});

test("when the storage version moves, a hooks file of an earlier crdgen importing the old version's modules is kept and a .new file names the new imports", () => {
  const root = tempDir();
  const hooks = path.join(root, "src");
  const crd = path.join(root, "crd.yaml");
  const original = readFileSync("test/fixtures/schema/multi-version/crd.yaml", "utf8");
  // First v1alpha1 is the storage version (the controller's), then v1 is, as when a project promotes its API.
  const alphaStored = original
    .replace(/(name: v1alpha1\n\s+served: true\n\s+storage:) false/, "$1 true")
    .replace(/(name: v1\n\s+served: true\n\s+storage:) true/, "$1 false");
  assert.notEqual(alphaStored, original, "the fixture's storage flags were found");
  writeFileSync(crd, alphaStored);
  const args = ["generate", crd, "--out", path.join(root, "generated"), "--hooks", hooks];
  assertOk(crdgen(args));
  const hooksFile = path.join(hooks, "backup.hooks.ts");
  // crdgen's hooks import the version-free kind module; an earlier crdgen's imported the version's modules.
  const before = readFileSync(hooksFile, "utf8").replace(
    /import type \{ Backup, BackupContext \} from "([^"]*)\/backup\.js";/,
    'import type { Backup } from "$1/v1alpha1/backup.types.js";\n' +
      'import type { BackupContext } from "$1/v1alpha1/backup.controller.js";',
  );
  assert.match(before, /v1alpha1\/backup\.controller\.js/);
  writeFileSync(hooksFile, before);

  writeFileSync(crd, original);
  const run = crdgen(args);
  assertOk(run);
  assert.equal(readFileSync(hooksFile, "utf8"), before, "the user's file is untouched");
  assert.match(
    readFileSync(`${hooksFile}.new`, "utf8"),
    /import type \{ Backup, BackupContext \} from "[^"]*\/multi-version\.fixtures\.crdgen\.dev\/backup\.js"/,
    "the .new file imports the kind's version-free module",
  );
  assert.match(
    run.stderr,
    /import \{ BackupContext \} from "[^"]*v1alpha1\/backup\.controller\.js" should be import \{ BackupContext \} from "[^"]*\/multi-version\.fixtures\.crdgen\.dev\/backup\.js"/,
    describe(run),
  );
});

test("a reconcile hook typed through the controller's Hooks interface is accepted without a .new file", () => {
  const root = tempDir();
  const hooks = path.join(root, "src");
  const args = ["generate", sampleCrd, "--out", path.join(root, "generated"), "--hooks", hooks];
  assertOk(crdgen(args));
  const hooksFile = path.join(hooks, "mysqlcluster.hooks.ts");
  const mine = [
    `import type { MySQLClusterHooks } from "../../generated/example.com/v1/mysqlcluster.controller.js";`,
    `export const reconcile: MySQLClusterHooks["reconcile"] = async (ctx, obj) => {`,
    `  ctx.log.info("reconciling", { name: obj.metadata.name });`,
    `};`,
    ``,
  ].join("\n");
  writeFileSync(hooksFile, mine);
  const run = crdgen(args);
  assertOk(run);
  assert.equal(readFileSync(hooksFile, "utf8"), mine);
  assert.ok(!existsSync(`${hooksFile}.new`), `no .new file\n${describe(run)}`);
});

test("main.ts is created once and never overwritten", () => {
  const root = tempDir();
  const hooks = path.join(root, "src");
  const out = path.join(root, "generated");
  assertOk(crdgen(["generate", sampleCrd, "--out", out, "--hooks", hooks]));
  const main = path.join(hooks, "main.ts");
  assert.match(
    readFileSync(main, "utf8"),
    /\? newControllers\(kube, \{ sharding \}\)[\s\S]*await runManager\(controllers, /,
    "the first run created main.ts",
  );

  const mine = readFileSync(main, "utf8").replace("const kube =", "// my own wiring\nconst kube =");
  writeFileSync(main, mine);
  // A new CRD would change the template's main.ts: it still must not be touched (its hooks file is created, though).
  const run = crdgen(["generate", sampleCrd, `${inputs}/multi.yaml`, "--out", out, "--hooks", hooks]);
  assertOk(run);
  assert.equal(readFileSync(main, "utf8"), mine);
  assert.ok(!existsSync(`${main}.new`));
  assert.ok(existsSync(path.join(hooks, "widget.hooks.ts")), "the new kind's hooks file was created");
  assert.match(
    readFileSync(path.join(out, "controllers.ts"), "utf8"),
    /widgetController\.newWidgetController\(kube, widgetHooks, shared\)/,
    "the generated registry runs the new kind",
  );
  unlinkSync(main);
  assertOk(crdgen(["generate", sampleCrd, "--out", out, "--hooks", hooks]));
  assert.ok(existsSync(main), "a deleted main.ts is created again");
});

test("a folder input reads every *.yaml and *.yml in it and nothing else", () => {
  const out = path.join(tempDir(), "generated");
  const run = crdgen(["generate", `${inputs}/folder`, "--out", out]);
  assertOk(run);
  const written = files(out);
  assert.ok(written.includes("folder.example.com/v1/alpha.types.ts"), "alpha.yaml was read");
  assert.ok(written.includes("folder.example.com/v1/beta.types.ts"), "beta.yml was read");
  assert.deepEqual(
    written.filter((f) => f.includes("gamma")),
    [],
    "gamma.json was ignored",
  );
  assert.match(run.stdout, /2 CRD\(s\)/);
});

test("- reads the CRDs from stdin", () => {
  const out = path.join(tempDir(), "generated");
  const run = crdgen(["generate", "-", "--out", out], {
    input: readFileSync(path.join(repoRoot, inputs, "stdin.yaml"), "utf8"),
  });
  assertOk(run);
  const types = readFileSync(path.join(out, "stdin.example.com/v1/piped.types.ts"), "utf8");
  assert.match(types.split("\n")[0]!, /^\/\/ Code generated by crdgen \S+ from stdin\. DO NOT EDIT\.$/);
});

test("several inputs at once are generated together", () => {
  const out = path.join(tempDir(), "generated");
  const run = crdgen(["generate", `${inputs}/multi.yaml`, "-", `${inputs}/folder`, sampleCrd, "--out", out], {
    input: readFileSync(path.join(repoRoot, inputs, "stdin.yaml"), "utf8"),
  });
  assertOk(run);
  const written = files(out);
  for (const f of [
    "one.example.com/v1/widget.types.ts",
    "two.example.com/v1/gadget.types.ts",
    "stdin.example.com/v1/piped.types.ts",
    "folder.example.com/v1/alpha.types.ts",
    "folder.example.com/v1/beta.types.ts",
    "example.com/v1/mysqlcluster.types.ts",
  ]) {
    assert.ok(written.includes(f), `${f} was generated`);
  }
  const index = readFileSync(path.join(out, "index.ts"), "utf8");
  for (const id of ["oneExampleComV1", "twoExampleComV1", "stdinExampleComV1", "folderExampleComV1", "exampleComV1"])
    assert.match(index, new RegExp(`export \\* as ${id} from`));
  assert.match(run.stdout, /6 CRD\(s\)/);
});

test("a multi-document file with several CRDs generates each of them", () => {
  const out = path.join(tempDir(), "generated");
  const run = crdgen(["generate", `${inputs}/multi.yaml`, "--out", out]);
  assertOk(run);
  assert.match(readFileSync(path.join(out, "one.example.com/v1/widget.types.ts"), "utf8"), /kind: "Widget"/);
  assert.match(
    readFileSync(path.join(out, "two.example.com/v1/gadget.types.ts"), "utf8"),
    /kind: "Gadget"[\s\S]*scope: "Cluster"/,
  );
  assert.match(run.stdout, /2 CRD\(s\)/);
});

test("a schema node crdgen does not understand is a warning naming file and pointer; --strict makes it exit 1", () => {
  const out = path.join(tempDir(), "out");
  const crd = "test/fixtures/schema/untyped-node/crd.yaml";
  const lenient = crdgen(["generate", crd, "--out", out]);
  assertOk(lenient);
  assert.match(
    lenient.stderr,
    /^warning: test\/fixtures\/schema\/untyped-node\/crd\.yaml:24:17 \(document 1\) at \/spec\/versions\/0\/schema\/openAPIV3Schema\/properties\/spec\/properties\/mystery: .*typed as unknown$/m,
  );
  const strictOut = path.join(tempDir(), "strict");
  const strict = crdgen(["generate", crd, "--out", strictOut, "--strict"]);
  assert.equal(strict.status, 1, describe(strict));
  assert.match(strict.stderr, /^warning: .*mystery: .*typed as unknown$/m, "the warnings are printed");
  assert.match(strict.stderr, /^crdgen: --strict: 2 warning\(s\); nothing written$/m);
  assert.equal(existsSync(strictOut), false, "a failing --strict writes nothing");
  assertOk(crdgen(["generate", sampleCrd, "--out", path.join(tempDir(), "clean"), "--strict"]));
});

/** A CRD whose spec nests `levels` objects deep, written as one line of JSON (YAML's flow style). */
function deepCrd(levels: number): string {
  const spec = `${'{"type":"object","properties":{"n":'.repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`;
  return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"deeps.deep.example.com"},"spec":{"group":"deep.example.com","names":{"kind":"Deep","plural":"deeps"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":${spec}}}}}]}}\n`;
}

test("a 3,000-level deep schema is a clear error naming the file, never a stack overflow, and writes nothing", () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, "deep.yaml"), deepCrd(3000));
  const out = path.join(dir, "out");
  const run = crdgen(["generate", path.join(dir, "deep.yaml"), "--out", out]);
  assert.equal(run.status, 1, describe(run));
  assert.match(run.stderr, /^crdgen: .*deep\.yaml \(document 1\): the YAML nests too deep to read/m);
  assert.doesNotMatch(
    run.stderr,
    /RangeError|Maximum call stack|\n\s+at /,
    "no stack overflow or stack trace reaches the user",
  );
  assert.equal(existsSync(out), false);
});

test("a schema deeper than crdgen reads (300 levels) is an error naming the schema path; 200 levels generate", () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, "deep.yaml"), deepCrd(300));
  const run = crdgen(["generate", path.join(dir, "deep.yaml"), "--out", path.join(dir, "out")]);
  assert.equal(run.status, 1, describe(run));
  assert.match(
    run.stderr,
    /deep\.yaml:1:\d+ \(document 1\) at \/spec\/versions\/0\/schema\/openAPIV3Schema\/properties\/spec(\/properties\/n)+: the schema nests more than 256 levels deep here/,
  );
  assert.doesNotMatch(run.stderr, /RangeError|\n\s+at /);
  writeFileSync(path.join(dir, "ok.yaml"), deepCrd(200));
  assertOk(crdgen(["generate", path.join(dir, "ok.yaml"), "--out", path.join(dir, "ok")]));
  assert.match(
    readFileSync(path.join(dir, "ok", "deep.example.com", "v1", "deep.types.ts"), "utf8"),
    /^ {2}n\?: string;$/m,
  );
});

test("--format runs one formatter pass: the output parses, a second run is up to date, and the lock records it", () => {
  const out = path.join(tempDir(), "out");
  const args = ["generate", sampleCrd, "--out", out, "--format"];
  assertOk(crdgen(args));
  assertOk(crdgen([...args, "--check"]));
  const lock = JSON.parse(readFileSync(path.join(out, "crdgen.lock"), "utf8")) as LockFile;
  assert.equal(lock.options.format, true);
  const plain = path.join(tempDir(), "plain");
  assertOk(crdgen(["generate", sampleCrd, "--out", plain]));
  // Without --format the same run is a change (the lock says format false), and --check says so.
  const check = crdgen(["generate", sampleCrd, "--out", out, "--check"]);
  assert.equal(check.status, 1, describe(check));
  assert.match(check.stderr, /crdgen\.lock/);
  for (const file of files(out).filter((f) => f.endsWith(".ts"))) {
    assert.match(
      readFileSync(path.join(out, file), "utf8"),
      /^\/\/ Code generated by crdgen /,
      `${file} keeps its header first`,
    );
  }
});

test("no progress bar when stderr is not a terminal, even for the whole corpus folder of a project", () => {
  const out = path.join(tempDir(), "out");
  const run = crdgen(["generate", `${inputs}/folder`, "--out", out]);
  assertOk(run);
  assert.doesNotMatch(run.stderr, /\r|\[#*-*\]/);
});

test("--help works on the program and on generate", () => {
  const program = crdgen(["--help"]);
  assertOk(program);
  assert.match(program.stdout, /Usage: crdgen/);
  assert.match(program.stdout, /generate \[options\] \[inputs\.\.\.\]/);
  for (const args of [
    ["generate", "--help"],
    ["help", "generate"],
  ]) {
    const run = crdgen(args);
    assertOk(run);
    assert.match(run.stdout, /Usage: crdgen generate/);
    for (const option of ["--out", "--hooks", "--check", "--templates", "--versions", "--validation", "--from-cluster"])
      assert.ok(run.stdout.includes(option), `${args.join(" ")} documents ${option}`);
  }
});

test("--from-cluster without a kubeconfig says what is missing in one line, exits 1 and writes nothing", () => {
  const home = tempDir(); // an empty home: no ~/.kube/config
  const out = path.join(home, "out");
  const args = ["generate", "--from-cluster", "widgets.example.com", "--out", out];
  const noPod = { KUBERNETES_SERVICE_HOST: undefined };
  const missing = path.join(home, "no-such-kubeconfig");
  const named = crdgen(args, { env: { ...noPod, HOME: home, KUBECONFIG: missing } });
  assert.equal(named.status, 1, describe(named));
  assert.equal(named.stderr, `crdgen: kubeconfig ${missing}: no such file\n`);
  const none = crdgen(args, { env: { ...noPod, HOME: home, KUBECONFIG: undefined } });
  assert.equal(none.status, 1, describe(none));
  assert.equal(
    none.stderr,
    "crdgen: no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account\n",
  );
  assert.equal(existsSync(out), false);
});

test("--kube-context, the operator's spelling, and kubectl's --context are one setting", () => {
  const dir = tempDir();
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
      users: [{ name: "u", user: {} }],
      contexts: [{ name: "here", context: { cluster: "c", user: "u" } }],
      "current-context": "here",
    }),
  );
  const args = ["generate", "--from-cluster", "widgets.example.com", "--out", path.join(dir, "out")];
  for (const flag of ["--kube-context", "--context"]) {
    const run = crdgen([...args, flag, "elsewhere"], { env: { KUBECONFIG: kubeconfig } });
    assert.equal(run.status, 1, describe(run));
    assert.equal(run.stderr, 'crdgen: kubeconfig: no context named "elsewhere"\n', flag);
  }
  const both = crdgen([...args, "--kube-context", "here", "--context", "elsewhere"], {
    env: { KUBECONFIG: kubeconfig },
  });
  assert.equal(both.stderr, "crdgen: --kube-context and --context name the same setting: give one\n");
  assert.match(crdgen(["generate", "--help"]).stdout, /--kube-context <name>/);
});

test("every error exits non-zero with a message", () => {
  const out = path.join(tempDir(), "generated");
  const cases: Array<{ args: string[]; says: RegExp }> = [
    { args: [], says: /Usage: crdgen/ },
    { args: ["frobnicate"], says: /unknown command/ },
    { args: ["generate", sampleCrd], says: /--out/ },
    { args: ["generate", "--out", out], says: /missing required argument/ },
    { args: ["generate", sampleCrd, "--out", out, "--frobnicate"], says: /unknown option/ },
    { args: ["generate", sampleCrd, "--out", out, "--versions", "newest"], says: /--versions/ },
    { args: ["generate", "no/such/crd.yaml", "--out", out], says: /no\/such\/crd\.yaml: no such file or folder/ },
    {
      args: ["generate", "test/fixtures", "--out", out],
      says: /test\/fixtures: the folder holds no \*\.yaml or \*\.yml file/,
    },
  ];
  for (const { args, says } of cases) {
    const run = crdgen(args);
    assert.notEqual(run.status, 0, `crdgen ${args.join(" ")}\n${describe(run)}`);
    assert.match(run.stderr, says, `crdgen ${args.join(" ")}\n${describe(run)}`);
  }
  assert.ok(!existsSync(out), "no failed run wrote anything");
});

test("works from a downstream repo's npm script", () => {
  const project = tempDir();
  mkdirSync(path.join(project, "crds"));
  cpSync(path.join(repoRoot, inputs, "folder/alpha.yaml"), path.join(project, "crds/alpha.yaml"));
  writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify(
      {
        name: "downstream-operator",
        version: "1.0.0",
        private: true,
        type: "module",
        scripts: { generate: "crdgen generate crds/ --out src/generated" },
      },
      null,
      2,
    ),
  );
  // What `npm install crdgen` leaves behind: the bin linked into node_modules/.bin (npm run puts that folder on PATH).
  mkdirSync(path.join(project, "node_modules/.bin"), { recursive: true });
  symlinkSync(crdgenBin, path.join(project, "node_modules/.bin/crdgen"));
  const npm = spawnSync("npm", ["run", "generate"], {
    cwd: project,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
  });
  if (npm.error) throw npm.error;
  assert.equal(npm.status, 0, `npm run generate\n${npm.stdout}\n${npm.stderr}`);
  const written = files(path.join(project, "src/generated"));
  assert.ok(
    written.includes("folder.example.com/v1/alpha.types.ts"),
    `npm run generate wrote the types (wrote: ${written.join(", ")})`,
  );
  assert.ok(written.includes("index.ts"));
  const header = readFileSync(path.join(project, "src/generated/index.ts"), "utf8").split("\n")[0]!;
  assert.ok(header.includes("from crds/alpha.yaml"), `the header names the input as the script gave it: ${header}`);
});

/**
 * Runs crdgen on bad input twice: into a missing output folder (which must stay missing) and over a previous good
 * output (which must stay byte-identical). Returns stderr, which must name the file and have no stack trace.
 */
function assertRejected(inputArgs: string[], file: string, expected: string[]): void {
  const root = tempDir();
  const out = path.join(root, "generated");
  const hooks = path.join(root, "src");
  const run = crdgen(["generate", ...inputArgs, "--out", out, "--hooks", hooks]);
  assert.notEqual(run.status, 0, describe(run));
  assert.ok(run.stderr.includes(file), `stderr names ${file}\n${describe(run)}`);
  for (const e of expected) assert.ok(run.stderr.includes(e), `stderr says ${JSON.stringify(e)}\n${describe(run)}`);
  assert.doesNotMatch(run.stderr, /\n\s+at /, "an input error is a message, not a stack trace");
  assert.deepEqual(tree(root), {}, "nothing was written: neither --out nor --hooks was created");

  assertOk(crdgen(["generate", `${inputs}/stdin.yaml`, "--out", out, "--hooks", hooks]));
  const before = tree(root);
  const again = crdgen(["generate", ...inputArgs, "--out", out, "--hooks", hooks]);
  assert.notEqual(again.status, 0, describe(again));
  assert.deepEqual(tree(root), before, "an existing output is left as it was");
}

test("invalid YAML is rejected naming the file and document, writing nothing", () => {
  assertRejected([`${bad}/invalid-yaml.yaml`], `${bad}/invalid-yaml.yaml:39:1 (document 2): invalid YAML: `, []);
});

test("an empty file is rejected naming the file, writing nothing", () => {
  assertRejected([`${bad}/empty.yaml`], `${bad}/empty.yaml (document 1)`, ["the file is empty"]);
});

test("a file with no CRD is rejected naming the file and what its documents hold, writing nothing", () => {
  assertRejected([`${bad}/no-crd.yaml`], `${bad}/no-crd.yaml`, [
    "no apiextensions.k8s.io/v1 CustomResourceDefinition",
    "(found: Namespace in document 1, ConfigMap in document 2)",
  ]);
});

test("an apiextensions.k8s.io/v1beta1 CRD is rejected naming the file, document and /apiVersion, writing nothing", () => {
  assertRejected([`${bad}/v1beta1.yaml`], `${bad}/v1beta1.yaml:36:1 (document 2) at /apiVersion`, [
    "apiextensions.k8s.io/v1beta1",
  ]);
});

test("a version without a schema is rejected naming the file, document and schema path, writing nothing", () => {
  assertRejected(
    [`${bad}/no-schema.yaml`],
    // At the version that lacks it (line 19, column 7: its first key).
    `${bad}/no-schema.yaml:19:7 (document 1) at /spec/versions/1/schema/openAPIV3Schema`,
    // The API server's words (a served version without a schema would have every field pruned).
    ["spec.versions[1].schema.openAPIV3Schema: Required value: because otherwise all fields are pruned"],
  );
});

test("a missing names.kind is rejected naming the file, document and /spec/names/kind, writing nothing", () => {
  assertRejected([`${bad}/missing-kind.yaml`], `${bad}/missing-kind.yaml:8:3 (document 1) at /spec/names/kind`, [
    "spec.names.kind: Required value",
  ]);
});

test("two CRDs with the same name in one file are rejected naming both documents, writing nothing", () => {
  assertRejected([`${bad}/duplicate-name.yaml`], `${bad}/duplicate-name.yaml:39:3 (document 2) at /metadata/name`, [
    "twins.dup.example.com",
    `${bad}/duplicate-name.yaml, document 1`,
  ]);
});

test("two CRDs with the same name in two files are rejected naming both files, writing nothing", () => {
  const dir = `${bad}/duplicate-across-files`;
  assertRejected([`${dir}/first.yaml`, `${dir}/second.yaml`], `${dir}/second.yaml:5:3 (document 1) at /metadata/name`, [
    "twins.across.example.com",
    `${dir}/first.yaml, document 1`,
  ]);
  assertRejected([dir], `${dir}/second.yaml:5:3 (document 1) at /metadata/name`, [`${dir}/first.yaml, document 1`]);
});

test("a $ref deep in a schema is rejected naming its schema path, writing nothing", () => {
  assertRejected(
    [`${bad}/ref.yaml`],
    `${bad}/ref.yaml:34:31 (document 1) at /spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/template/properties/containers/items/properties/env/items/$ref`,
    ["$ref is not allowed"],
  );
});

test("a CRD file that also holds other kinds generates the CRDs and reports what it skipped", () => {
  const out = path.join(tempDir(), "generated");
  const run = crdgen(["generate", `${inputs}/mixed-kinds.yaml`, "--out", out]);
  assertOk(run);
  assert.ok(existsSync(path.join(out, "stock.example.com/v1/warehouse.types.ts")));
  // Its version's six modules, the output's index, its kind module and crdgen.lock.
  assert.equal(files(out).length, 9, `only the CRD was generated (and crdgen.lock): ${files(out).join(", ")}`);
  assert.ok(run.stderr.includes(`skipped: ${inputs}/mixed-kinds.yaml (document 1): Namespace v1`), describe(run));
  assert.ok(run.stderr.includes(`skipped: ${inputs}/mixed-kinds.yaml (document 3): Deployment apps/v1`), describe(run));
});

test("a write that fails part-way (a file where a folder is needed) leaves no generated or temp file behind", () => {
  const root = tempDir();
  const out = path.join(root, "generated");
  mkdirSync(out);
  // multi.yaml's first CRD goes to one.example.com/, its second to two.example.com/: block the second.
  writeFileSync(path.join(out, "two.example.com"), "in the way\n");
  const before = tree(root);
  const run = crdgen(["generate", `${inputs}/multi.yaml`, "--out", out, "--hooks", path.join(root, "src")]);
  assert.notEqual(run.status, 0, describe(run));
  assert.match(run.stderr, /nothing was written/);
  assert.deepEqual(
    tree(root),
    before,
    "the output folder is exactly as it was: no generated file, no temp file, no new folder",
  );
});

test("a write that fails part-way (a folder where a file goes) leaves the previous output as it was", () => {
  const root = tempDir();
  const out = path.join(root, "generated");
  assertOk(crdgen(["generate", `${inputs}/multi.yaml`, "--out", out]));
  // The same CRDs from stdin change every file's header, so every file is rewritten; one target is now a folder.
  rmSync(path.join(out, "two.example.com/v1/gadget.lister.ts"));
  mkdirSync(path.join(out, "two.example.com/v1/gadget.lister.ts"));
  const before = tree(root);
  const run = crdgen(["generate", "-", "--out", out], {
    input: readFileSync(path.join(repoRoot, inputs, "multi.yaml"), "utf8"),
  });
  assert.notEqual(run.status, 0, describe(run));
  assert.match(run.stderr, /nothing was written/);
  assert.deepEqual(tree(root), before, "the previous output is intact: no new file, no temp file");
});

test("--templates replaces a packaged template with the downstream repo's copy and keeps the others", () => {
  const templates = tempDir();
  const packaged = readFileSync(path.join(repoRoot, "templates", "lister.ts.hbs"), "utf8");
  writeFileSync(
    path.join(templates, "lister.ts.hbs"),
    packaged.replace("{{{header}}}\n", "{{{header}}}\n// our team's lister, with {{kind}} in it\n"),
  );
  const plain = tempDir();
  const custom = tempDir();
  assertOk(crdgen(["generate", sampleCrd, "--out", plain]));
  assertOk(crdgen(["generate", sampleCrd, "--out", custom, "--templates", templates]));
  const lister = "example.com/v1/mysqlcluster.lister.ts";
  // Every version's lister comes from the team's template (the sample serves v1 and v1alpha1).
  const listers = Object.keys(tree(plain)!).filter((f) => f.endsWith("/mysqlcluster.lister.ts"));
  assert.deepEqual(listers, [lister, "example.com/v1alpha1/mysqlcluster.lister.ts"]);
  assert.match(readFileSync(path.join(custom, lister), "utf8"), /^\/\/ our team's lister, with MySQLCluster in it$/m);
  const plainTree = tree(plain)!;
  const customTree = tree(custom)!;
  for (const file of Object.keys(plainTree)) {
    // The lock records the lister's new hash and the --templates folder.
    if (listers.includes(file) || file === "crdgen.lock") assert.notEqual(customTree[file], plainTree[file]);
    else assert.equal(customTree[file], plainTree[file], `${file} still comes from the packaged template`);
  }
});

test("a template override that names an unknown variable fails the run and writes nothing", () => {
  const templates = tempDir();
  writeFileSync(path.join(templates, "client.ts.hbs"), "{{{header}}}\n// {{noSuchVariable}}\n");
  const out = path.join(tempDir(), "out");
  const run = crdgen(["generate", sampleCrd, "--out", out, "--templates", templates]);
  assert.notEqual(run.status, 0, describe(run));
  assert.match(
    run.stderr,
    /client.ts.hbs: template client: "noSuchVariable" not defined \(line 2, column 5\); it can use: header, /,
  );
  assert.equal(existsSync(out), false);
});
