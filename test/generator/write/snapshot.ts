// A byte-level picture of a folder for "nothing was written" checks: every entry with its kind, files with the
// sha256 of their bytes, symlinks with their target (never followed), so a stray temp file or folder shows up.
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";

export function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name);
      const rel = path.relative(dir, full).split(path.sep).join("/");
      const info = lstatSync(full);
      if (info.isSymbolicLink()) entries[rel] = `symlink -> ${readlinkSync(full)}`;
      else if (info.isDirectory()) {
        entries[`${rel}/`] = "folder";
        walk(full);
      } else entries[rel] = createHash("sha256").update(readFileSync(full)).digest("hex");
    }
  };
  walk(dir);
  return entries;
}
