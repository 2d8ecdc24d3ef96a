// What a run leaves broken in the user's files, said one line each with what to do: imports of generated modules this
// run no longer produces (a version renamed or removed, a CRD removed), and the user files of CRDs no longer generated.
import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { specifierFrom } from "../emit/plan-types.js";
import { isInside } from "./confine-paths.js";
import type { LockFile } from "./lock-file.js";
import { lockFileName } from "./lock-file.js";

export interface UserFileScan {
  /** The user folders (--hooks, --tests) to read; the output folder inside one of them is skipped. */
  userDirs: string[];
  outDir: string;
  /** Every generator-owned file this run plans (resolved paths). */
  generated: ReadonlySet<string>;
  /** Generated files this run removes (or, with --check, would). */
  removed: ReadonlySet<string>;
  /** User files this run creates from its templates: they import only planned modules. */
  created: ReadonlySet<string>;
  /** Texts already read this run (resolved path → text): the user files it kept, read before the writes. */
  read?: ReadonlyMap<string, string>;
  /** The previous run's lock, and the CRDs (metadata.name) of this run. */
  previous?: LockFile;
  crdNames: ReadonlySet<string>;
}

/**
 * `<file>: no CRD generates <kind> any more; ...` for each user file of a CRD the previous run generated and this one
 * does not (its hooks, tests and webhook files: the previous lock's user files named after its hooks file).
 */
export function orphanedUserFiles(scan: UserFileScan): Array<{ file: string; message: string }> {
  const { previous, outDir } = scan;
  if (!previous?.options.hooks) return [];
  const hooksDir = path.join(outDir, previous.options.hooks);
  const userFiles = previous.userFiles.map((f) => path.join(outDir, f));
  const orphans: Array<{ file: string; message: string }> = [];
  for (const crd of previous.crds) {
    if (scan.crdNames.has(crd.name) || crd.hooks === null) continue;
    const stem = path.basename(crd.hooks, ".hooks.ts");
    const candidates = new Set([path.join(hooksDir, crd.hooks), ...userFiles]);
    for (const file of [...candidates].sort()) {
      if (!path.basename(file).startsWith(`${stem}.`) || scan.created.has(path.resolve(file))) continue;
      if (!existsSync(file)) continue;
      const message = `${shown(file)}: no CRD generates ${crd.kind} any more; delete it or restore the CRD`;
      orphans.push({ file: path.resolve(file), message });
    }
  }
  return orphans;
}

/**
 * `<file>:<line>: imports <specifier>, which is gone: import from <kind module>` for each import, in a user file, of a
 * module in the output folder that this run does not generate and that is not there (a user's own file is).
 */
export async function staleImports(scan: UserFileScan, skip: ReadonlySet<string>): Promise<string[]> {
  const files = await userSources(scan);
  const read = files.filter((f) => !skip.has(f) && !scan.created.has(f));
  if (read.length === 0) return [];
  // ts-morph's TypeScript finds import specifiers as the compiler does; loaded only when there is a file to read.
  const { ts } = await import("ts-morph");
  const lines: string[] = [];
  const sorted = read.sort();
  // The reads overlap; a text applyPlan read already is not read again (user files are never written by a run).
  const texts = await Promise.all(sorted.map(async (f) => scan.read?.get(f) ?? readFile(f, "utf8")));
  for (const [index, file] of sorted.entries()) {
    const text = texts[index] ?? "";
    for (const imported of ts.preProcessFile(text, true, true).importedFiles) {
      const gone = goneModule(file, imported.fileName, scan);
      if (gone === undefined) continue;
      const line = text.slice(0, imported.pos).split("\n").length;
      const replacement = kindModuleOf(gone, scan);
      lines.push(
        `${shown(file)}:${line}: imports ${imported.fileName}, which is gone: ${
          replacement ? `import from ${specifierFrom(path.dirname(file))(replacement)}` : "no CRD generates it any more"
        }`,
      );
    }
  }
  return lines;
}

/** A file as messages name it: relative to the folder crdgen runs in, when it lies there. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), path.resolve(file));
  return relative.startsWith("..") || path.isAbsolute(relative) ? path.resolve(file) : relative;
}

/** The generated .ts file a relative specifier names, when it lies in the output folder and is gone; else undefined. */
function goneModule(file: string, specifier: string, scan: UserFileScan): string | undefined {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  const target = path.resolve(path.dirname(file), specifier);
  if (!isInside(target, path.resolve(scan.outDir))) return undefined;
  const source = /\.[cm]?js$/.test(target) ? target.replace(/\.[cm]?js$/, ".ts") : `${target}.ts`;
  if (scan.generated.has(source)) return undefined;
  if (!scan.removed.has(source) && (existsSync(source) || existsSync(target))) return undefined;
  return source;
}

/** <out>/<group>/<kind>.ts for a module <out>/<group>/<version>/<kind>.<artifact>.ts, when this run generates it. */
function kindModuleOf(gone: string, scan: UserFileScan): string | undefined {
  const parts = path.relative(path.resolve(scan.outDir), gone).split(path.sep);
  if (parts.length !== 3) return undefined;
  const [group, , file] = parts as [string, string, string];
  const kindModule = path.resolve(scan.outDir, group, `${file.split(".")[0]}.ts`);
  return scan.generated.has(kindModule) ? kindModule.replace(/\.ts$/, "") : undefined;
}

/** Every .ts file (not .d.ts) in the user folders, outside the output folder, node_modules and dot-folders. */
async function userSources(scan: UserFileScan): Promise<string[]> {
  const out = path.resolve(scan.outDir);
  const found = new Set<string>();
  const walk = async (dir: string): Promise<void> => {
    if (dir === out || existsSync(path.join(dir, lockFileName))) return;
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== "node_modules" && !entry.name.startsWith(".")) await walk(full);
      else if (entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) found.add(full);
    }
  };
  for (const dir of scan.userDirs) await walk(path.resolve(dir));
  return [...found];
}
