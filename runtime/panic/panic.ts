// What counts as a panic of a hook (a reconciler's or a webhook's). Go code returns errors and panics on bugs; a
// JavaScript hook throws both, so a panic is what the engine throws at a bug (a TypeError reading a property of
// undefined, a ReferenceError, ...) or a thrown value that is not an Error at all. Errors built on purpose stay
// errors: every other class, and a native error carrying a `cause` (fetch's network failure is a TypeError with
// one; the engine never sets a cause).
import { inspect } from "node:util";

const engineErrors: ReadonlySet<unknown> = new Set([
  TypeError,
  ReferenceError,
  RangeError,
  SyntaxError,
  EvalError,
  URIError,
]);

/** Whether thrown is a programming error rather than a failure the hook reported (controller-runtime's panic). */
export function isPanic(thrown: unknown): boolean {
  if (!(thrown instanceof Error)) return true;
  return engineErrors.has(thrown.constructor) && thrown.cause === undefined;
}

/** The panic's value as Go's %v would show it: an Error's "Name: message", anything else inspected. */
export function describePanic(thrown: unknown): string {
  return thrown instanceof Error ? String(thrown) : inspect(thrown);
}

/** controller-runtime's recovered panic: an ordinary error (`panic: <value> [recovered]`), requeued with backoff. */
export function recoveredPanic(thrown: unknown): Error {
  return new Error(`panic: ${describePanic(thrown)} [recovered]`, { cause: thrown });
}
