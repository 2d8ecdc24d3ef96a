// spec.restoreFrom in the StatefulSet (samples/mysql/src/mysql-children.ts): the init step and its volumes, and the
// restore script itself, run with sh against folders standing in for the data dir, the dump claim and initdb.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { V1PodSpec } from "@kubernetes/client-node";
import type { MySQLCluster } from "../../../samples/mysql/generated/example.com/v1/mysqlcluster.types.js";
import { restorePaths, restoreScript, statefulSet } from "../../../samples/mysql/src/mysql-children.js";

function cluster(spec: Partial<NonNullable<MySQLCluster["spec"]>> = {}): MySQLCluster {
  return {
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: { name: "db2", namespace: "ns", uid: "u-1" },
    spec: { version: "10.11.14", replicas: 3, imageRepository: "localhost/crdgen/mariadb", ...spec },
  };
}

/** The StatefulSet's pod spec (the apply configuration's fields are all optional; these tests read set ones). */
function podSpec(obj: MySQLCluster): V1PodSpec {
  return statefulSet(obj, "10.11.14").spec?.template?.spec as V1PodSpec;
}

test("without restoreFrom the pod template has no init step, no initdb mount and no dump volume", () => {
  const pod = podSpec(cluster());
  assert.equal(pod.initContainers, undefined);
  assert.deepEqual(
    pod.volumes?.map((v) => v.name),
    ["config"],
  );
  assert.deepEqual(
    pod.containers[0]!.volumeMounts?.map((m) => m.mountPath),
    ["/var/lib/mysql", "/etc/mysql/conf.d"],
  );
});

test("restoreFrom adds the restore init step on the server's image, the claim read-only and initdb shared with the server", () => {
  const obj = cluster({ restoreFrom: { claimName: "db-backup", file: "db-20261204T150000Z.sql.gz" } });
  const pod = podSpec(obj);
  const [init] = pod.initContainers ?? [];
  assert.equal(pod.initContainers?.length, 1);
  assert.equal(init!.name, "restore");
  assert.equal(init!.image, "localhost/crdgen/mariadb:10.11.14", "the image of the server it restores for");
  assert.deepEqual(init!.command, [
    "sh",
    "-c",
    restoreScript,
    "restore",
    "/var/lib/mysql",
    restorePaths.dumps,
    restorePaths.initdb,
  ]);
  assert.deepEqual(init!.env, [
    { name: "RESTORE_CLAIM", value: "db-backup" },
    { name: "RESTORE_FILE", value: "db-20261204T150000Z.sql.gz" },
  ]);
  assert.deepEqual(init!.volumeMounts, [
    { name: "data", mountPath: "/var/lib/mysql", readOnly: true },
    { name: "restore", mountPath: "/restore", readOnly: true },
    { name: "initdb", mountPath: "/docker-entrypoint-initdb.d" },
  ]);
  assert.deepEqual(pod.containers[0]!.volumeMounts?.at(-1), {
    name: "initdb",
    mountPath: "/docker-entrypoint-initdb.d",
  });
  assert.deepEqual(pod.volumes?.slice(1), [
    { name: "initdb", emptyDir: {} },
    { name: "restore", persistentVolumeClaim: { claimName: "db-backup", readOnly: true } },
  ]);
  const newest = podSpec(cluster({ restoreFrom: { claimName: "db-backup" } }));
  assert.equal(newest.initContainers?.[0]?.env?.[1]?.value, "", "no file: the newest dump");
});

/** Runs the restore script as the init step would, in folders under one temporary root. */
function runRestore(env: { RESTORE_FILE: string }, setup: (dirs: Record<"data" | "dumps" | "initdb", string>) => void) {
  const root = mkdtempSync(path.join(tmpdir(), "crdgen-restore-"));
  const dirs = { data: path.join(root, "data"), dumps: path.join(root, "dumps"), initdb: path.join(root, "initdb") };
  for (const dir of Object.values(dirs)) mkdirSync(dir);
  setup(dirs);
  return new Promise<{ code: number; stdout: string; stderr: string; staged: string[]; root: string }>((resolve) => {
    execFile(
      "sh",
      ["-c", restoreScript, "restore", dirs.data, dirs.dumps, dirs.initdb],
      { cwd: root, env: { PATH: process.env["PATH"], RESTORE_CLAIM: "db-backup", ...env } },
      (error, stdout, stderr) => {
        const staged = readdirSync(dirs.initdb).sort();
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr, staged, root });
      },
    );
  });
}

test("restore script: the named dump is staged in initdb for the first start", async (t) => {
  const run = await runRestore({ RESTORE_FILE: "db-1.sql" }, ({ dumps }) => {
    writeFileSync(path.join(dumps, "db-1.sql"), "CREATE DATABASE shop;");
    writeFileSync(path.join(dumps, "db-2.sql.gz"), "newer");
  });
  t.after(() => rmSync(run.root, { recursive: true, force: true }));
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(run.staged, ["db-1.sql"]);
  assert.match(run.stdout, /db-1\.sql from PersistentVolumeClaim db-backup staged/);
});

test("restore script: without a file name the newest *.sql.gz by name is staged", async (t) => {
  const run = await runRestore({ RESTORE_FILE: "" }, ({ dumps }) => {
    for (const name of ["db-20261204T030000Z.sql.gz", "db-20261205T030000Z.sql.gz", "db-20261203T030000Z.sql.gz"])
      writeFileSync(path.join(dumps, name), name);
    writeFileSync(path.join(dumps, "notes.txt"), "not a dump");
  });
  t.after(() => rmSync(run.root, { recursive: true, force: true }));
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(run.staged, ["db-20261205T030000Z.sql.gz"]);
});

test("restore script: an initialised data dir is kept and nothing is staged (restarts never load the dump again)", async (t) => {
  const run = await runRestore({ RESTORE_FILE: "" }, ({ data, dumps }) => {
    mkdirSync(path.join(data, "mysql"));
    writeFileSync(path.join(dumps, "db-1.sql.gz"), "dump");
  });
  t.after(() => rmSync(run.root, { recursive: true, force: true }));
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(run.staged, []);
  assert.match(run.stdout, /initialised already/);
});

test("restore script: a missing dump fails the init step with the claim and file named", async (t) => {
  const named = await runRestore({ RESTORE_FILE: "gone.sql.gz" }, () => undefined);
  t.after(() => rmSync(named.root, { recursive: true, force: true }));
  assert.equal(named.code, 1);
  assert.match(named.stderr, /no dump gone\.sql\.gz in PersistentVolumeClaim db-backup/);
  const empty = await runRestore({ RESTORE_FILE: "" }, () => undefined);
  t.after(() => rmSync(empty.root, { recursive: true, force: true }));
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /no dump \*\.sql\.gz in PersistentVolumeClaim db-backup/);
});

test("restore script: the file name is data, never shell text", async (t) => {
  const run = await runRestore({ RESTORE_FILE: "$(touch pwned).sql" }, () => undefined);
  t.after(() => rmSync(run.root, { recursive: true, force: true }));
  assert.equal(run.code, 1);
  assert.equal(existsSync(path.join(run.root, "pwned")), false, "the name was not evaluated");
});
