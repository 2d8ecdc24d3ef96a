// crdgen.lock: what the last run was made from and what it wrote, so the next run (and --check) can tell what changed.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../input-error.js";

export const lockFileName = "crdgen.lock";
const lockVersion = 1;

export interface LockFile {
  lockVersion: number;
  generator: { name: "crdgen"; version: string };
  /** The options that shape the output (folders relative to the lock's folder, "/" separated). */
  options: {
    versions: string;
    hooks: string | null;
    tests: string | null;
    templates: string | null;
    format: boolean;
    validation: boolean;
    /** Present (true) only with --webhooks, so a lock written without it reads as before. */
    webhooks?: boolean;
  };
  /**
   * Every input file with its sha256, named as the generated headers name it: relative to the project folder, or by
   * its file name when it lies outside ("stdin" for "-"). The hashes live here, not in the headers: a changed input
   * rewrites only the files whose code changes, and this lock.
   */
  inputs: Array<{ path: string; sha256: string }>;
  /** Every CRD generated: its versions, and the hooks file it was given (relative to the hooks folder). */
  crds: Array<{
    name: string;
    kind: string;
    group: string;
    versions: string[];
    storageVersion: string | null;
    hooks: string | null;
  }>;
  /** Every generator-owned file with the sha256 of its content (the lock itself excluded). */
  files: Array<{ path: string; sha256: string }>;
  /** User-owned files crdgen created once (or would create) and never overwrites. */
  userFiles: string[];
}

export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** A path as the lock records it: relative to the lock's folder, with "/" on every platform. */
export function lockPath(outDir: string, file: string): string {
  return path.relative(outDir, file).split(path.sep).join("/");
}

/** The previous run's lock, or undefined when there is none. A lock crdgen cannot read is an error, never ignored. */
export async function readLock(outDir: string): Promise<LockFile | undefined> {
  const file = path.join(outDir, lockFileName);
  const text = await readFile(file, "utf8").catch((error: unknown) => {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === "ENOENT") return undefined;
    throw new InputError({ file }, `cannot read it (${code ?? message})`);
  });
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InputError(
      { file },
      `is not valid JSON (${error instanceof Error ? error.message : String(error)}); restore it from version control or delete it`,
    );
  }
  const lock = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Partial<LockFile>;
  if (lock.lockVersion !== lockVersion || !Array.isArray(lock.files) || !Array.isArray(lock.crds)) {
    throw new InputError(
      { file },
      `is not a crdgen lock of version ${lockVersion}; restore it from version control or delete it`,
    );
  }
  checkLockPaths(file, lock as LockFile);
  return lock as LockFile;
}

/**
 * The paths a lock gives are input too (a lock can be edited, or come with a pull request): each must be a relative
 * path that stays inside its folder, the output folder for files and the hooks folder for hooks files.
 */
function checkLockPaths(file: string, lock: LockFile): void {
  const invalid = (schemaPath: string, problem: string) =>
    new InputError({ file, schemaPath }, `${problem}; restore it from version control or delete it`);
  lock.files.forEach((entry: unknown, i) => {
    const value = (entry as Partial<LockFile["files"][number]> | null)?.path;
    if (typeof value !== "string") throw invalid(`/files/${i}/path`, "must be a string");
    if (!staysInside(value)) throw invalid(`/files/${i}/path`, `${JSON.stringify(value)} is outside the output folder`);
  });
  lock.crds.forEach((entry: unknown, i) => {
    const value = (entry as Partial<LockFile["crds"][number]> | null)?.hooks;
    if (value === null || value === undefined) return;
    if (typeof value !== "string") throw invalid(`/crds/${i}/hooks`, "must be a string or null");
    if (!staysInside(value) || !value.endsWith(".hooks.ts"))
      throw invalid(`/crds/${i}/hooks`, `${JSON.stringify(value)} is not a *.hooks.ts file inside the hooks folder`);
    if (typeof (entry as { name?: unknown }).name !== "string") throw invalid(`/crds/${i}/name`, "must be a string");
  });
}

/** A lock path ("/" separated, relative to its folder) that names a file inside that folder. */
function staysInside(lockRelative: string): boolean {
  if (lockRelative === "" || lockRelative.includes("\0") || path.posix.isAbsolute(lockRelative)) return false;
  if (path.isAbsolute(lockRelative) || /^[A-Za-z]:/.test(lockRelative)) return false;
  const normal = path.posix.normalize(lockRelative.split(path.sep).join("/"));
  return normal !== "." && normal !== ".." && !normal.startsWith("../") && !normal.endsWith("/");
}

/** The lock as text: keys in a fixed order and sorted lists, so the same inputs always give the same bytes. */
export function renderLock(lock: LockFile): string {
  const sorted: LockFile = {
    lockVersion: lock.lockVersion,
    generator: lock.generator,
    options: lock.options,
    inputs: [...lock.inputs].sort((a, b) => a.path.localeCompare(b.path)),
    crds: [...lock.crds].sort((a, b) => a.name.localeCompare(b.name)),
    files: [...lock.files].sort((a, b) => a.path.localeCompare(b.path)),
    userFiles: [...lock.userFiles].sort(),
  };
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

export function newLock(fields: Omit<LockFile, "lockVersion">): LockFile {
  return { lockVersion, ...fields };
}
