// RFC 7386 merge patch over plain JSON values, for the fake client (RFC 6902 JSON patches go to fast-json-patch).

type Json = unknown;

/** RFC 7386: objects merge recursively, null deletes, everything else (arrays included) replaces. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return structuredClone(patch);
  const out: Record<string, Json> =
    target !== null && typeof target === "object" && !Array.isArray(target)
      ? { ...(target as Record<string, Json>) }
      : {};
  for (const [k, v] of Object.entries(patch as Record<string, Json>)) {
    if (v === null) Reflect.deleteProperty(out, k);
    // defineProperty: assigning the key __proto__ would set the prototype and lose the field.
    else
      Object.defineProperty(out, k, {
        value: applyMergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}
