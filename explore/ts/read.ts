// Reads TypeScript sources with ts-morph into the neutral facts. Imports are followed through relative paths and
// through
// the npm packages found in the explored tree (a workspace such as @crdgen/runtime), re-exports included.
// The file reader is one class in layers, a file each: reader-base → calls → expressions → declarations (TsFileReader);
// a layer calls later ones through the base's abstract expr/visit/functionLike.
import path from "node:path";
import { Project, type SourceFile, ts } from "ts-morph";
import { type Facts, emptyFacts, mergeFacts } from "../facts.js";
import { isStackOverflow } from "../screen.js";
import { TsFileReader } from "./declarations.js";
import { type ExportTable, ModuleResolver, type TsPackage, exportTable } from "./modules.js";
import { TypedShapes } from "./typed-shapes.js";
import { TsTypes } from "./types.js";

export interface TsSource {
  file: string;
  text: string;
}

export function readTs(sources: TsSource[], packages: TsPackage[]): Facts {
  const resolver = new ModuleResolver(new Set(sources.map((s) => s.file)), packages);
  const project = typedProject(resolver);
  const facts = emptyFacts();
  const files = new Map<string, SourceFile>();
  for (const s of sources) {
    try {
      files.set(s.file, project.createSourceFile(`/${s.file}`, s.text, { overwrite: true }));
    } catch (error) {
      // The bracket count screens out most deep files; this catches a depth it does not see (a long chain of arrows).
      if (!isStackOverflow(error)) throw error;
      facts.warnings.push(`${s.file}: too deeply nested for the TypeScript parser (the call stack ran out); skipped`);
    }
  }
  const types = new TsTypes(
    (file) => packageOf(file, packages),
    (from, spec) => resolver.resolve(from, spec) !== undefined,
  );
  const shapes = new TypedShapes(types);
  const exports = new Map<string, ExportTable>();
  for (const [file, sf] of files) exports.set(file, exportTable(sf, file, resolver));
  for (const [file, sf] of files) {
    const diagnostics =
      (sf.compilerNode as unknown as { parseDiagnostics?: { start?: number }[] }).parseDiagnostics ?? [];
    if (diagnostics.length)
      facts.warnings.push(
        `${file}:${sf.getLineAndColumnAtPos(diagnostics[0]!.start ?? 0).line}: TypeScript syntax error; the rest of the file was read as far as the parser could`,
      );
  }
  for (const [file, sf] of files) {
    // A file's facts join the others only once it is read through: a file abandoned half-way leaves nothing behind.
    const fileFacts = emptyFacts();
    try {
      new TsFileReader(file, sf, fileFacts, resolver, exports, shapes).read();
    } catch (error) {
      if (!isStackOverflow(error)) throw error;
      facts.warnings.push(`${file}: too deeply nested to read (the call stack ran out); skipped`);
      continue;
    }
    mergeFacts(facts, fileFacts);
  }
  return facts;
}

/**
 * An in-memory project whose imports resolve as explore's own resolver resolves them (relative paths and the workspace
 * packages of the tree), so that the type checker sees across the explored files; other modules stay unresolved and
 * their types are read from the declarations as written (types.ts).
 */
function typedProject(resolver: ModuleResolver): Project {
  return new Project({
    useInMemoryFileSystem: true,
    skipLoadingLibFiles: true,
    compilerOptions: { allowJs: false, noLib: true, strict: true, target: ts.ScriptTarget.ES2022 },
    resolutionHost: () => ({
      resolveModuleNames: (names, containingFile) =>
        names.map((spec) => {
          const file = resolver.resolve(containingFile.replace(/^\//, ""), spec);
          if (!file) return undefined;
          const extension =
            { ".tsx": ts.Extension.Tsx, ".mts": ts.Extension.Mts }[path.extname(file)] ?? ts.Extension.Ts;
          return { resolvedFileName: `/${file}`, extension, isExternalLibraryImport: false };
        }),
    }),
  });
}

/** The workspace package an explored file belongs to (the deepest package folder holding it). */
function packageOf(file: string, packages: TsPackage[]): string | undefined {
  let best: TsPackage | undefined;
  for (const p of packages)
    if ((p.dir === "" || file.startsWith(`${p.dir}/`)) && (!best || p.dir.length > best.dir.length)) best = p;
  return best?.name;
}
