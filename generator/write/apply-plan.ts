// Writes a plan: generator-owned files are rewritten, user-owned files created once; all writes land together or not at all.
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { PlannedFile } from "../emit/plan-files.js";
import { checkHookSignatures } from "../hooks/hook-signature.js";

export interface ApplyReport {
  /** Files whose content would change or that would be created (for --check, and what a run writes). */
  changed: string[];
  unchanged: string[];
  /** User-owned files that exist and were left byte-identical. */
  userKept: string[];
  /** `<hooks>.new` files written because the generator's hook signature no longer matches the user's file. */
  hookUpdates: Array<{ file: string; newFile: string; details: string }>;
}

export async function applyPlan(files: PlannedFile[], options: { check: boolean }): Promise<ApplyReport> {
  const report: ApplyReport = { changed: [], unchanged: [], userKept: [], hookUpdates: [] };
  const writes: Array<{ path: string; content: string }> = [];
  for (const file of files) {
    const existing = await readFile(file.path, "utf8").catch(() => undefined);
    if (file.owner === "user" && existing !== undefined) {
      report.userKept.push(file.path);
      if (file.hooks) {
        const mismatches = checkHookSignatures(file.path, existing, file.hooks.parameterTypes);
        if (mismatches.length) {
          const newFile = `${file.path}.new`;
          const details = mismatches.map((m) => `${m.hook}${m.found} should be ${m.hook}${m.expected}`).join("; ");
          report.hookUpdates.push({ file: file.path, newFile, details });
          if ((await readFile(newFile, "utf8").catch(() => undefined)) !== file.content) writes.push({ path: newFile, content: file.content });
        }
      }
      continue;
    }
    if (existing === file.content) {
      report.unchanged.push(file.path);
      continue;
    }
    report.changed.push(file.path);
    writes.push({ path: file.path, content: file.content });
  }
  if (!options.check) await writeAllOrNothing(writes);
  return report;
}

/** Stages every file beside its target first, then renames: a failure leaves no half-written output behind. */
async function writeAllOrNothing(writes: Array<{ path: string; content: string }>): Promise<void> {
  const suffix = `.crdgen-${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  const staged: Array<{ temp: string; target: string }> = [];
  try {
    for (const w of writes) {
      await mkdir(path.dirname(w.path), { recursive: true });
      const temp = w.path + suffix;
      await writeFile(temp, w.content);
      staged.push({ temp, target: w.path });
    }
  } catch (error) {
    await Promise.all(staged.map((s) => rm(s.temp, { force: true })));
    throw error;
  }
  for (const s of staged) await rename(s.temp, s.target);
}
