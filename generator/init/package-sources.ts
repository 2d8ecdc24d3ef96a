// Where the scaffold gets crdgen and @crdgen/runtime from: a registry when this crdgen was installed from one, else
// the very packages this crdgen runs from (a checkout, or tarballs installed before a release), packed into the project.
import { spawnSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { UserError } from "../user-error.js";

/** The folder in the new project that holds the packed packages when they do not come from a registry. */
export const vendorDir = "vendor";

export interface PackageSource {
  name: string;
  /** What the scaffold's package.json says for it: a version range, or `file:vendor/<tarball>`. */
  spec: string;
  /** The folder it was packed from, when it was packed. */
  packedFrom?: string;
}

/** The package folder of crdgen itself: this file is dist/generator/init/package-sources.js in it. */
const crdgenRoot = () => realpathSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../.."));

/** The package folder of the @crdgen/runtime this crdgen imports. */
function runtimeRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.resolve("@crdgen/runtime")));
  while (!isPackage(dir, "@crdgen/runtime")) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new UserError("crdgen init: cannot find the folder of the @crdgen/runtime it imports");
    dir = parent;
  }
  return realpathSync(dir);
}

function isPackage(dir: string, name: string): boolean {
  try {
    return (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string }).name === name;
  } catch {
    return false;
  }
}

/**
 * Whether npm installed the package in `dir` from a registry. A package outside any node_modules is a checkout (or a
 * `file:` folder link); inside one, npm's hidden lockfile (node_modules/.package-lock.json) records a `file:` tarball
 * as its source when it came from one. Without that record (another package manager) it counts as a registry's.
 */
export function installedFromRegistry(dir: string): boolean {
  // The lockfile sits in the outermost node_modules and names nested packages by their whole path under it.
  const parts = dir.split(path.sep);
  const first = parts.indexOf("node_modules");
  if (first < 0) return false;
  const installRoot = parts.slice(0, first).join(path.sep) || path.sep;
  const key = parts.slice(first).join("/");
  try {
    const lock = JSON.parse(readFileSync(path.join(installRoot, "node_modules", ".package-lock.json"), "utf8")) as {
      packages?: Record<string, { resolved?: string }>;
    };
    return !lock.packages?.[key]?.resolved?.startsWith("file:");
  } catch {
    return true;
  }
}

/** `npm pack` of the package in `from` into `into`; returns the tarball's file name. */
function npmPack(from: string, into: string): string {
  const packed = spawnSync("npm", ["pack", from, "--pack-destination", into, "--json", "--ignore-scripts"], {
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  const filename = packed.status === 0 ? (JSON.parse(packed.stdout) as { filename: string }[])[0]?.filename : undefined;
  if (!filename)
    throw new UserError(`crdgen init: npm pack ${from} failed (exit ${packed.status}): ${packed.stderr.trim()}`);
  return filename;
}

/**
 * The specs of crdgen and @crdgen/runtime for a new project in `projectDir`: `^<version>` for a package installed from
 * a registry, else a tarball packed into `<projectDir>/vendor/` (so `npm install` works before a release), unless
 * `overrides` names a spec.
 */
export async function packageSources(
  projectDir: string,
  version: string,
  overrides: { crdgen?: string | undefined; runtime?: string | undefined },
): Promise<{ crdgen: PackageSource; runtime: PackageSource }> {
  const source = async (name: string, root: () => string, override: string | undefined): Promise<PackageSource> => {
    if (override) return { name, spec: override };
    const dir = root();
    if (installedFromRegistry(dir)) return { name, spec: `^${version}` };
    const into = path.join(projectDir, vendorDir);
    await mkdir(into, { recursive: true });
    return { name, spec: `file:${vendorDir}/${npmPack(dir, into)}`, packedFrom: dir };
  };
  return {
    crdgen: await source("crdgen", crdgenRoot, overrides.crdgen),
    runtime: await source("@crdgen/runtime", runtimeRoot, overrides.runtime),
  };
}
