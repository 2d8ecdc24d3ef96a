// What the Go and TypeScript readers say the same way about their different syntax trees: an expression on one line,
// the keyed arguments of a call, whether a call is in tail position.

/** An expression's text on one line, brackets without inner spaces, cut at 100 characters. */
export function oneLine(text: string): string {
  // Only the start is shown: a huge argument is not flattened whole at every level it is nested in.
  const flat = text
    .slice(0, 4000)
    .replace(/\s+/g, " ")
    .replace(/([([{]) /g, "$1")
    .replace(/,? ([)\]}])/g, "$1");
  return flat.length > 100 ? `${flat.slice(0, 97)}...` : flat;
}

/**
 * The keyed values among a call's arguments (`Name: "x"` in a Go composite literal, `{ name: "x" }` in TypeScript), by
 * key, the first of each key kept. `pairs` gives an argument's keys with their values' text as the report prints it.
 */
export function keyedIn<N>(
  args: readonly N[],
  pairs: (arg: N) => Iterable<readonly [key: string | undefined, value: () => string | undefined]>,
): Record<string, string> {
  const keyed: Record<string, string> = {};
  for (const a of args) {
    for (const [key, value] of pairs(a)) {
      if (key === undefined || key in keyed) continue;
      const text = value();
      if (text !== undefined) keyed[key] = text;
    }
  }
  return keyed;
}

/** How a syntax tree is walked upwards to tell whether a call is in tail position. */
export interface TailShape<N> {
  parent(node: N): N | undefined;
  /** Wrappers the call's value passes through unchanged (parentheses, await, an expression list). */
  passesThrough(node: N): boolean;
  /** Where the value ends: returned, or the statement itself. */
  endsAt(node: N): boolean;
}

/** The call's value is returned, or the call is the statement itself (seen through the wrappers of `shape`). */
export function isTail<N>(call: N, shape: TailShape<N>): boolean {
  let p = shape.parent(call);
  while (p && shape.passesThrough(p)) p = shape.parent(p);
  return !!p && shape.endsAt(p);
}
