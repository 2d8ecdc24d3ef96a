// Keeps every write and removal inside the folder it belongs to: --out for generated files, --hooks or --tests for
// user files. A path is judged twice: as path.resolve gives it, and with the symlinks of its existing parent folders
// followed, so neither `..` in a name nor a symlinked folder can lead a write elsewhere.
import { realpathSync } from "node:fs";
import path from "node:path";
import { UserError } from "../user-error.js";

/** A folder crdgen may write into, named by the option that gave it (for messages). */
export interface AllowedFolder {
  option: string;
  dir: string;
}

/** A path to write or remove lies outside every folder it may be in; the run writes nothing. */
export class PathConfinementError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "PathConfinementError";
  }
}

/** Whether child lies strictly inside dir (both absolute and normalised). */
export function isInside(child: string, dir: string): boolean {
  const relative = path.relative(dir, child);
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/**
 * The absolute path with the symlinks of its existing ancestors followed; the part that does not exist yet is
 * appended as it is (a write creates it as plain folders). The last segment itself is not followed: crdgen replaces
 * or removes a file by renaming it, which acts on a symlink, never on what it points to.
 */
export function withRealParents(file: string): string {
  const resolved = path.resolve(file);
  const missing = [path.basename(resolved)];
  for (let dir = path.dirname(resolved); ; dir = path.dirname(dir)) {
    try {
      return path.join(realpathSync(dir), ...missing);
    } catch {
      // Not there (or not a folder): its parent decides, and the write itself will fail on it if it must.
      if (dir === path.dirname(dir)) return resolved;
      missing.unshift(path.basename(dir));
    }
  }
}

/** The folder as it resolves, its own symlinks followed (when it does not exist yet, those of its parents). */
function realFolder(dir: string): string {
  try {
    return realpathSync(path.resolve(dir));
  } catch {
    return withRealParents(dir);
  }
}

/**
 * Throws a PathConfinementError unless every file lies inside one of its folders, both lexically and with symlinks
 * of existing parents followed. `what` says what the file is ("generated file", "file listed in crdgen.lock"...).
 */
export function confinePaths(entries: Array<{ file: string; folders: AllowedFolder[]; what: string }>): void {
  const reals = new Map<string, string>();
  const real = (dir: string) => reals.get(dir) ?? reals.set(dir, realFolder(dir)).get(dir)!;
  for (const { file, folders, what } of entries) {
    const resolved = path.resolve(file);
    const lexical = folders.find((f) => isInside(resolved, path.resolve(f.dir)));
    const where = folders.map((f) => `${f.option} ${f.dir}`).join(" or ");
    if (!lexical) throw new PathConfinementError(`${what} ${file} is outside ${where}; nothing was written`);
    const target = withRealParents(resolved);
    if (!folders.some((f) => isInside(target, real(f.dir))))
      throw new PathConfinementError(
        `${what} ${file} resolves to ${target} through a symlinked folder, outside ${where}; nothing was written`,
      );
  }
}
