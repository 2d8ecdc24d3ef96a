// The MySQL sample for real (docs/real-node.md): on startControlPlane({ node: "real" }) the operator runs in-cluster
// (2 replicas, leader election, its own webhook certificate), a MySQLCluster of 3 runs real MariaDB servers whose
// readiness probes really ping, the generated root password logs in through the client Service, the cluster scales
// 5 -> 3, rolls 10.11 -> 11.8, recovers a deleted Pod, a backup Job writes a real mysqldump that a new cluster is
// restored from, and deleting the leading operator Pod hands the Lease over. The story itself is
// samples/mysql/tools/real-node-story.ts (the demo's --real-node runs it too); this test asserts what each step saw.
// Needs root, the node's prerequisites (see real-node.test.ts) and `npm run images:build`; run with
// `flock <the machine's real-node lock> npm run test:real-node`.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { cachedImage, runRealNodeStoryOnNewPlane } from "../../samples/mysql/tools/real-node-story.js";
import { ipForward, leftovers } from "./leftovers.js";

test("the MySQL sample on a real node: in-cluster operator, real servers, login, scaling, upgrade, recovery, backup and restore, handover", async (t) => {
  assert.equal(process.getuid?.(), 0, "a real node needs root (containerd, runc, CNI, cgroups): run as root");
  // Fails (never skips) naming the missing image and the command that builds it.
  const older = cachedImage("mariadb").split(":").pop()!;
  const newer = cachedImage("mariadb-trixie").split(":").pop()!;
  assert.match(older, /^10\.11\.\d+$/, "images.sh's mariadb is Debian bookworm's 10.11");
  assert.match(newer, /^11\.8\.\d+$/, "images.sh's mariadb-trixie is Debian trixie's 11.8");
  const ipForwardBefore = ipForward();
  // The CRD comes with the deploy manifests (with the conversion webhook's caBundle), as on a cluster.
  const seen = new Map<string, Record<string, unknown>>();
  const { dir, nodeName } = await runRealNodeStoryOnNewPlane({
    report: (step, facts, seconds) => {
      seen.set(step, facts);
      t.diagnostic(`${seconds.toFixed(0)} s ${step}: ${JSON.stringify(facts)}`);
    },
  });
  const nodeDir = path.join(dir, "node");
  assert.deepEqual(leftovers(nodeDir, nodeName, ipForwardBefore), [], "stop leaves nothing of the story behind");
  const step = (name: string) => {
    const facts = seen.get(name);
    assert.ok(facts, `the story reported "${name}"`);
    return facts;
  };

  const operator = step("operator deployed in-cluster");
  assert.equal(operator["readyReplicas"], 2);
  assert.match(String(operator["leader"]), /^mysql-operator-/, "an operator Pod holds the Lease");

  const first = step("MySQLCluster db Ready");
  assert.equal(first["phase"], "Ready");
  assert.equal(first["readyReplicas"], 3);
  assert.equal(first["currentVersion"], older);
  assert.deepEqual(first["podsReady"], ["db-0", "db-1", "db-2"], "three real servers passed their readiness probe");

  const login = step("root login through Service db");
  assert.equal(login["exitCode"], 0, String(login["output"]));
  assert.match(String(login["output"]), new RegExp(`^${older.replaceAll(".", "\\.")}-MariaDB`, "m"));
  assert.match(String(login["output"]), /^teapot$/m);
  const refused = login["refused"] as { exitCode: number; output: string };
  assert.notEqual(refused.exitCode, 0, "a wrong password is refused");
  assert.match(refused.output, /Access denied/);

  const scaled = step("scaled 3 -> 5 -> 3");
  assert.equal(scaled["readyAtFive"], 5);
  assert.equal(scaled["readyAfter"], 3);

  const backup = step("backup Job wrote a mysqldump");
  assert.equal(backup["succeeded"], 1);
  const files = backup["files"] as string[];
  assert.equal(files.length, 1, `one dump in db-backup: ${files.join(", ")}`);
  assert.match(files[0]!, /^db-\d{8}T\d{6}Z\.sql\.gz [1-9]\d*$/, "a gzip'd mysqldump holding the row");

  const restored = step("db-restored restored from the dump");
  assert.equal(restored["exitCode"], 0, String(restored["output"]));
  assert.equal(restored["output"], "teapot", "the restored cluster has the data, behind its own root password");

  const rolled = step(`rolled ${older} -> ${newer}`);
  assert.equal(rolled["currentVersion"], newer);
  assert.deepEqual(rolled["images"], Array(3).fill(cachedImage("mariadb-trixie")), "every Pod runs the newer image");
  assert.match(String(rolled["output"]), new RegExp(`^${newer.replaceAll(".", "\\.")}-MariaDB`, "m"));
  assert.match(String(rolled["output"]), /^teapot$/m, "the data survived the upgrade");

  const recovered = step("deleted Pod db-1 recovered");
  assert.notEqual(recovered["newUid"], recovered["oldUid"]);
  assert.equal(recovered["readyReplicas"], 3);

  const handover = step("leader handover");
  assert.notEqual(handover["newLeader"], handover["deleted"]);
  assert.match(String(handover["newLeader"]), /^mysql-operator-/);
  assert.equal(handover["cronJobSchedule"], "30 4 * * *", "the new leader reconciles");
});
