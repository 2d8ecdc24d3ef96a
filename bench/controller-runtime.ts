// Builds and runs bench/controller-runtime (the controller-runtime side of bench:runtime). The binary goes to a cache
// outside the repo, like the control plane's, keyed by a hash of the Go sources, so it is built once per change:
//   ${CRDGEN_CACHE_DIR:-~/.cache/crdgen}/bench/controller-runtime/<hash>/controller-runtime-bench
// It is built with the Go toolchain and module cache the control plane build uses (go on PATH, GOWORK=off).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "./paths.js";

const sourceDir = path.join(repoRoot, "bench", "controller-runtime");

function goSources(dir = sourceDir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? goSources(path.join(dir, e.name))
        : /\.go$|^go\.(mod|sum)$/.test(e.name)
          ? [path.join(dir, e.name)]
          : [],
    )
    .sort();
}

/** The binary's path, built first when it is missing. Fails (with the go command's output) if it cannot be built. */
export function controllerRuntimeBinary(): string {
  const hash = createHash("sha256");
  for (const f of goSources()) hash.update(path.relative(sourceDir, f)).update(readFileSync(f));
  const cacheRoot = process.env["CRDGEN_CACHE_DIR"] ?? path.join(os.homedir(), ".cache", "crdgen");
  const outDir = path.join(cacheRoot, "bench", "controller-runtime", hash.digest("hex").slice(0, 16));
  const binary = path.join(outDir, "controller-runtime-bench");
  if (existsSync(binary)) return binary;
  if (spawnSync("go", ["version"]).status !== 0)
    throw new Error("the 'go' command is not on PATH: bench:runtime builds bench/controller-runtime with it");
  mkdirSync(outDir, { recursive: true });
  process.stderr.write(`building bench/controller-runtime into ${outDir} (minutes the first time) ...\n`);
  const tmp = `${binary}.tmp.${process.pid}`;
  const build = spawnSync("go", ["build", "-trimpath", "-o", tmp, "."], {
    cwd: sourceDir,
    env: { ...process.env, GOWORK: "off", GO111MODULE: "on", CGO_ENABLED: "0" },
    encoding: "utf8",
  });
  if (build.status !== 0)
    throw new Error(`go build of bench/controller-runtime failed (exit ${String(build.status)}):\n${build.stderr}`);
  renameSync(tmp, binary);
  return binary;
}

/** Runs the binary with args; resolves with the JSON line it prints (its shape is the caller's to name). */
export function runControllerRuntime<T>(binary: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const p = spawn(binary, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    p.on("error", reject);
    p.on("exit", (code) => {
      if (code !== 0) {
        reject(new Error(`controller-runtime-bench ${args.join(" ")} exited ${String(code)}: ${out}`));
        return;
      }
      try {
        resolve(JSON.parse(out.trim().split("\n").pop() ?? "") as T);
      } catch {
        reject(new Error(`controller-runtime-bench ${args.join(" ")}: no result line in ${JSON.stringify(out)}`));
      }
    });
  });
}
