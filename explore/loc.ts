// Source locations as the reports and the linker print and order them.
import type { Loc } from "./facts.js";

/** `file:line`, or "library" for a place with no location in the explored sources. */
export function at(l: Loc | undefined): string {
  return l ? `${l.file}:${l.line}` : "library";
}

/** Source order: by file, then line; a place with no location comes last. */
export function locOrder(a: Loc | undefined, b: Loc | undefined): number {
  if (!a || !b) return a ? -1 : b ? 1 : 0;
  return a.file.localeCompare(b.file) || a.line - b.line;
}
