// json-schema-to-typescript alone on the raw schemas, for bench/generate.ts: one .ts per CRD version with its
// openAPIV3Schema compiled by compile() with the given options (default format: false); crashes are caught per file.
//   node dist/bench/generate-jstt.js <files.json> <out dir> <peers dir> [options as JSON]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import jsYaml from "js-yaml";
import { type CorpusFile, type Crash, crashOf, peerArgs } from "./peer-run.js";

/** The one function of json-schema-to-typescript it calls (the peers are installed outside the repo, untyped). */
interface Jstt {
  compile: (schema: object, name: string, options: Record<string, unknown>) => Promise<string>;
}

/** The parts of a CRD it reads. */
interface Crd {
  kind?: string;
  spec: { names: { kind: string }; versions?: { name: string; schema?: { openAPIV3Schema?: object } }[] };
}

const args = peerArgs(process.argv.slice(2));
const options = JSON.parse(args.options ?? '{"format":false}') as Record<string, unknown>;
const { compile } = createRequire(path.join(args.peersDir, "package.json"))("json-schema-to-typescript") as Jstt;
const files = JSON.parse(readFileSync(args.listFile, "utf8")) as CorpusFile[];
const crashes: Crash[] = [];
for (const file of files) {
  try {
    const parts = new Map<string, string>();
    for (const crd of jsYaml.loadAll(readFileSync(file.path, "utf8")) as (Crd | null | undefined)[]) {
      if (crd?.kind !== "CustomResourceDefinition") continue;
      for (const version of crd.spec.versions ?? []) {
        const schema = version.schema?.openAPIV3Schema;
        if (!schema) continue;
        const name = `${crd.spec.names.kind}${version.name.charAt(0).toUpperCase()}${version.name.slice(1)}`;
        // One module per version: the versions' nested types share names.
        parts.set(version.name, await compile(structuredClone(schema), name, { ...options, bannerComment: "" }));
      }
    }
    mkdirSync(path.join(args.outDir, file.dir), { recursive: true });
    for (const [version, text] of parts) writeFileSync(path.join(args.outDir, file.dir, `${version}.ts`), text);
  } catch (error) {
    crashes.push(crashOf(file, error));
  }
}
mkdirSync(args.outDir, { recursive: true });
writeFileSync(path.join(args.outDir, "crashes.json"), JSON.stringify(crashes));
