// TypeScript modules: what a module specifier names in the explored tree (relative paths, workspace packages) and each
// module's exports.
import path from "node:path";
import { Node, type SourceFile } from "ts-morph";
import type { Slot } from "../facts.js";

/** An npm package found in the tree: its name and folder (relative, "" for the root). */
export interface TsPackage {
  name: string;
  dir: string;
  /** The package's entry points as written in its package.json ("." → "./dist/index.js"). */
  entries: Map<string, string>;
}

/** The slot prefix of a module. */
export const moduleKey = (file: string) => `ts:${file}`;

export interface ExportTable {
  /** Names declared and exported here (possibly under another name): exported name → declared name. */
  own: Map<string, string>;
  /** `export { a as b } from "x"`: b → [module, a]. */
  named: Map<string, [string, string]>;
  /** `export * from "x"`. */
  stars: string[];
  /** `export * as ns from "x"`. */
  namespaces: Map<string, string>;
}

export class ModuleResolver {
  constructor(
    private readonly files: Set<string>,
    private readonly packages: TsPackage[],
  ) {}

  /** The explored file a module specifier means, or undefined for modules outside the tree. */
  resolve(fromFile: string, spec: string): string | undefined {
    if (spec.startsWith(".")) return this.asSource(path.posix.join(path.posix.dirname(fromFile), spec));
    for (const pkg of this.packages) {
      if (spec !== pkg.name && !spec.startsWith(`${pkg.name}/`)) continue;
      const sub = spec === pkg.name ? "." : `./${spec.slice(pkg.name.length + 1)}`;
      const candidates = [
        pkg.entries.get(sub),
        sub === "." ? "./index" : `${sub}/index`,
        sub === "." ? "./src/index" : `./src/${sub.slice(2)}/index`,
        sub,
      ];
      for (const c of candidates) {
        if (!c) continue;
        const stripped = c.replace(/^\.\/dist\//, "./").replace(/\.d\.ts$/, "");
        const found = this.asSource(path.posix.join(pkg.dir, stripped)) ?? this.asSource(path.posix.join(pkg.dir, c));
        if (found) return found;
      }
    }
    return undefined;
  }

  private asSource(p: string): string | undefined {
    const base = p.replace(/^\.\//, "").replace(/\.(m|c)?js$/, "");
    for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.mts`, `${base}/index.ts`])
      if (this.files.has(candidate)) return candidate;
    return undefined;
  }
}

/** What a module exports, as written (names, re-exports, `export *`). */
export function exportTable(sf: SourceFile, file: string, resolver: ModuleResolver): ExportTable {
  const table: ExportTable = { own: new Map(), named: new Map(), stars: [], namespaces: new Map() };
  for (const stmt of sf.getStatements()) {
    if (Node.isExportDeclaration(stmt)) {
      const spec = stmt.getModuleSpecifierValue();
      const target = spec ? resolver.resolve(file, spec) : undefined;
      const ns = stmt.getNamespaceExport()?.getName();
      if (spec && !stmt.hasNamedExports() && !ns) {
        if (target) table.stars.push(target);
      } else if (ns) {
        if (target) table.namespaces.set(ns, target);
      } else {
        for (const e of stmt.getNamedExports()) {
          const name = e.getName();
          const alias = e.getAliasNode()?.getText() ?? name;
          if (target) table.named.set(alias, [target, name]);
          else if (!spec) table.own.set(alias, name);
        }
      }
    } else if ((Node.isFunctionDeclaration(stmt) || Node.isClassDeclaration(stmt)) && stmt.isExported()) {
      const name = stmt.getName();
      if (name) table.own.set(stmt.isDefaultExport() ? "default" : name, name);
    } else if (Node.isVariableStatement(stmt) && stmt.isExported()) {
      for (const d of stmt.getDeclarations()) table.own.set(d.getName(), d.getName());
    }
  }
  return table;
}

/** What an exported name stands for: a package-level slot, or a whole module (`export * as name`, by its file). */
export type ExportTarget = { slot: Slot } | { namespace: string };

/** What an exported name of a module stands for, following re-exports. */
export function resolveExport(
  exports: Map<string, ExportTable>,
  file: string,
  name: string,
  seen = new Set<string>(),
): ExportTarget | undefined {
  if (seen.has(`${file}#${name}`)) return undefined;
  seen.add(`${file}#${name}`);
  const table = exports.get(file);
  if (!table) return undefined;
  const own = table.own.get(name);
  if (own) return { slot: `${moduleKey(file)}.${own}` };
  const named = table.named.get(name);
  if (named) return resolveExport(exports, named[0], named[1], seen);
  const namespace = table.namespaces.get(name);
  if (namespace !== undefined) return { namespace };
  for (const star of table.stars) {
    const found = resolveExport(exports, star, name, seen);
    if (found) return found;
  }
  return undefined;
}
