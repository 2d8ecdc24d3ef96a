// Reads TypeScript sources with ts-morph into the neutral facts. Imports are followed through relative paths and
// through
// the npm packages found in the explored tree (a workspace such as @crdgen/runtime), re-exports included.
// The file reader is one class in layers, a file each: reader-base → calls → expressions → declarations (TsFileReader);
// a layer calls later ones through the base's abstract expr/visit/functionLike.
import { Project, type SourceFile } from "ts-morph";
import { type Facts, emptyFacts, mergeFacts } from "../facts.js";
import { isStackOverflow } from "../screen.js";
import { TsFileReader } from "./declarations.js";
import { type ExportTable, ModuleResolver, type TsPackage, exportTable } from "./modules.js";

export interface TsSource {
  file: string;
  text: string;
}

export function readTs(sources: TsSource[], packages: TsPackage[]): Facts {
  const project = new Project({
    useInMemoryFileSystem: true,
    skipLoadingLibFiles: true,
    compilerOptions: { allowJs: false },
  });
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
  const resolver = new ModuleResolver(new Set(files.keys()), packages);
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
      new TsFileReader(file, sf, fileFacts, resolver, exports).read();
    } catch (error) {
      if (!isStackOverflow(error)) throw error;
      facts.warnings.push(`${file}: too deeply nested to read (the call stack ran out); skipped`);
      continue;
    }
    mergeFacts(facts, fileFacts);
  }
  return facts;
}
