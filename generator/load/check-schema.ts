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

/** A schema node on the walk; its Field (path and pointer) is built only when a problem is reported there. */
interface Frame {
  node: unknown;
  parent?: Frame;
  /** How the parent reaches this node: properties[name], or a key and index (items, allOf[0]). */
  step?: { map: string; key: string } | Array<string | number>;
}

function fieldOf(frame: Frame, root: Field): Field {
  if (!frame.parent || !frame.step) return root;
  const parent = fieldOf(frame.parent, root);
  return Array.isArray(frame.step) ? child(parent, ...frame.step) : entry(parent, frame.step.map, frame.step.key);
}

export function checkSchema(schema: Raw, at: Field, report: SchemaReport): void {
  const stack: Frame[] = [{ node: schema }];
  while (stack.length) {
    const frame = stack.pop()!;
    const node = frame.node;
    if (!isRecord(node)) continue;
    checkNode(node, () => fieldOf(frame, at), report);
    // Children pushed in reverse, so problems are reported in the order they appear in the file.
    const children: Frame[] = [];
    if (isRecord(node["properties"]))
      for (const [key, property] of Object.entries(node["properties"]))
        children.push({ node: property, parent: frame, step: { map: "properties", key } });
    for (const key of ["items", "additionalProperties", "not"])
      if (isRecord(node[key])) children.push({ node: node[key], parent: frame, step: [key] });
    for (const key of ["allOf", "anyOf", "oneOf"]) {
      const members = node[key];
      if (Array.isArray(members)) members.forEach((m, i) => children.push({ node: m, parent: frame, step: [key, i] }));
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

function checkNode(node: Raw, fieldHere: () => Field, { fail, warn }: SchemaReport): void {
  for (const key in node)
    if (!schemaFields.has(key) && Object.hasOwn(node, key)) warn(unknownFieldWarning(fieldHere(), schemaFields, key));
  const type = node["type"];
  if (type !== undefined && type !== "" && !(typeof type === "string" && openapiTypes.includes(type))) {
    const supported = openapiTypes.map((t) => JSON.stringify(t)).join(", ");
    const typeAt = child(fieldHere(), "type");
    fail(
      typeAt,
      `${typeAt.path}: Unsupported value: ${displayValue(type)}: supported values: ${supported}` +
        (typeof type === "string" ? didYouMean(type, openapiTypes) : ""),
    );
  }
  if (node["uniqueItems"] === true) {
    // The API server's own rule (ValidateCustomResourceDefinitionOpenAPISchema): a validator compares every pair.
    const uniqueAt = child(fieldHere(), "uniqueItems");
    fail(
      uniqueAt,
      `${uniqueAt.path}: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    );
  }
  const required = node["required"];
  const properties = node["properties"];
  // Under x-kubernetes-preserve-unknown-fields or additionalProperties, a required field need not be declared.
  const open = node["x-kubernetes-preserve-unknown-fields"] === true || node["additionalProperties"] !== undefined;
  if (!Array.isArray(required) || !isRecord(properties) || open) return;
  required.forEach((name, i) => {
    if (typeof name !== "string" || Object.hasOwn(properties, name)) return;
    const requiredAt = child(fieldHere(), "required", i);
    warn({
      schemaPath: requiredAt.pointer,
      message:
        `${requiredAt.path}: ${displayValue(name)} is not among the properties: the API server prunes undeclared ` +
        `fields, so no object can have it${didYouMean(name, Object.keys(properties))}`,
    });
  });
}
