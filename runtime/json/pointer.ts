// RFC 6901 JSON Pointers: "~" and "/" inside a segment are written "~0" and "~1" (in that order, so "~1" in a key
// stays itself), and read back in the reverse order.

/** One segment as it appears in a pointer, e.g. `app.kubernetes.io/name` → `app.kubernetes.io~1name`. */
export function escapePointerSegment(segment: string | number): string {
  const s = String(segment);
  return /[~/]/.test(s) ? s.replace(/~/g, "~0").replace(/\//g, "~1") : s;
}

/** The raw key or index of one pointer segment: the inverse of escapePointerSegment. */
export function unescapePointerSegment(segment: string): string {
  return segment.includes("~") ? segment.replace(/~1/g, "/").replace(/~0/g, "~") : segment;
}

/** A JSON pointer from raw segments, e.g. jsonPointer("metadata", "labels", "a/b") → "/metadata/labels/a~1b". */
export function jsonPointer(...segments: Array<string | number>): string {
  return segments.map((s) => "/" + escapePointerSegment(s)).join("");
}

/** The raw segments of a pointer ("" is the whole document). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`a JSON pointer starts with "/": ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split("/").map(unescapePointerSegment);
}
