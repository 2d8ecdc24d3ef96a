// `crdgen explore`: find the sources, read them with the Go and TypeScript readers, and link the facts into flows.
import { discover, readText, type DiscoverOptions } from "./discover.js";
import { emptyFacts, mergeFacts } from "./facts.js";
import { readGo } from "./go/read.js";
import { link } from "./link/linker.js";
import type { ExploreResult } from "./model.js";
import { readTs } from "./ts/read.js";

export async function explore(dirs: string[], options: DiscoverOptions = {}): Promise<ExploreResult> {
  const found = discover(dirs, options);
  const facts = emptyFacts();
  const warnings: string[] = [];
  if (found.go.length) {
    const sources = found.go.map((f) => ({ file: f.file, text: readText(f.abs, f.file) }));
    const goFacts = await readGo(sources, found.goModules);
    warnings.push(...goFacts.warnings);
    mergeFacts(facts, goFacts);
  }
  if (found.ts.length) {
    const sources = found.ts.map((f) => ({ file: f.file, text: readText(f.abs, f.file) }));
    const tsFacts = readTs(sources, found.tsPackages);
    warnings.push(...tsFacts.warnings);
    mergeFacts(facts, tsFacts);
  }
  const { controllers, unlinked } = link(facts);
  return { roots: dirs, files: { go: found.go.length, ts: found.ts.length }, controllers, unlinked, warnings };
}
