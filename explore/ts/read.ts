// Reads TypeScript sources with ts-morph into the neutral facts. Imports are followed through relative paths and
// through
// the npm packages found in the explored tree (a workspace such as @crdgen/runtime), re-exports included.
// The file reader is one class in layers, a file each: reader-base → calls → expressions → declarations (TsFileReader);
// a layer calls later ones through the base's abstract expr/visit/functionLike.
import { Project, type SourceFile } from "ts-morph";
import { type Facts, emptyFacts } from "../facts.js";
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
  const files = new Map<string, SourceFile>();
  for (const s of sources) files.set(s.file, project.createSourceFile(`/${s.file}`, s.text, { overwrite: true }));
  const resolver = new ModuleResolver(new Set(files.keys()), packages);
  const exports = new Map<string, ExportTable>();
  for (const [file, sf] of files) exports.set(file, exportTable(sf, file, resolver));
  const facts = emptyFacts();
  for (const [file, sf] of files) {
    const diagnostics =
      (sf.compilerNode as unknown as { parseDiagnostics?: { start?: number }[] }).parseDiagnostics ?? [];
    if (diagnostics.length)
      facts.warnings.push(
        `${file}:${sf.getLineAndColumnAtPos(diagnostics[0]!.start ?? 0).line}: TypeScript syntax error; the rest of the file was read as far as the parser could`,
      );
  }
  for (const [file, sf] of files) new TsFileReader(file, sf, facts, resolver, exports).read();
  return facts;
}
