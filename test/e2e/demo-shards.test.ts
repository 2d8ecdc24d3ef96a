// `npm run demo -- --shards 3` as a user runs it: it exits 0, and what it prints holds together: the replicas split the
// clusters (every one listed once, each count the replica's own metric), the killed replica's clusters wait for its
// Lease to lapse before anyone reconciles them, and the survivors keep their own clusters and take the rest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "./control-plane.js";

async function runDemo(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [path.join(repoRoot, "dist/samples/mysql/tools/demo.js"), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(code, 0, `demo exited ${code}:\n${out}`);
  return out;
}

/** The rows of the ownership table that follows `heading`: replica → its clusters, and the metric it printed. */
function table(out: string, heading: string): Map<string, { clusters: string[]; metric: number; percent: number }> {
  const section = out.slice(out.indexOf(heading)).split("\n").slice(1);
  const rows = new Map<string, { clusters: string[]; metric: number; percent: number }>();
  for (const line of section) {
    const row = /^ {3}(replica \d): +(\d+)% of the hash space, (\d+) clusters \(its metrics: (\d+)\):(.*)$/.exec(line);
    if (!row) break;
    const clusters = row[5]!.trim().split(" ").filter(Boolean);
    assert.equal(clusters.length, Number(row[3]), line);
    rows.set(row[1]!, { clusters, metric: Number(row[4]), percent: Number(row[2]) });
  }
  return rows;
}

test("demo --shards 3: three replicas split the clusters; one killed, the others take its clusters over", async () => {
  const out = await runDemo(["--shards", "3"]);
  assert.match(
    out,
    /3 operator replicas started\n( {3}replica \d \(pid \d+\): --sharding=mysql-operator, member Lease .*\n){3}/,
  );
  const filtered = /filtered each replica's LIST and WATCH by shard \(its log\): (\S+), (\S+), (\S+)\n/.exec(out);
  assert.ok(filtered, out);

  const all = Array.from({ length: 12 }, (_, i) => `db-${String(i + 1).padStart(2, "0")}`);
  const before = table(out, "== who reconciles which (");
  assert.deepEqual([...before.keys()], ["replica 1", "replica 2", "replica 3"]);
  // A replica tells that the server filtered from the hashes of the objects it was sent: one whose share of a dozen
  // clusters is empty (uids are random) was sent nothing and cannot tell ("?"); every other one must say yes.
  [...before.values()].forEach((row, i) =>
    assert.ok(
      filtered[i + 1] === "yes" || (row.clusters.length === 0 && filtered[i + 1] === "?"),
      `replica ${i + 1} (${row.clusters.length} clusters) filtered by the server: ${filtered[i + 1]}`,
    ),
  );
  assert.deepEqual([...before.values()].flatMap((r) => r.clusters).sort(), all, "every cluster held by one replica");
  for (const [replica, row] of before) assert.equal(row.metric, row.clusters.length, `${replica}'s metric agrees`);
  const shares = [...before.values()].map((r) => r.percent);
  assert.ok(Math.abs(shares.reduce((a, b) => a + b) - 100) <= 2, `the shares cover the space: ${shares.join(", ")}`);

  const kill = /== kill -9 (replica \d) \((\d+) clusters\)/.exec(out);
  assert.ok(kill, out);
  const victim = kill[1]!;
  const orphaned = before.get(victim)!.clusters;
  assert.equal(orphaned.length, Number(kill[2]));
  const takeover = Number(/ranges taken over at ([\d.]+) s/.exec(out)?.[1]);
  const orphansReady = Number(new RegExp(`${victim}'s \\d+ clusters Ready with 2 in ([\\d.]+) s`).exec(out)?.[1]);
  // Its last renewal was at most a retry period (2 s) before the kill, and its Lease lasts 15 s: nobody may start its
  // clusters before that, however fast the others are. (The survivors publish the ranges they took in their Leases at
  // their next renewal, which may come after they converged the clusters: both are held to the Lease, not each other.)
  assert.ok(takeover >= 13, `its ranges were taken only after its Lease lapsed: ${takeover} s`);
  assert.ok(orphansReady >= 13, `its clusters converged only after its Lease lapsed: ${orphansReady} s`);

  const after = table(out, "== who reconciles which now");
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].filter((r) => r !== victim).sort());
  assert.deepEqual([...after.values()].flatMap((r) => r.clusters).sort(), all, "every cluster held by a survivor");
  // The killed replica's clusters move; the survivors keep nearly all of theirs. Buckets are assigned with bounded load
  // (at most ⌈256/N⌉ each), so a leave may also move a few buckets between survivors (docs/sharding.md: a leaver hands
  // over mostly its own): on average a few percent of the space, so with a dozen clusters at most a quarter move.
  const survivorsBefore = [...after.keys()].flatMap((replica) =>
    before.get(replica)!.clusters.map((c) => [replica, c]),
  );
  const moved = survivorsBefore.filter(([replica, c]) => !after.get(replica!)!.clusters.includes(c!));
  for (const [replica, row] of after) assert.equal(row.metric, row.clusters.length, `${replica}'s metric agrees`);
  assert.ok(
    moved.length <= Math.max(1, Math.floor(survivorsBefore.length / 4)),
    `survivors keep nearly all their clusters; moved between them: ${moved.map(([r, c]) => `${c} from ${r}`).join(", ")}`,
  );
  assert.match(out, /== done: 3 replicas split 12 MySQLClusters, one killed, every cluster converged/);
  assert.doesNotMatch(out, /FAILED/);
});
