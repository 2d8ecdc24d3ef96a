// Checks a version's openAPIV3Schema as the API server does before the model reads it: a `type` it does not support is
// an error (the API server rejects the CRD), with a "did you mean"; a key JSONSchemaProps does not have, and a
// `required` entry no property declares, are warnings (the API server drops the first and accepts the second).
import type { InputWarning } from "../input-error.js";
import { child, displayValue, entry, isRecord, type Field, type Raw } from "./crd-field.js";
import { didYouMean } from "./did-you-mean.js";
import { schemaFields, unknownFieldWarning } from "./unknown-fields.js";

/** The API server's openapiTypes: the only values `type` may have (it may also be left out). */
const openapiTypes = ["array", "boolean", "integer", "number", "object", "string"];

export interface SchemaReport {
  /** Throws: the CRD cannot be created. */
  fail: (at: Field, problem: string) => never;
  warn: (warning: Omit<InputWarning, "file" | "documentIndex">) => void;
}

export function checkSchema(schema: Raw, at: Field, report: SchemaReport): void {
  const stack: Array<{ node: unknown; at: Field }> = [{ node: schema, at }];
  while (stack.length) {
    const { node, at: where } = stack.pop()!;
    if (!isRecord(node)) continue;
    checkNode(node, where, report);
    // Children pushed in reverse, so problems are reported in the order they appear in the file.
    const children: Array<{ node: unknown; at: Field }> = [];
    if (isRecord(node["properties"]))
      for (const [name, property] of Object.entries(node["properties"]))
        children.push({ node: property, at: entry(where, "properties", name) });
    for (const key of ["items", "additionalProperties", "not"])
      if (isRecord(node[key])) children.push({ node: node[key], at: child(where, key) });
    for (const key of ["allOf", "anyOf", "oneOf"]) {
      const members = node[key];
      if (Array.isArray(members)) members.forEach((m, i) => children.push({ node: m, at: child(where, key, i) }));
    }
    stack.push(...children.reverse());
  }
}

function checkNode(node: Raw, at: Field, { fail, warn }: SchemaReport): void {
  for (const key of Object.keys(node)) if (!schemaFields.has(key)) warn(unknownFieldWarning(at, schemaFields, key));
  const type = node["type"];
  if (type !== undefined && type !== "" && !(typeof type === "string" && openapiTypes.includes(type))) {
    const supported = openapiTypes.map((t) => JSON.stringify(t)).join(", ");
    const typeAt = child(at, "type");
    fail(
      typeAt,
      `${typeAt.path}: Unsupported value: ${displayValue(type)}: supported values: ${supported}` +
        (typeof type === "string" ? didYouMean(type, openapiTypes) : ""),
    );
  }
  const required = node["required"];
  const properties = node["properties"];
  // Under x-kubernetes-preserve-unknown-fields or additionalProperties, a required field need not be declared.
  const open = node["x-kubernetes-preserve-unknown-fields"] === true || node["additionalProperties"] !== undefined;
  if (!Array.isArray(required) || !isRecord(properties) || open) return;
  required.forEach((name, i) => {
    if (typeof name !== "string" || Object.hasOwn(properties, name)) return;
    const requiredAt = child(at, "required", i);
    warn({
      schemaPath: requiredAt.pointer,
      message:
        `${requiredAt.path}: ${displayValue(name)} is not among the properties: the API server prunes undeclared ` +
        `fields, so no object can have it${didYouMean(name, Object.keys(properties))}`,
    });
  });
}
