// Equality of JSON values as the API server sees them: what JSON.stringify would send, decoded and compared as Go's
// reflect.DeepEqual compares decoded JSON. Object key order does not matter; a property whose value is undefined is
// the same as a missing one (JSON.stringify drops it), and an undefined array item is null (it is sent as null).

type JsonObject = Record<string, unknown>;

const isPlainObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const item = (v: unknown) => (v === undefined ? null : v);

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(item(v), item(b[i])));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a).filter((k) => a[k] !== undefined);
  let bKeys = 0;
  for (const k in b) if (Object.prototype.hasOwnProperty.call(b, k) && b[k] !== undefined) bKeys++;
  return keys.length === bKeys && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k], b[k]));
}
