// Go modules and packages: where an import path lives in the explored tree, and which files are Kubernetes libraries.
import path from "node:path";

export interface GoSource {
  /** Path relative to the explored root, "/"-separated. */
  file: string;
  text: string;
}

/** A go.mod found in the tree: its module path and the folder (relative, "" for the root) it sits in. */
export interface GoModule {
  modulePath: string;
  dir: string;
}

/** The slot prefix of a package: its folder (relative, "" for the root). */
export const pkgKeyOf = (dir: string) => `go:${dir}`;

/**
 * Modules whose informers, queues and handlers are the plumbing operators use, not an operator's own flow. They are
 * still read (values flow through them), but nothing in them is reported; their examples/ are operators and are.
 */
const LIBRARY_MODULES = new Set([
  "k8s.io/client-go",
  "sigs.k8s.io/controller-runtime",
  "k8s.io/apimachinery",
  "k8s.io/apiserver",
  "k8s.io/component-base",
  "k8s.io/utils",
]);

/** A file of one of the Kubernetes libraries (not their examples/): read, never reported. */
export function isLibraryFile(file: string, modules: GoModule[]): boolean {
  // Vendored copies have no go.mod of their own: vendor/<module path>/... names the module.
  const vendored = /(?:^|\/)vendor\/(.+)$/.exec(file)?.[1];
  if (vendored)
    return [...LIBRARY_MODULES].some(
      (m) => vendored.startsWith(`${m}/`) && !vendored.slice(m.length + 1).startsWith("examples/"),
    );
  // The innermost module holding the file decides.
  let best: GoModule | undefined;
  for (const m of modules) {
    const inside = m.dir === "" || file.startsWith(`${m.dir}/`);
    if (inside && (!best || m.dir.length > best.dir.length)) best = m;
  }
  if (!best || !LIBRARY_MODULES.has(best.modulePath)) return false;
  const rel = best.dir === "" ? file : file.slice(best.dir.length + 1);
  return !rel.startsWith("examples/");
}

/** The folder of an import path inside the explored tree, or undefined for packages from elsewhere. */
export function dirOfImport(importPath: string, modules: GoModule[]): string | undefined {
  for (const m of modules) {
    if (importPath === m.modulePath) return m.dir;
    if (importPath.startsWith(`${m.modulePath}/`))
      return path.posix.join(m.dir, importPath.slice(m.modulePath.length + 1));
  }
  return undefined;
}
