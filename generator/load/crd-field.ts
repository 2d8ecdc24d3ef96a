// A field of a CRD as the API server's messages name it (spec.versions[0].name, properties[spec]) and as a JSON
// pointer (/spec/versions/0/name, /properties/spec), and values as those messages show them.
import { pointer } from "../input-error.js";
import { escapeInvisible, tsString } from "../ts-literal.js";

export type Raw = Record<string, unknown>;
export const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

export interface Field {
  path: string;
  pointer: string;
}

export const child = (parent: Field, ...segments: Array<string | number>): Field => ({
  path: segments.reduce<string>((p, s) => (typeof s === "number" ? `${p}[${s}]` : p ? `${p}.${s}` : s), parent.path),
  pointer: pointer(parent.pointer, ...segments),
});

export const field = (...segments: Array<string | number>): Field => child({ path: "", pointer: "" }, ...segments);

/** A map entry as the API server names it: properties[spec], /properties/spec. */
export const entry = (parent: Field, map: string, key: string): Field => ({
  path: `${parent.path}.${map}[${key}]`,
  pointer: pointer(parent.pointer, map, key),
});

/** A value in an error message: quoted and escaped, so a hostile name cannot restyle or reorder the terminal. */
export function displayValue(value: unknown): string {
  if (typeof value === "string") return tsString(value);
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? String(value) : escapeInvisible(json);
}
