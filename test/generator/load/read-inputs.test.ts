// Inputs that are not regular files: a FIFO named *.yaml made crdgen wait for a writer forever, a *.yaml symlink to
// /dev/zero read 512 MB before failing. Every input is checked through its open handle: a regular file of at most
// maxInputBytes, or stdin.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../generator/input-error.js";
import { maxInputBytes, readInputs } from "../../../generator/load/read-inputs.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const dir = mkdtempSync(path.join(os.tmpdir(), "crdgen-read-inputs-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A named pipe at `file`, made with mkfifo(1) (node has no mkfifo of its own). */
function fifo(file: string): string {
  const made = spawnSync("mkfifo", [file], { encoding: "utf8" });
  assert.equal(made.status, 0, `mkfifo is needed for this test: ${made.error?.message ?? made.stderr}`);
  return file;
}

/** The CLI on these inputs, killed after 30 s (a FIFO made it wait forever): its exit status and stderr. */
function crdgen(...inputs: string[]): { status: number | null; stderr: string } {
  const out = path.join(dir, `out-${Math.random().toString(36).slice(2)}`);
  const run = spawnSync(process.execPath, [path.join(repoRoot, "bin/crdgen.js"), "generate", ...inputs, "-o", out], {
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(existsSync(out), false, "nothing was written");
  return { status: run.status, stderr: run.stderr };
}

async function rejected(inputs: string[], file: string, problem: RegExp): Promise<void> {
  await assert.rejects(readInputs(inputs), (error: unknown) => {
    assert.ok(error instanceof InputError, `an InputError, got ${String(error)}`);
    assert.equal(error.location.file, file);
    assert.match(error.problem, problem);
    return true;
  });
}

test("a FIFO named *.yaml is refused at once, from the CLI and in a folder, without waiting for a writer", async () => {
  const pipe = fifo(path.join(dir, "pipe.yaml"));
  const run = crdgen(pipe);
  assert.equal(run.status, 1, `exits 1 at once (null: killed after 30 s): ${run.stderr}`);
  assert.equal(
    run.stderr,
    `crdgen: ${pipe}: is a FIFO (named pipe), not a regular file: crdgen reads CRDs from files (or - for stdin)\n`,
  );
  const folder = path.join(dir, "with-fifo");
  mkdirSync(folder);
  fifo(path.join(folder, "crd.yaml"));
  await rejected([folder], path.join(folder, "crd.yaml"), /is a FIFO \(named pipe\), not a regular file/);
});

test("a *.yaml symlink to /dev/zero is refused before anything is read", async () => {
  const zero = path.join(dir, "zero.yaml");
  symlinkSync("/dev/zero", zero);
  const run = crdgen(zero);
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /zero\.yaml: is a character device, not a regular file/);
  await rejected([zero], zero, /is a character device, not a regular file/);
});

test("a file over the size cap is refused with the cap and what to do; one at the cap is read", async () => {
  // Sparse files: their size costs no disk and, for the refused one, no reading.
  const big = path.join(dir, "big.yaml");
  writeFileSync(big, "");
  truncateSync(big, maxInputBytes + 1);
  await rejected([big], big, /is larger than 32 MB, the most crdgen reads from one input .*split it into several/);
  const atCap = path.join(dir, "at-cap.yaml");
  writeFileSync(atCap, "");
  truncateSync(atCap, maxInputBytes);
  const [read] = await readInputs([atCap]);
  assert.equal(read?.text.length, maxInputBytes);
});

test("a regular file behind a symlink and stdin are read as before", async () => {
  const real = path.join(dir, "real.yaml");
  writeFileSync(real, "kind: Namespace\n");
  const link = path.join(dir, "link.yaml");
  symlinkSync(real, link);
  const read = await readInputs([link, "-"], () => Promise.resolve("from stdin"));
  assert.deepEqual(read, [
    { file: link, text: "kind: Namespace\n" },
    { file: "-", text: "from stdin" },
  ]);
});
