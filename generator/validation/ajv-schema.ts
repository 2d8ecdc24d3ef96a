// Turns a version's openAPIV3Schema into the JSON Schema ajv compiles, with the API server's semantics:
// OpenAPI 3.0 booleans exclusiveMinimum/Maximum become numbers, nullable allows null, int-or-string allows both,
// only the formats the server validates are kept, and patterns that RE2 (Go's engine) rejects are dropped
// with a warning. Repeated subtrees become shared definitions so the compiled code stays small.
import { createHash } from "node:crypto";
import { setOwn } from "@crdgen/runtime/json";
import { kubernetesFormatName, protoPattern, re2Pattern } from "@crdgen/runtime/validation";
import { pointer } from "../input-error.js";

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

const kept = new Set([
  "type",
  "properties",
  "items",
  "additionalProperties",
  "required",
  "enum",
  "maxLength",
  "minLength",
  "pattern",
  "format",
  "maximum",
  "minimum",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "multipleOf",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxProperties",
  "minProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
]);

export interface AjvSchemaResult {
  /** What ajv compiles: repeated subtrees shared as definitions. */
  schema: Raw;
  /** The same before sharing: its JSON pointers are those of the openAPIV3Schema (for messages). */
  plain: Raw;
  /**
   * Keywords left out because crdgen cannot check them client-side (pointer relative to the openAPIV3Schema): each is
   * a warning now, and listed in validate()'s skipped at run time.
   */
  dropped: Array<{ schemaPath: string; message: string; keyword: string; value: string; reason: string }>;
}

export function toAjvSchema(openAPIV3Schema: Raw): AjvSchemaResult {
  const dropped: AjvSchemaResult["dropped"] = [];
  const convert = (node: Raw, at: string): Raw => {
    const out: Raw = {};
    // Keywords in one fixed order, so the output does not depend on how the YAML (or the API server) ordered them.
    for (const key of kept) {
      if (!Object.prototype.hasOwnProperty.call(node, key)) continue;
      const value = node[key];
      if (key === "properties" && isRecord(value)) {
        const props: Raw = {};
        for (const [name, child] of Object.entries(value))
          if (isRecord(child)) setOwn(props, name, convert(child, pointer(at, "properties", name)));
        setOwn(out, "properties", props);
        // ajv skips a property named __proto__ (allSchemaProperties); a pattern for exactly that name checks it. A CRD
        // cannot use patternProperties (the API server forbids it), so the runtime maps this one back to properties.
        if (Object.hasOwn(props, "__proto__")) out["patternProperties"] = { [protoPattern]: props["__proto__"] };
      } else if ((key === "items" || key === "additionalProperties" || key === "not") && isRecord(value))
        out[key] = convert(value, pointer(at, key));
      else if ((key === "allOf" || key === "anyOf" || key === "oneOf") && Array.isArray(value))
        out[key] = (value as unknown[]).map((v, i) => (isRecord(v) ? convert(v, pointer(at, key, i)) : v));
      else if (key === "format") {
        const name = typeof value === "string" ? kubernetesFormatName(value) : undefined;
        const type = node["type"];
        if (name && (type === undefined || type === "string")) out[key] = name;
        // Range checks for single-typed numbers, as kube-openapi's number validator makes them.
        else if (
          (type === "integer" && (value === "int32" || value === "int64")) ||
          (type === "number" && value === "float")
        )
          out[key] = value;
      } else if (key === "pattern") {
        try {
          re2Pattern(String(value));
          out[key] = value;
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          dropped.push({
            schemaPath: pointer(at, "pattern"),
            message: `pattern ${JSON.stringify(value)} is not an RE2 expression, not validated client-side (${why})`,
            keyword: "pattern",
            value: String(value),
            reason: `not an RE2 expression, as Go's regexp (the API server's) requires (${why})`,
          });
        }
      } else out[key] = value;
    }
    // OpenAPI 3.0: exclusiveMinimum/Maximum are booleans qualifying minimum/maximum.
    for (const [bound, exclusive] of [
      ["minimum", "exclusiveMinimum"],
      ["maximum", "exclusiveMaximum"],
    ] as const) {
      /* eslint-disable @typescript-eslint/no-dynamic-delete -- the keys are the four literal bound keywords; deleting keeps the other keywords in their fixed order */
      if (out[exclusive] === true && typeof out[bound] === "number") {
        out[exclusive] = out[bound];
        delete out[bound];
      } else if (typeof out[exclusive] === "boolean") delete out[exclusive];
      /* eslint-enable @typescript-eslint/no-dynamic-delete */
    }
    if (node["x-kubernetes-int-or-string"] === true && out["type"] === undefined) out["type"] = ["integer", "string"];
    if (node["nullable"] === true && out["type"] !== undefined) {
      const type = out["type"];
      out["type"] = [...(Array.isArray(type) ? (type as unknown[]) : [type]), "null"];
      const values = out["enum"];
      if (Array.isArray(values) && !values.includes(null)) out["enum"] = [...(values as unknown[]), null];
    }
    return out;
  };
  const converted = convert(openAPIV3Schema, "");
  return { schema: shareRepeatedSubtrees(converted), plain: converted, dropped };
}

/** Subtrees under properties, items and additionalProperties that repeat become `definitions` referenced by $ref. */
function shareRepeatedSubtrees(root: Raw): Raw {
  const key = (json: string) => createHash("sha256").update(json).digest("hex").slice(0, 16);
  const counts = new Map<string, number>();
  const slots = (node: Raw): Raw[] => [
    ...(isRecord(node["properties"]) ? (Object.values(node["properties"]) as Raw[]) : []),
    ...(isRecord(node["items"]) ? [node["items"]] : []),
    ...(isRecord(node["additionalProperties"]) ? [node["additionalProperties"]] : []),
  ];
  const json = new Map<Raw, string>();
  const measure = (node: Raw): void => {
    const text = JSON.stringify(node);
    json.set(node, text);
    if (text.length >= 200) counts.set(text, (counts.get(text) ?? 0) + 1);
    for (const child of slots(node)) measure(child);
    for (const k of ["allOf", "anyOf", "oneOf"])
      if (Array.isArray(node[k])) for (const v of node[k] as unknown[]) if (isRecord(v)) measure(v);
    if (isRecord(node["not"])) measure(node["not"]);
  };
  measure(root);
  const definitions: Raw = {};
  const rewrite = (node: Raw, inSlot: boolean): Raw => {
    const text = json.get(node) ?? JSON.stringify(node);
    if (inSlot && (counts.get(text) ?? 0) > 1) {
      const id = key(text);
      if (!(id in definitions)) {
        definitions[id] = {};
        definitions[id] = rewriteChildren(node);
      }
      return { $ref: `#/definitions/${id}` };
    }
    return rewriteChildren(node);
  };
  const rewriteChildren = (node: Raw): Raw => {
    const out: Raw = { ...node };
    if (isRecord(node["properties"])) {
      const props: Raw = {};
      for (const [name, child] of Object.entries(node["properties"])) {
        setOwn(props, name, rewrite(child as Raw, true));
      }
      out["properties"] = props;
    }
    if (isRecord(node["items"])) out["items"] = rewrite(node["items"], true);
    if (isRecord(node["additionalProperties"]))
      out["additionalProperties"] = rewrite(node["additionalProperties"], true);
    for (const k of ["allOf", "anyOf", "oneOf"])
      if (Array.isArray(node[k])) out[k] = (node[k] as unknown[]).map((v) => (isRecord(v) ? rewriteChildren(v) : v));
    if (isRecord(node["not"])) out["not"] = rewriteChildren(node["not"]);
    return out;
  };
  const rewritten = rewriteChildren(root);
  return Object.keys(definitions).length ? { ...rewritten, definitions } : rewritten;
}
