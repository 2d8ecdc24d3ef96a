// What the ajv code that crdgen compiles ahead of time needs at run time: ajv's own helper modules, the
// Kubernetes string formats and Go-compatible (RE2) regular expressions for `pattern`, all reached through
// `validatorRequire`, which the generated module uses in place of `require` (it is an ES module).
import { createRequire } from "node:module";
import { RE2JS } from "re2js";
import { validatorFormats } from "./formats.js";

const requireFromHere = createRequire(import.meta.url);

/** The module id the generated code asks for the formats, and the one for patterns. */
export const formatsModuleId = "@crdgen/runtime/validation#formats";
export const patternModuleId = "@crdgen/runtime/validation#pattern";

/**
 * The patternProperties key under which generated validators check a property named __proto__ (ajv skips that
 * name in `properties`); validate() reports its errors at `properties/__proto__`, as the API server would.
 */
export const protoPattern = "^__proto__$";

/** An RE2 pattern with the `test` method ajv calls; Go's regexp (which the API server uses) is RE2 too. */
export function re2Pattern(source: string): { test(s: string): boolean; toString(): string } {
  const compiled = RE2JS.compile(source);
  return { test: (s: string) => compiled.matcher(s).find(), toString: () => source };
}

const provided: Record<string, unknown> = {
  [formatsModuleId]: validatorFormats,
  [patternModuleId]: { re2Pattern },
};

export function validatorRequire(id: string): unknown {
  if (Object.prototype.hasOwnProperty.call(provided, id)) return provided[id];
  // ajv's runtime helpers (equal, ucs2length, uri, ...): CommonJS modules of the ajv package this runtime depends on.
  if (id.startsWith("ajv/dist/runtime/")) return requireFromHere(id);
  throw new Error(`crdgen validator: unexpected module ${id}`);
}
