// Finds the Go and TypeScript sources under the explored folders, and the go.mod and package.json files that say how
// imports map to folders. Vendored code, node_modules and tests are left out unless asked for. Symbolic links below the
// explored folders are not followed (each one is named in a warning): the walk cannot loop, and reads nothing outside.
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { GoModule } from "./go/modules.js";
import { MAX_SOURCE_BYTES, megabytes } from "./screen.js";
import type { TsPackage } from "./ts/modules.js";

export interface DiscoverOptions {
  includeVendor?: boolean;
  includeTests?: boolean;
  /** Load Go modules with Go's type checker (explore/go-typed, built on first use); syntax only when it cannot. */
  goTypes?: boolean;
  /** Worker threads to read Go in (0: none); by default one per CPU, at most 4, once there are enough files. */
  goWorkers?: number;
}

export interface SourceFile {
  /** Relative to the common root, "/"-separated. */
  file: string;
  abs: string;
}

export interface Discovered {
  /** The folder every reported path is relative to. */
  root: string;
  go: SourceFile[];
  ts: SourceFile[];
  goModules: GoModule[];
  tsPackages: TsPackage[];
  /** Links not followed and folders that could not be read, one sentence each. */
  warnings: string[];
  /** Source files of languages explore does not read, counted by extension (".java" → 12). */
  otherLanguages: Map<string, number>;
}

/** Input that cannot be read: the message names the path (a command line prints it alone, without a stack). */
export class ExploreInputError extends Error {}

const TEST_DIRS = new Set(["test", "tests", "testdata", "__tests__", "e2e"]);
const VENDOR_DIRS = new Set(["vendor", "node_modules"]);
/** Source files of other languages an operator may be written in: counted, so a report can say what it did not read. */
const OTHER_LANGUAGES = new Set(
  ".java .kt .kts .scala .groovy .clj .py .rs .cs .fs .vb .rb .php .js .mjs .cjs .jsx .ex .exs .erl .hs .swift .c .cc .cpp .cxx .zig .lua .dart .cr .nim".split(
    " ",
  ),
);

export function discover(dirs: string[], options: DiscoverOptions = {}): Discovered {
  const absDirs = dirs.map((d) => path.resolve(d));
  for (const [i, abs] of absDirs.entries()) {
    let stat;
    try {
      stat = statSync(abs);
    } catch (error) {
      throw new ExploreInputError(
        `cannot read ${dirs[i]}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or folder" : (error as Error).message}`,
      );
    }
    if (!stat.isDirectory()) throw new ExploreInputError(`cannot explore ${dirs[i]}: not a folder`);
  }
  const root = commonAncestor(absDirs);
  const found: Discovered = {
    root,
    go: [],
    ts: [],
    goModules: [],
    tsPackages: [],
    warnings: [],
    otherLanguages: new Map(),
  };
  const seen = new Set<string>();
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join("/");
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      // An explored folder itself must be readable; a folder below it is skipped like an unreadable file.
      const message = `cannot read folder ${rel(dir) || "."}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      if (absDirs.includes(dir)) throw new ExploreInputError(message);
      found.warnings.push(`${message}; skipped`);
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      // Dirents describe the entry itself (lstat): a link is neither a folder nor a file here.
      if (e.isSymbolicLink()) {
        if (!e.name.startsWith(".")) found.warnings.push(`${rel(abs)}: symbolic link; not followed`);
      } else if (e.isDirectory()) {
        if (e.name.startsWith(".") || e.name === "dist") continue;
        if (VENDOR_DIRS.has(e.name) && !options.includeVendor) continue;
        if (TEST_DIRS.has(e.name) && !options.includeTests) continue;
        walk(abs);
      } else if (e.isFile()) {
        if (seen.has(abs)) continue;
        seen.add(abs);
        const file = rel(abs);
        if (e.name === "go.mod")
          found.goModules.push({
            modulePath: modulePathOf(abs, file),
            dir: path.posix.dirname(file) === "." ? "" : path.posix.dirname(file),
          });
        else if (e.name === "package.json") {
          const pkg = packageOf(abs, file);
          if (pkg) found.tsPackages.push(pkg);
        } else if (e.name.endsWith(".go")) {
          if (e.name.endsWith("_test.go") && !options.includeTests) continue;
          found.go.push({ file, abs });
        } else if (/\.(ts|tsx|mts|cts)$/.test(e.name) && !/\.d\.(m|c)?ts$/.test(e.name)) {
          if (/\.(test|spec)\.(ts|tsx|mts|cts)$/.test(e.name) && !options.includeTests) continue;
          found.ts.push({ file, abs });
        } else {
          const ext = path.extname(e.name).toLowerCase();
          if (!OTHER_LANGUAGES.has(ext) || isTestName(e.name, ext, options)) continue;
          found.otherLanguages.set(ext, (found.otherLanguages.get(ext) ?? 0) + 1);
        }
      }
    }
  };
  for (const d of absDirs) walk(d);
  found.goModules.push(...enclosingModules(root, found.goModules));
  return found;
}

/**
 * The go.mod above the explored root (a sub-folder of a module was given), and the modules a go.work above it uses:
 * each is recorded as the module path of the root itself (`agones.dev/agones/pkg` for `pkg/` of `agones.dev/agones`),
 * so the module's own imports resolve to the explored folders.
 */
export function enclosingModules(root: string, below: GoModule[]): GoModule[] {
  if (below.some((m) => m.dir === "")) return [];
  const found: GoModule[] = [];
  // From the root itself: several sub-folders given make their common folder the root, and its go.mod was not walked.
  for (let dir = root, depth = 0; depth < 64; dir = path.dirname(dir), depth++) {
    const sub = path.relative(dir, root).split(path.sep).join("/");
    const enclosing = found.length === 0 ? modulePathAt(dir) : undefined;
    if (enclosing) found.push({ modulePath: sub ? `${enclosing}/${sub}` : enclosing, dir: "" });
    const work = path.join(dir, "go.work");
    if (isFile(work)) {
      for (const use of workspaceUses(readText(work, "go.work"))) {
        const useDir = path.resolve(dir, use);
        const rel = path.relative(useDir, root);
        // A used module holding the root: its path plus the root's place in it (modules below the root were walked).
        const modulePath = rel.startsWith("..") || path.isAbsolute(rel) ? undefined : modulePathAt(useDir);
        if (!modulePath) continue;
        const entry = { modulePath: rel ? `${modulePath}/${rel.split(path.sep).join("/")}` : modulePath, dir: "" };
        if (!found.some((m) => m.modulePath === entry.modulePath)) found.push(entry);
      }
    }
    if (dir === path.dirname(dir)) break;
  }
  return found;
}

/** The folders a go.work's `use` directives name (single lines and blocks). */
function workspaceUses(text: string): string[] {
  const uses: string[] = [];
  let inBlock = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    if (inBlock) {
      if (line === ")") inBlock = false;
      else if (line) uses.push(line.replace(/^"|"$/g, ""));
    } else if (/^use\s*\($/.test(line)) inBlock = true;
    else {
      const m = /^use\s+("?)([^"\s]+)\1/.exec(line);
      if (m) uses.push(m[2]!);
    }
  }
  return uses;
}

/** The module path of the go.mod in a folder above the explored one; none when there is none or it cannot be read. */
function modulePathAt(dir: string): string | undefined {
  const file = path.join(dir, "go.mod");
  try {
    return statSync(file).isFile() ? modulePathOf(file, "go.mod") : undefined;
  } catch {
    return undefined;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** A test file by its name (tests are skipped in every language unless asked for). */
function isTestName(name: string, ext: string, options: DiscoverOptions): boolean {
  if (options.includeTests) return false;
  const stem = name.slice(0, -ext.length);
  return /(^test_|_test$|[._-](test|spec)$|Tests?$)/.test(stem);
}

export function commonAncestor(dirs: string[]): string {
  let root = dirs[0]!;
  for (const d of dirs.slice(1))
    while (d !== root && !d.startsWith(root.endsWith(path.sep) ? root : root + path.sep)) root = path.dirname(root);
  return root;
}

/** The `module` line of a go.mod (its first directive). */
function modulePathOf(abs: string, file: string): string {
  const text = readText(abs, file);
  for (const line of text.split("\n")) {
    const m = /^\s*module\s+("?)([^"\s]+)\1/.exec(line);
    if (m) return m[2]!;
  }
  throw new ExploreInputError(`cannot read ${file}: no module directive`);
}

function packageOf(abs: string, file: string): TsPackage | undefined {
  let json: { name?: unknown; exports?: unknown; main?: unknown };
  try {
    json = JSON.parse(readText(abs, file)) as typeof json;
  } catch (error) {
    if (error instanceof ExploreInputError) throw error;
    throw new ExploreInputError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (typeof json.name !== "string") return undefined;
  const entries = new Map<string, string>();
  if (typeof json.main === "string") entries.set(".", json.main);
  if (json.exports && typeof json.exports === "object") {
    for (const [sub, target] of Object.entries(json.exports as Record<string, unknown>)) {
      const conditions =
        target !== null && typeof target === "object" ? (target as Record<string, unknown>) : undefined;
      const t = typeof target === "string" ? target : (conditions?.["default"] ?? conditions?.["import"]);
      if (typeof t === "string") entries.set(sub, t);
    }
  }
  return { name: json.name, dir: path.posix.dirname(file) === "." ? "" : path.posix.dirname(file), entries };
}

/** A go.mod or package.json: bounded like a source file, but a bad one stops the run (imports depend on it). */
function readText(abs: string, file: string): string {
  let size;
  try {
    size = statSync(abs).size;
  } catch {
    size = 0; // reading says why
  }
  if (size > MAX_SOURCE_BYTES)
    throw new ExploreInputError(`cannot read ${file}: ${megabytes(size)}; limit ${megabytes(MAX_SOURCE_BYTES)}`);
  try {
    return readFileSync(abs, "utf8");
  } catch (error) {
    throw new ExploreInputError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}
