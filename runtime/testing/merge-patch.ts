// RFC 7386 merge patch over plain JSON values, for the fake client (RFC 6902 JSON patches go to fast-json-patch).

import { ownField, setOwn } from "../json/own-property.js";

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
    else setOwn(out, k, applyMergePatch(ownField(out, k), v));
  }
  return out;
}
