// Where the API server's JSON becomes values: every body, list element and watch event the HTTP client decodes goes
// through parseJson, and its metadata through metaStringProblem.

/**
 * JSON.parse, with what that means for big integers spelled out.
 *
 * Numbers: an integer beyond 2^53 (Number.MAX_SAFE_INTEGER) becomes the nearest double, as with client-node and any
 * JSON.parse: 9007199254740993 reads as 9007199254740992, a 20-digit number keeps its first 15 to 17 significant digits,
 * and writing the object back sends the rounded value. Kubernetes' int64 fields (generation, observedGeneration, a
 * CRD's `type: integer` fields) are exact up to 2^53; a CRD that needs more should use a string (or int-or-string).
 *
 * Strings are never number-parsed: a resourceVersion, continue token, uid or 20-digit string field keeps every
 * character, and the runtime passes a resourceVersion back to the server as the text it got. A server that sends one
 * of the metadata strings as a bare number would have it rounded silently, so metaStringProblem rejects that response
 * instead, as client-go's decoder rejects a number for a string field.
 */
export function parseJson(text: string): unknown {
  return JSON.parse(text);
}

// ObjectMeta's and ListMeta's string fields the runtime keys objects on or sends back to the server.
const META_STRINGS = ["name", "generateName", "namespace", "uid", "resourceVersion", "continue"] as const;

/**
 * Why a decoded object (or list, or Status) cannot be used: one of its metadata strings is something else, e.g.
 * `metadata.resourceVersion is a number, not a string`; undefined when it is fine. `at` prefixes the path
 * (`items[3].`, `object.`). A list's items are checked too.
 */
export function metaStringProblem(value: unknown, at = ""): string | undefined {
  const problem = ownMetaProblem(value, at);
  if (problem !== undefined) return problem;
  const items = (value as { items?: unknown } | null | undefined)?.items;
  if (!Array.isArray(items)) return undefined;
  for (let i = 0; i < items.length; i++) {
    const p = ownMetaProblem(items[i], `${at}items[${i}].`);
    if (p !== undefined) return p;
  }
  return undefined;
}

function ownMetaProblem(value: unknown, at: string): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const meta = (value as { metadata?: unknown }).metadata;
  if (meta === null || typeof meta !== "object") return undefined;
  for (const key of META_STRINGS) {
    const v = (meta as Record<string, unknown>)[key];
    if (v === undefined || v === null || typeof v === "string") continue;
    const kind = Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`;
    const rounded = typeof v === "number" && !Number.isSafeInteger(v) ? " (and a number this large loses digits)" : "";
    return `${at}metadata.${key} is ${kind}, not a string${rounded}`;
  }
  return undefined;
}
