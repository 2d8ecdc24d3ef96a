// controlplane/node/oci-image.sh: the OCI image archive it writes is consistent (every descriptor's digest and size
// are its blob's, the config's diff IDs are the layers', the names ctr reads are set) and bad input is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../../e2e/control-plane.js";

const script = path.join(repoRoot, "controlplane/node/oci-image.sh");

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

function sha256(file: string): string {
  return `sha256:${createHash("sha256").update(readFileSync(file)).digest("hex")}`;
}

/** A tar of one file, made by tar itself. */
function layerTar(dir: string, name: string, content: string): string {
  const root = path.join(dir, `${name}-root`);
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, name), content);
  const tar = path.join(dir, `${name}.tar`);
  execFileSync("tar", ["-C", root, "-cf", tar, "."]);
  return tar;
}

test("oci-image.sh writes an OCI layout whose digests, sizes, diff IDs and names agree", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-oci-test-"));
  try {
    const base = layerTar(dir, "base", "base layer\n");
    const app = layerTar(dir, "app", "app layer\n");
    const out = path.join(dir, "image.oci.tar");
    execFileSync("bash", [
      script,
      ...["--name", "localhost/crdgen/test:1.2.3", "--out", out, "--layer", base, "--layer", app],
      ...["--entrypoint", '["node","main.js"]', "--workdir", "/app", "--user", "1000:1000", "--env", "A=b"],
    ]);
    const layout = path.join(dir, "layout");
    mkdirSync(layout);
    execFileSync("tar", ["-C", layout, "-xf", out]);
    const blob = (d: Descriptor) => {
      const file = path.join(layout, "blobs", ...d.digest.split(":"));
      assert.equal(sha256(file), d.digest, `blob ${d.digest} has that digest`);
      assert.equal(statSync(file).size, d.size, `blob ${d.digest} has the size its descriptor says`);
      return file;
    };

    assert.deepEqual(JSON.parse(readFileSync(path.join(layout, "oci-layout"), "utf8")), {
      imageLayoutVersion: "1.0.0",
    });
    const index = JSON.parse(readFileSync(path.join(layout, "index.json"), "utf8")) as { manifests: Descriptor[] };
    assert.equal(index.manifests.length, 1);
    const manifestDescriptor = index.manifests[0]!;
    // The full name is what ctr gives the image; ref.name is the OCI tag.
    assert.deepEqual(manifestDescriptor.annotations, {
      "io.containerd.image.name": "localhost/crdgen/test:1.2.3",
      "org.opencontainers.image.ref.name": "1.2.3",
    });

    const manifest = JSON.parse(readFileSync(blob(manifestDescriptor), "utf8")) as {
      config: Descriptor;
      layers: Descriptor[];
    };
    // Layers are stored as given (uncompressed), lowest first: their digests are the input tars' own.
    assert.deepEqual(
      manifest.layers.map((l) => l.digest),
      [sha256(base), sha256(app)],
    );
    manifest.layers.forEach(blob);
    const config = JSON.parse(readFileSync(blob(manifest.config), "utf8")) as {
      config: { Entrypoint: string[]; WorkingDir: string; User: string; Env: string[] };
      rootfs: { diff_ids: string[] };
    };
    assert.deepEqual(config.rootfs.diff_ids, [sha256(base), sha256(app)]);
    assert.deepEqual(config.config.Entrypoint, ["node", "main.js"]);
    assert.equal(config.config.WorkingDir, "/app");
    assert.equal(config.config.User, "1000:1000");
    assert.ok(config.config.Env.includes("A=b"));
    assert.ok(config.config.Env.some((e) => e.startsWith("PATH=")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("oci-image.sh refuses a name without a tag, a missing layer, and no layer, and writes nothing", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-oci-test-"));
  try {
    const out = path.join(dir, "image.oci.tar");
    const layer = layerTar(dir, "base", "x\n");
    const cases: Array<[string[], RegExp]> = [
      [["--name", "localhost/crdgen/test", "--out", out, "--layer", layer], /has no tag/],
      [["--name", "localhost/crdgen/test:1", "--out", out, "--layer", path.join(dir, "nope.tar")], /does not exist/],
      [["--name", "localhost/crdgen/test:1", "--out", out], /at least one --layer/],
    ];
    for (const [args, message] of cases) {
      const result = spawnSync("bash", [script, ...args], { encoding: "utf8" });
      assert.notEqual(result.status, 0, `exit status for ${args.join(" ")}`);
      assert.match(result.stderr, message);
      assert.throws(() => statSync(out), "no archive is written");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
