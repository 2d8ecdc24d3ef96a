// cdk8s import over every CRD file in one process, for bench/generate.ts: the CLI takes one spec per invocation,
// so this calls what its import command calls (importDispatch) once per file, each into the file's own folder (where
// the type-check maps errors back to it); crashes are caught per file.
//   node dist/bench/generate-cdk8s.js <files.json> <out dir> <peers dir>
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type CorpusFile, type Crash, crashOf, peerArgs } from "./peer-run.js";

// The two functions of cdk8s-cli's import command it calls (the peers are installed outside the repo, untyped).
interface ImportSpec {
  readonly source: string;
}
interface Cdk8sImport {
  importDispatch: (
    imports: ImportSpec[],
    argv: object,
    options: { outdir: string; targetLanguage: "typescript"; save: boolean },
  ) => Promise<void>;
}
interface Cdk8sUtil {
  parseImports: (spec: string) => ImportSpec;
}

const { listFile, outDir, peersDir } = peerArgs(process.argv.slice(2));
// Not in cdk8s-cli's package exports: required by path.
const require = createRequire(path.join(peersDir, "package.json"));
const cli = path.join(peersDir, "node_modules", "cdk8s-cli", "lib");
const { importDispatch } = require(path.join(cli, "import", "dispatch.js")) as Cdk8sImport;
const { parseImports } = require(path.join(cli, "util.js")) as Cdk8sUtil;
const files = JSON.parse(readFileSync(listFile, "utf8")) as CorpusFile[];
const crashes: Crash[] = [];
for (const file of files) {
  try {
    const outdir = path.join(outDir, file.dir);
    mkdirSync(outdir, { recursive: true });
    await importDispatch([parseImports(file.path)], {}, { outdir, targetLanguage: "typescript", save: false });
  } catch (error) {
    crashes.push(crashOf(file, error));
  }
}
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, "crashes.json"), JSON.stringify(crashes));
