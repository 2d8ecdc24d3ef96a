// Reads TypeScript sources with ts-morph into the neutral facts: the files that can take part in a flow (closure.ts).
// Imports are followed through relative paths and
// through
// the npm packages found in the explored tree (a workspace such as @crdgen/runtime), re-exports included.
// The file reader is one class in layers, a file each: reader-base → calls → expressions → declarations (TsFileReader);
// a layer calls later ones through the base's abstract expr/visit/functionLike.
import path from "node:path";
import { Project, type SourceFile, ts } from "ts-morph";
import { type Facts, emptyFacts, mergeFacts } from "../facts.js";
import { isStackOverflow } from "../screen.js";
import { declaresGlobals, filesThatCanTakePart } from "./closure.js";
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
  const facts = emptyFacts();
  const { files, alone } = parseAll(sources, resolver, facts);
  const types = new TsTypes(
    (file) => packageOf(file, packages),
    (from, spec) => resolver.resolve(from, spec) !== undefined,
  );
  const shapes = new TypedShapes(types);
  const exports = new Map<string, ExportTable>();
  for (const [file, sf] of files) exports.set(file, exportTable(sf, file, resolver));
  for (const s of sources) {
    const parsed = files.get(s.file)?.compilerNode ?? alone.get(s.file);
    if (parsed && parsed !== TOO_DEEP) syntaxWarning(s.file, parsed, facts);
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

const TOO_DEEP = "too deep";

/**
 * The files to read, in the type-checked project, and those that cannot take part (closure.ts) parsed alone, for the
 * same warnings. One of those declaring globals could change how the others type-check: then every file is read.
 */
function parseAll(
  sources: TsSource[],
  resolver: ModuleResolver,
  facts: Facts,
): { files: Map<string, SourceFile>; alone: Map<string, ts.SourceFile | typeof TOO_DEEP> } {
  const taking = filesThatCanTakePart(sources, resolver);
  const alone = new Map<string, ts.SourceFile | typeof TOO_DEEP>();
  for (const s of sources) if (!taking.has(s.file)) alone.set(s.file, parseAlone(s));
  if ([...alone.values()].some((sf) => sf !== TOO_DEEP && declaresGlobals(sf))) alone.clear();
  const project = typedProject(resolver);
  const files = new Map<string, SourceFile>();
  const tooDeep = (file: string) =>
    facts.warnings.push(`${file}: too deeply nested for the TypeScript parser (the call stack ran out); skipped`);
  for (const s of sources) {
    const parsedAlone = alone.get(s.file);
    if (parsedAlone === TOO_DEEP) tooDeep(s.file);
    if (parsedAlone) continue;
    try {
      files.set(s.file, project.createSourceFile(`/${s.file}`, s.text, { overwrite: true }));
    } catch (error) {
      // The bracket count screens out most deep files; this catches a depth it does not see (a long chain of arrows).
      if (!isStackOverflow(error)) throw error;
      tooDeep(s.file);
    }
  }
  return { files, alone };
}

/** A file parsed by itself (as the project would parse it), or TOO_DEEP when the parser ran out of stack. */
function parseAlone(source: TsSource): ts.SourceFile | typeof TOO_DEEP {
  try {
    return ts.createSourceFile(`/${source.file}`, source.text, ts.ScriptTarget.ES2022, true);
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
    return TOO_DEEP;
  }
}

function syntaxWarning(file: string, parsed: ts.SourceFile, facts: Facts): void {
  const diagnostics = (parsed as unknown as { parseDiagnostics?: { start?: number }[] }).parseDiagnostics ?? [];
  if (diagnostics.length)
    facts.warnings.push(
      `${file}:${parsed.getLineAndCharacterOfPosition(diagnostics[0]!.start ?? 0).line + 1}: TypeScript syntax error; the rest of the file was read as far as the parser could`,
    );
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
