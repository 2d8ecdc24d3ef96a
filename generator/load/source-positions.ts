// Where a JSON pointer of a parsed document is in its file: the line and column of the key (or sequence item) it ends
// at. Only the error and warning paths ask, after the fast parse found the problem: the file is parsed again here, by
// the yaml package, which keeps every node's range.
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node } from "yaml";
import { InputError, withPosition, type InputLocation } from "../input-error.js";

export interface Position {
  line: number;
  column: number;
}

/** Finds positions in the texts the locations name; each file is parsed at most once. */
export class SourcePositions {
  private readonly parsed = new Map<string, { documents: Array<Node | null>; lines: LineCounter } | undefined>();

  constructor(private readonly texts: ReadonlyArray<{ file: string; text: string }>) {}

  /**
   * The position of the pointer's last segment that exists: the key itself, or the nearest enclosing key when a
   * required field is missing. Undefined without a document index or a pointer, or when the file was not an input.
   */
  of({ file, documentIndex, schemaPath }: InputLocation): Position | undefined {
    if (documentIndex === undefined || schemaPath === undefined) return undefined;
    const source = this.parse(file);
    const root = source?.documents[documentIndex];
    if (!source || !root) return undefined;
    const offset = offsetOf(root, schemaPath);
    if (offset === undefined) return undefined;
    const { line, col } = source.lines.linePos(offset);
    return { line, column: col };
  }

  /** Each location with its line and column added, where it has a position. */
  locateAll<T extends InputLocation>(locations: T[]): T[] {
    return locations.map((l) => (l.line === undefined ? { ...l, ...this.of(l) } : l));
  }

  /** The error with its line and column added, when the location has a position. */
  locate(error: InputError): InputError {
    return error.location.line === undefined ? withPosition(error, this.of(error.location)) : error;
  }

  private parse(file: string) {
    if (!this.parsed.has(file)) {
      const text = this.texts.find((t) => t.file === file)?.text;
      const lines = new LineCounter();
      const documents =
        text === undefined
          ? undefined
          : { documents: parseDocuments(text, lines).map((d) => d.contents as Node | null), lines };
      this.parsed.set(file, documents);
    }
    return this.parsed.get(file);
  }
}

function parseDocuments(text: string, lineCounter: LineCounter) {
  const documents = parseAllDocuments(text, { version: "1.2", lineCounter });
  return Array.isArray(documents) ? documents : [];
}

/** RFC 6901: "/a/b~1c" -> ["a", "b/c"]. */
const segmentsOf = (schemaPath: string): string[] =>
  schemaPath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));

/** The offset in the text of the node the pointer names (its key in a mapping), or of its nearest ancestor. */
function offsetOf(root: Node, schemaPath: string): number | undefined {
  let node: Node | null = root;
  let offset = root.range?.[0];
  for (const segment of segmentsOf(schemaPath)) {
    if (node === null || isAlias(node)) break;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
      if (!pair) break;
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)] as Node | undefined;
      if (!item || !/^\d+$/.test(segment)) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return offset;
}
