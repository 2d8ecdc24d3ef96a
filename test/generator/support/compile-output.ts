// Compiles generated output with tsc under the repository's strict settings (as the corpus test checks it) and emits
// JavaScript next to it, so a test can also import and run what was generated.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repo root: this file runs as dist/test/generator/support/compile-output.js. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/**
 * A fresh folder under the repo's gitignored .tmp/, where generated code resolves @crdgen/runtime and
 * @kubernetes/client-node from node_modules as an operator project would.
 */
export function repoTempDir(prefix: string): string {
  const root = path.join(repoRoot, ".tmp");
  mkdirSync(root, { recursive: true });
  return mkdtempSync(path.join(root, prefix));
}

export interface Compiled {
  /** tsc's exit status and output (errors as path(line,col): error TSnnnn: ...). */
  status: number | null;
  output: string;
  /** Where the JavaScript of `dir/<file>.ts` is: `js/<file>.js`. */
  jsDir: string;
}

/** tsc over every .ts file under dir (strict, noUncheckedIndexedAccess, NodeNext: tsconfig.base.json), into dir/js. */
export function compileOutput(dir: string): Compiled {
  const jsDir = path.join(dir, "js");
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: path.join(repoRoot, "tsconfig.base.json"),
      compilerOptions: { rootDir: ".", outDir: "js", declaration: false, sourceMap: false, types: ["node"] },
      include: ["**/*.ts"],
      exclude: ["js"],
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", dir, "--pretty", "false"],
    { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (tsc.error) throw tsc.error;
  return { status: tsc.status, output: tsc.stdout + tsc.stderr, jsDir };
}
