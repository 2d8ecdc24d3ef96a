// Reads back what one field manager applied (client-go's Extract<Type> for apply configurations): the parts of a live
// object that its managedFields entry (FieldsV1) says the manager owns. Comparing that with the desired apply
// configuration tells whether applying again would change anything.
import type { KubernetesObject } from "../client/types.js";
import { setOwn } from "../json/own-property.js";

type FieldSet = Record<string, unknown>;

/** The fields of `live` owned by `fieldManager` through Apply on the main resource (not a subresource), or undefined when it owns none. */
export function extractApplied(live: KubernetesObject, fieldManager: string): Record<string, unknown> | undefined {
  const entry = live.metadata?.managedFields?.find(
    (e) => e.manager === fieldManager && e.operation === "Apply" && !(e as { subresource?: string }).subresource,
  );
  const fields = entry?.fieldsV1 as FieldSet | undefined;
  if (!fields) return undefined;
  return extract(live, fields) as Record<string, unknown>;
}

/**
 * A value owned as a whole (an atomic list or map, or a scalar): the server may have defaulted fields inside it that
 * were never applied, so it is compared by inclusion rather than equality.
 */
export class OwnedWhole {
  constructor(readonly value: unknown) {}
}

/** The part of value that set describes. An empty set (a leaf) owns the whole value. */
function extract(value: unknown, set: FieldSet): unknown {
  const keys = Object.keys(set).filter((k) => k !== ".");
  if (keys.length === 0) return value !== null && typeof value === "object" ? new OwnedWhole(value) : value;
  if (Array.isArray(value)) return extractList(value, set, keys);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (!key.startsWith("f:")) continue;
    const name = key.slice(2);
    // Own fields only: a field named __proto__ is a field like any other.
    if (Object.hasOwn(record, name)) setOwn(out, name, extract(record[name], set[key] as FieldSet));
  }
  return out;
}

/** Items of an associative list ("k:{...}") or a set ("v:..."), in the live order. */
function extractList(items: unknown[], set: FieldSet, keys: string[]): unknown[] {
  const byKey = keys
    .filter((k) => k.startsWith("k:"))
    .map((k) => [JSON.parse(k.slice(2)) as Record<string, unknown>, set[k] as FieldSet] as const);
  const values = keys.filter((k) => k.startsWith("v:")).map((k) => JSON.stringify(JSON.parse(k.slice(2))));
  const out: unknown[] = [];
  for (const item of items) {
    const match = byKey.find(([fields]) =>
      Object.entries(fields).every(([f, v]) => (item as Record<string, unknown> | null | undefined)?.[f] === v),
    );
    if (match) out.push(extract(item, match[1]));
    else if (values.includes(JSON.stringify(item))) out.push(item);
  }
  return out;
}

/**
 * An apply configuration as the server will remember it: undefined members dropped, and the identity fields that
 * managedFields never records (apiVersion, kind, metadata.name, metadata.namespace) left out.
 */
export function appliedFieldsOf(desired: Record<string, unknown>): Record<string, unknown> {
  const {
    apiVersion: _a,
    kind: _k,
    metadata,
    ...rest
  } = JSON.parse(JSON.stringify(desired)) as Record<string, unknown>;
  const { name: _n, namespace: _ns, ...meta } = (metadata ?? {}) as Record<string, unknown>;
  return Object.keys(meta).length > 0 ? { metadata: meta, ...rest } : rest;
}

/**
 * True when applying `desired` would not change what `extracted` (from extractApplied) records: the same fields,
 * with equal values; inside a value owned whole, every desired field equal and extra (defaulted) fields allowed.
 */
export function sameAppliedFields(desired: unknown, extracted: unknown): boolean {
  if (extracted instanceof OwnedWhole) return includes(extracted.value, desired);
  if (Array.isArray(desired)) {
    return (
      Array.isArray(extracted) &&
      extracted.length === desired.length &&
      desired.every((d, i) => sameAppliedFields(d, extracted[i]))
    );
  }
  if (desired !== null && typeof desired === "object") {
    if (extracted === null || typeof extracted !== "object" || Array.isArray(extracted)) return false;
    const d = desired as Record<string, unknown>;
    const e = extracted as Record<string, unknown>;
    const keys = Object.keys(d);
    return keys.length === Object.keys(e).length && keys.every((k) => k in e && sameAppliedFields(d[k], e[k]));
  }
  return desired === extracted;
}

/** Every field of `part` is in `whole` with an equal value (lists: same length, item by item). */
function includes(whole: unknown, part: unknown): boolean {
  if (Array.isArray(part))
    return Array.isArray(whole) && whole.length === part.length && part.every((p, i) => includes(whole[i], p));
  if (part !== null && typeof part === "object") {
    if (whole === null || typeof whole !== "object" || Array.isArray(whole)) return false;
    return Object.entries(part as Record<string, unknown>).every(([k, v]) =>
      includes((whole as Record<string, unknown>)[k], v),
    );
  }
  return whole === part;
}
