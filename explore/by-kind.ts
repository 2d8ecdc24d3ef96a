// `--kind <Kind>`: the result narrowed to the flows of one watched kind, for every output format.
import { ExploreInputError } from "./discover.js";
import type { ExploreResult } from "./model.js";

/** The watched kinds of a result, sorted; kinds only known at run time last. */
export function kindsOf(result: ExploreResult): string[] {
  const kinds = new Set(result.controllers.flatMap((c) => c.sources.map((s) => s.kind)));
  return [...kinds].sort((a, b) => Number(a.startsWith("(")) - Number(b.startsWith("(")) || a.localeCompare(b));
}

/**
 * Only the sources of `kind` and the controllers that watch it. A kind written in another case matches when it is the
 * only one that does (`widget` for `Widget`); an unknown kind is the user's to fix, so the error lists what was found.
 */
export function filterByKind(result: ExploreResult, kind: string): ExploreResult {
  const kinds = kindsOf(result);
  const folded = kinds.filter((k) => k.toLowerCase() === kind.toLowerCase());
  const match = kinds.includes(kind) ? kind : folded.length === 1 ? folded[0] : undefined;
  if (match === undefined) {
    const found = kinds.length ? `the watched kinds are: ${kinds.join(", ")}` : "no watched kind was found";
    throw new ExploreInputError(`--kind ${kind}: no flow of kind "${kind}" in ${result.roots.join(" ")}; ${found}`);
  }
  const controllers = result.controllers.flatMap((c) => {
    const sources = c.sources.filter((s) => s.kind === match);
    return sources.length ? [{ ...c, sources }] : [];
  });
  return { ...result, controllers, onlyKind: { kind: match, kindsFound: kinds.length } };
}
