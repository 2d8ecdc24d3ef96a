// Lines and columns of positions in one TypeScript file, counted as ts-morph counts them (a line ends at "\n"; a
// column starts after the last "\n" or "\r"), by binary search over the breaks found once: ts-morph scans the text from
// its start at every question, which made the reader quadratic in a file's length.

export class LineIndex {
  /** Positions of "\n". */
  private readonly newlines: number[] = [];
  /** Positions just after a "\n" or "\r": where a column counts from. */
  private readonly lineStarts: number[] = [];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.newlines.push(i);
      if (c === 10 || c === 13) this.lineStarts.push(i + 1);
    }
  }

  /** The 1-based line of a position (ts-morph's getStartLineNumber of a node starting there). */
  line(pos: number): number {
    return countBelow(this.newlines, pos) + 1;
  }

  /** The 1-based line and column of a position (ts-morph's SourceFile.getLineAndColumnAtPos). */
  lineAndColumn(pos: number): { line: number; column: number } {
    const starts = countBelow(this.lineStarts, pos + 1);
    return { line: this.line(pos), column: pos - (starts ? this.lineStarts[starts - 1]! : 0) + 1 };
  }
}

/** How many of the sorted numbers are below `pos`. */
function countBelow(sorted: number[], pos: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
