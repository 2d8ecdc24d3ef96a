// `crdgen explore`: find the sources, screen them, read them with the Go and TypeScript readers, and link the facts
// into flows.
import path from "node:path";
import { type Discovered, discover, type DiscoverOptions, type SourceFile } from "./discover.js";
import { emptyFacts, type Facts, mergeFacts } from "./facts.js";
import type { GoSource } from "./go/modules.js";
import { readGo } from "./go/read.js";
import { type GoTypeFacts, readGoTypes } from "./go/typed.js";
import { link } from "./link/linker.js";
import type { ExploreResult } from "./model.js";
import { screenSource } from "./screen.js";
import { readTs } from "./ts/read.js";

export async function explore(dirs: string[], options: DiscoverOptions = {}): Promise<ExploreResult> {
  const found = discover(dirs, options);
  const facts = emptyFacts();
  const warnings: string[] = [...found.warnings];
  const go = screenAll(found.go, "go", warnings);
  const ts = screenAll(found.ts, "ts", warnings);
  // The type checker runs in its own process while the sources are parsed here.
  const typing =
    go.length && options.goTypes
      ? readGoTypes(
          dirs.map((d) => path.resolve(d)),
          found.root,
        )
      : undefined;
  typing?.catch(() => undefined);
  for (const read of await readSources(go, ts, found, options.goWorkers)) {
    warnings.push(...read.warnings);
    mergeFacts(facts, read);
  }
  let goTypes: GoTypeFacts | undefined;
  let goFrontEnd: string | undefined;
  if (typing) {
    const typed = await typing;
    goTypes = typed.ok ? typed.facts : undefined;
    goFrontEnd = typed.ok
      ? `Go types from go/packages (${typed.packages} package(s)${typed.errors.length ? `, ${typed.errors.length} with type errors` : ""})`
      : `Go read by syntax only: ${typed.reason}`;
  }
  if (goTypes) applyTypes(facts, goTypes);
  const { controllers, unlinked } = link(facts, goTypes);
  const notRead = [...found.otherLanguages]
    .map(([extension, files]) => ({ extension, files }))
    .sort((a, b) => b.files - a.files || a.extension.localeCompare(b.extension));
  return {
    roots: dirs,
    files: { go: go.length, ts: ts.length },
    ...(goFrontEnd ? { goFrontEnd } : {}),
    ...(notRead.length ? { notRead } : {}),
    controllers,
    unlinked,
    warnings,
  };
}

/**
 * What only types tell, written into the syntax reader's facts: an informer made from a GroupVersionResource whose
 * kind its resource constant names, or by a helper given the object (each call its own informer, of the kind passed
 * there, the helper's own constructor call none), and a wrapper's AddEventHandler handing its parameter on (no
 * registration of its own: the wrapper's callers are).
 */
function applyTypes(facts: Facts, goTypes: GoTypeFacts): void {
  for (const call of facts.calls) {
    const kind = goTypes.informerKinds.get(call.id);
    if (kind && (!call.informer || call.informer.kind === "?"))
      call.informer = { ...(call.informer ?? { via: call.text.replace(/\($/, "") }), kind };
    if (goTypes.forwarded.has(call.id)) delete call.recv;
    if (goTypes.perCallInformers.has(call.id)) delete call.informer;
  }
}

/** Many Go files are read on worker threads while TypeScript is read here; the facts come Go first, as ever. */
async function readSources(go: GoSource[], ts: GoSource[], found: Discovered, workers?: number): Promise<Facts[]> {
  const busyHere = ts.reduce((sum, s) => sum + s.text.length, 0);
  const goReading = go.length
    ? readGo(go, found.goModules, { busyHere, ...(workers === undefined ? {} : { workers }) })
    : undefined;
  goReading?.catch(() => undefined);
  const tsFacts = ts.length ? readTs(ts, found.tsPackages) : undefined;
  return [await goReading, tsFacts].filter((read): read is Facts => read !== undefined);
}

/** The files fit to parse; each one skipped adds its warning. */
function screenAll(files: SourceFile[], lang: "go" | "ts", warnings: string[]): { file: string; text: string }[] {
  const sources: { file: string; text: string }[] = [];
  for (const f of files) {
    const screened = screenSource(f, lang);
    if (screened.ok) sources.push({ file: screened.file, text: screened.text });
    else warnings.push(screened.warning);
  }
  return sources;
}
