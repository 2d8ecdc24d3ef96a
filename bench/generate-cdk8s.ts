// cdk8s import over every CRD file in one process, for bench/generate.mjs: the CLI takes one spec per invocation,
// so this calls what its import command calls (importDispatch) once per file, each into the file's own folder (where
// the type-check maps errors back to it); crashes are caught per file.
//   node bench/generate-cdk8s.mjs <files.json> <out dir> <peers dir>
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [listFile, outDir, peersDir] = process.argv.slice(2);
// Not in cdk8s-cli's package exports: required by path.
const require = createRequire(path.join(peersDir, "package.json"));
const cli = path.join(peersDir, "node_modules", "cdk8s-cli", "lib");
const { importDispatch } = require(path.join(cli, "import", "dispatch.js"));
const { parseImports } = require(path.join(cli, "util.js"));
const files = JSON.parse(readFileSync(listFile, "utf8"));
const crashes = [];
for (const file of files) {
  try {
    const outdir = path.join(outDir, file.dir);
    mkdirSync(outdir, { recursive: true });
    await importDispatch([parseImports(file.path)], {}, { outdir, targetLanguage: "typescript", save: false });
  } catch (error) {
    crashes.push({ file: file.name, error: String(error?.message ?? error).slice(0, 300) });
  }
}
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, "crashes.json"), JSON.stringify(crashes));
