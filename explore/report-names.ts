// How the reports name functions: a closure is named after what it does, not after where it is written.
import type { Worker } from "./model.js";

/** A function literal or arrow function (`func literal in (*Controller).Run`, `addFunc (arrow)`), not a named one. */
export function isAnonymous(name: string): boolean {
  return name.startsWith("func literal") || name.startsWith("arrow function") || name.endsWith(" (arrow)");
}

/**
 * The name that says which worker this is: the loop's own name, or when the loop is a closure (`go func() { for
 * c.processNextItem() {} }()` in Run) the function that takes the keys, or else the one they are handed to.
 */
export function workerName(w: Worker): string {
  const named = [w.loop, w.getter, w.process].find((p) => p && !isAnonymous(p.name));
  return named?.name ?? w.loop.name;
}
