// Where crdgen init takes crdgen and @crdgen/runtime from: a registry's range only for a package npm installed from a
// registry; a checkout or a tarball install is packed into the new project instead.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { installedFromRegistry } from "../../../generator/init/package-sources.js";

/** A folder with node_modules/crdgen in it and npm's hidden lockfile recording `resolved` for it (or no lockfile). */
function install(t: { after(fn: () => void): void }, resolved: string | undefined, lockfile = true): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "crdgen-sources-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = path.join(root, "node_modules", "crdgen");
  mkdirSync(dir, { recursive: true });
  const entry = { version: "0.1.0", ...(resolved ? { resolved } : {}) };
  if (lockfile)
    writeFileSync(
      path.join(root, "node_modules", ".package-lock.json"),
      JSON.stringify({ lockfileVersion: 3, packages: { "node_modules/crdgen": entry } }),
    );
  return dir;
}

test("a package outside node_modules (a checkout) is not from a registry", (t) => {
  const checkout = mkdtempSync(path.join(os.tmpdir(), "crdgen-checkout-"));
  t.after(() => rmSync(checkout, { recursive: true, force: true }));
  assert.equal(installedFromRegistry(checkout), false);
});

test("a package npm installed from a tarball is not from a registry", (t) => {
  assert.equal(installedFromRegistry(install(t, "file:../packs/crdgen-0.1.0.tgz")), false);
});

test("a nested install is looked up by its whole path under the outermost node_modules", (t) => {
  const root = path.dirname(path.dirname(install(t, "file:crdgen-0.1.0.tgz")));
  const nested = path.join(root, "node_modules", "tool", "node_modules", "crdgen");
  mkdirSync(nested, { recursive: true });
  const entry = { resolved: "file:packs/crdgen-0.1.0.tgz" };
  writeFileSync(
    path.join(root, "node_modules", ".package-lock.json"),
    JSON.stringify({ packages: { "node_modules/tool/node_modules/crdgen": entry } }),
  );
  assert.equal(installedFromRegistry(nested), false);
});

test("a package npm installed from a registry is, with or without the registry's URL in the lockfile", (t) => {
  assert.equal(installedFromRegistry(install(t, "http://127.0.0.1:4873/crdgen/-/crdgen-0.1.0.tgz")), true);
  // omit-lockfile-registry-resolved leaves `resolved` out for registry packages only.
  assert.equal(installedFromRegistry(install(t, undefined)), true);
});

test("without npm's hidden lockfile (another package manager), node_modules means a registry", (t) => {
  assert.equal(installedFromRegistry(install(t, undefined, false)), true);
});
