// "did you mean" for a misspelled name: the closest of the known names, when it is close enough to be a typo.

/**
 * Edits (insert, delete, substitute, swap two neighbours) from a to b: the optimal string alignment distance, so
 * "strnig" is one edit from "string". A case change counts as half an edit: "openAPIv3Schema" is close to
 * "openAPIV3Schema".
 */
export function editDistance(a: string, b: string): number {
  const cost = (x: string, y: string) => (x === y ? 0 : x.toLowerCase() === y.toLowerCase() ? 0.5 : 1);
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + cost(a[i - 1]!, b[j - 1]!));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The known name closest to `name`, if within a third of its length in edits (at least one edit); else undefined. */
export function closest(name: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** `; did you mean "x"?` for the closest known name, or "" when none is close. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const match = closest(name, known);
  return match === undefined ? "" : `; did you mean ${JSON.stringify(match)}?`;
}
