// Writes deploy/ from deployManifests: each file atomically, generated files no longer produced removed, files
// without the generated header (the user's own) left alone; check mode only says what would change.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generatedHeader, renderManifest, type ManifestFile } from "./manifests.js";

export interface WriteResult {
  /** Files written (or in check mode, that would be), relative to the folder. */
  changed: string[];
  /** Generated files removed (or that would be) because nothing produces them any more. */
  removed: string[];
  unchanged: number;
}

/** `by` names the command in each file's header, e.g. "npm run manifests". */
export function writeManifests(
  dir: string,
  files: readonly ManifestFile[],
  options: { by: string; check?: boolean },
): WriteResult {
  const result: WriteResult = { changed: [], removed: [], unchanged: 0 };
  const wanted = new Set(files.map((f) => f.file));
  for (const file of files) {
    const target = path.join(dir, file.file);
    const content = renderManifest(file, options.by);
    if (existsSync(target) && readFileSync(target, "utf8") === content) {
      result.unchanged++;
      continue;
    }
    result.changed.push(file.file);
    if (options.check) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    // Write beside, then rename: a reader never sees half a manifest.
    writeFileSync(`${target}.tmp`, content);
    renameSync(`${target}.tmp`, target);
  }
  const header = generatedHeader(options.by);
  for (const file of existsSync(dir) ? manifestFilesUnder(dir) : []) {
    if (wanted.has(file) || !readFileSync(path.join(dir, file), "utf8").startsWith(header)) continue;
    result.removed.push(file);
    if (!options.check) rmSync(path.join(dir, file));
  }
  return result;
}

/** Every .yaml file under dir (subfolders included), relative, "/"-separated, sorted: the order they apply in. */
export function manifestFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".yaml"))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}
