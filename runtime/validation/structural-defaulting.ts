// What the API server does to a custom resource before validating it: drop unknown fields (pruning), drop
// nulls of non-nullable fields without a default, then apply defaults where the parent object exists.
// Follows k8s.io/apiextensions-apiserver's schema/pruning and schema/defaulting algorithms.
import { setOwn } from "../json/own-property.js";
import { childSchema, copyJson, isJsonObject, type StructuralNode } from "./structural.js";

const metaFields = new Set(["apiVersion", "kind", "metadata"]);

/** Removes fields the schema does not know (except under x-kubernetes-preserve-unknown-fields). Mutates `value`. */
export function pruneUnknownFields(value: unknown, root: StructuralNode): void {
  // The resource root behaves as an embedded resource: apiVersion, kind and metadata are always kept.
  prune(value, { ...root, embeddedResource: true });
}

function prune(value: unknown, node: StructuralNode | undefined): void {
  if (node?.preserveUnknownFields) {
    keepUnknown(value, node);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) prune(item, node?.items);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      if (node?.embeddedResource && metaFields.has(key)) continue;
      const known =
        node?.properties && Object.prototype.hasOwnProperty.call(node.properties, key)
          ? node.properties[key]
          : undefined;
      if (known) prune(value[key], known);
      else if (node?.additionalProperties) prune(value[key], node.additionalProperties);
      else Reflect.deleteProperty(value, key);
    }
  }
}

/** Under preserve-unknown-fields, unknown keys stay but known ones are still pruned by their own schema. */
function keepUnknown(value: unknown, node: StructuralNode): void {
  if (Array.isArray(value)) {
    for (const item of value) if (node.items) keepUnknown(item, node.items);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      if (node.embeddedResource && metaFields.has(key)) continue;
      const known =
        node.properties && Object.prototype.hasOwnProperty.call(node.properties, key)
          ? node.properties[key]
          : undefined;
      if (known) prune(value[key], known);
      else if (node.additionalProperties) prune(value[key], node.additionalProperties);
    }
  }
}

const isNonNullableNull = (value: unknown, node: StructuralNode | undefined) =>
  value === null && node !== undefined && !node.nullable;

/** Drops null values of non-nullable fields that have no default (the defaulting pass replaces the others). Mutates. */
export function pruneNonNullableNulls(value: unknown, node: StructuralNode | undefined): void {
  if (Array.isArray(value)) {
    for (const item of value) pruneNonNullableNulls(item, node?.items);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const schema = childSchema(node, key);
      if (isNonNullableNull(value[key], schema) && !("default" in schema!)) Reflect.deleteProperty(value, key);
      else pruneNonNullableNulls(value[key], schema);
    }
  }
}

/** Applies defaults top-down: a missing (or non-nullable null) property gets its default, then its children are visited. Mutates. */
export function applyStructuralDefaults(value: unknown, node: StructuralNode | undefined): void {
  if (!node) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      if (isNonNullableNull(item, node.items) && node.items && "default" in node.items)
        value[index] = copyJson(node.items.default);
      applyStructuralDefaults(value[index], node.items);
    });
  } else if (isJsonObject(value)) {
    for (const [key, prop] of Object.entries(node.properties ?? {})) {
      if (!("default" in prop)) continue;
      if (!Object.prototype.hasOwnProperty.call(value, key) || isNonNullableNull(value[key], prop))
        setOwn(value, key, copyJson(prop.default));
    }
    for (const key of Object.keys(value)) {
      const known =
        node.properties && Object.prototype.hasOwnProperty.call(node.properties, key)
          ? node.properties[key]
          : undefined;
      if (known) applyStructuralDefaults(value[key], known);
      else if (node.additionalProperties) {
        const extra = node.additionalProperties;
        if (isNonNullableNull(value[key], extra) && "default" in extra) setOwn(value, key, copyJson(extra.default));
        applyStructuralDefaults(value[key], extra);
      }
    }
  }
}

/** The API server's order on create and update: prune unknown fields, drop non-nullable nulls, default. Returns a copy. */
export function normalizeLikeApiServer<T>(object: T, root: StructuralNode): T {
  const copy = copyJson(object);
  pruneUnknownFields(copy, root);
  pruneNonNullableNulls(copy, root);
  applyStructuralDefaults(copy, root);
  return copy;
}

/** Null pruning and defaulting only (no pruning of unknown fields), on a copy. */
export function defaultLikeApiServer<T>(object: T, root: StructuralNode): T {
  const copy = copyJson(object);
  pruneNonNullableNulls(copy, root);
  applyStructuralDefaults(copy, root);
  return copy;
}
