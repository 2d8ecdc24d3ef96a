// A stable digest of configuration, put on a pod template annotation so that a config change rolls the pods
// (the "config hash" pattern) while anything else leaves the template, and the pods, alone.
import { createHash } from "node:crypto";

/** sha256 (hex) of value as JSON with object keys sorted, so key order never changes the hash. */
export function contentHash(value: unknown): string {
  return createHash("sha256").update(stableJson(value)).digest("hex");
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  // JSON.stringify gives undefined (whatever its declared type says) for these: they hash as null.
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return "null";
  return JSON.stringify(value);
}
