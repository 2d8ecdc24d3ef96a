// A `crdgen init` project whose packages are links into this checkout (no registry), and how its commands run: as a
// user's would, not nested in this test run.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./control-plane.js";

export const crdgenBin = path.join(repoRoot, "bin", "crdgen.js");

/** node_modules of the project as links into this checkout: crdgen, @crdgen/runtime, and what their scripts run. */
export function linkPackages(project: string): void {
  const modules = path.join(project, "node_modules");
  const link = (name: string, target: string) => {
    mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
    symlinkSync(target, path.join(modules, name), "dir");
  };
  link("crdgen", repoRoot);
  link("@crdgen/runtime", path.join(repoRoot, "runtime"));
  for (const name of ["@kubernetes/client-node", "@types/node", "typescript"])
    link(name, path.join(repoRoot, "node_modules", name));
  mkdirSync(path.join(modules, ".bin"));
  symlinkSync(path.join("..", "crdgen", "bin", "crdgen.js"), path.join(modules, ".bin", "crdgen"));
  symlinkSync(path.join("..", "typescript", "bin", "tsc"), path.join(modules, ".bin", "tsc"));
}

/**
 * Runs a command in the project and returns its output; it must exit 0. The environment is this process's without
 * the test runner's context and without the variables named in `drop` (what the project's scripts set themselves),
 * plus `env`.
 */
export function runInProject(
  command: string,
  args: string[],
  cwd: string,
  options: { drop?: string[]; env?: Record<string, string> } = {},
): string {
  const dropped = new Set(["NODE_TEST_CONTEXT", ...(options.drop ?? [])]);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !dropped.has(k)));
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout: 600_000,
    env: { ...inherited, ...options.env },
  });
  if (result.error) throw new Error(`${command} ${args.join(" ")} could not run in ${cwd}: ${result.error.message}`);
  const output = result.stdout + result.stderr;
  assert.equal(result.status, 0, `${command} ${args.join(" ")} (in ${cwd}) exited ${result.status}:\n${output}`);
  return output;
}
