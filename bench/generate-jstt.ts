// json-schema-to-typescript alone on the raw schemas, for bench/generate.mjs: one .ts per CRD version with its
// openAPIV3Schema compiled by compile() with the given options (default format: false); crashes are caught per file.
//   node bench/generate-jstt.mjs <files.json> <out dir> <peers dir> [options as JSON]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import jsYaml from "js-yaml";

const [listFile, outDir, peersDir, optionsJson] = process.argv.slice(2);
const options = JSON.parse(optionsJson ?? '{"format":false}');
const { compile } = createRequire(path.join(peersDir, "package.json"))("json-schema-to-typescript");
const files = JSON.parse(readFileSync(listFile, "utf8"));
const crashes = [];
for (const file of files) {
  try {
    const parts = new Map();
    for (const crd of jsYaml.loadAll(readFileSync(file.path, "utf8"))) {
      if (crd?.kind !== "CustomResourceDefinition") continue;
      for (const version of crd.spec.versions ?? []) {
        const schema = version.schema?.openAPIV3Schema;
        if (!schema) continue;
        const name = `${crd.spec.names.kind}${version.name[0].toUpperCase()}${version.name.slice(1)}`;
        // One module per version: the versions' nested types share names.
        parts.set(version.name, await compile(structuredClone(schema), name, { ...options, bannerComment: "" }));
      }
    }
    mkdirSync(path.join(outDir, file.dir), { recursive: true });
    for (const [version, text] of parts) writeFileSync(path.join(outDir, file.dir, `${version}.ts`), text);
  } catch (error) {
    crashes.push({ file: file.name, error: String(error?.message ?? error).slice(0, 300) });
  }
}
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, "crashes.json"), JSON.stringify(crashes));
