// The fields of apiextensions.k8s.io/v1 CustomResourceDefinition. The API server drops a field it does not know, with
// a warning ("unknown field"), and so does crdgen: a misspelled key (subresource, openAPIv3Schema) then gets a "did
// you mean". Where the dropped field leaves a CRD the API server rejects (a served version without a schema), the
// error says which key was meant (see misspelling).
import type { InputWarning } from "../input-error.js";
import { child, isRecord, type Field } from "./crd-field.js";
import { didYouMean, closest } from "./did-you-mean.js";

/** A mapping's known keys, each with the shape of its value: null when its value is not checked here. */
interface Shape {
  [key: string]: Shape | readonly [Shape] | "schema" | null;
}

const printerColumn: Shape = {
  name: null,
  type: null,
  format: null,
  description: null,
  priority: null,
  jsonPath: null,
};
const version: Shape = {
  name: null,
  served: null,
  storage: null,
  deprecated: null,
  deprecationWarning: null,
  schema: { openAPIV3Schema: "schema" },
  subresources: { status: null, scale: { specReplicasPath: null, statusReplicasPath: null, labelSelectorPath: null } },
  additionalPrinterColumns: [printerColumn],
  selectableFields: [{ jsonPath: null }],
};
const isList = (shape: Shape[string] | null): shape is readonly [Shape] => Array.isArray(shape);

/** The fields of a spec.versions[] entry. */
export const versionFields = Object.keys(version);

const crdShape: Shape = {
  apiVersion: null,
  kind: null,
  metadata: null,
  status: null,
  spec: {
    group: null,
    scope: null,
    preserveUnknownFields: null,
    names: { plural: null, singular: null, shortNames: null, kind: null, listKind: null, categories: null },
    versions: [version],
    conversion: {
      strategy: null,
      webhook: {
        conversionReviewVersions: null,
        clientConfig: { url: null, caBundle: null, service: { namespace: null, name: null, path: null, port: null } },
      },
    },
  },
};

/** JSONSchemaProps' fields, as the API server decodes a CRD schema node. */
export const schemaFields = new Set([
  "id",
  "$schema",
  "$ref",
  "description",
  "type",
  "format",
  "title",
  "default",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "multipleOf",
  "enum",
  "maxProperties",
  "minProperties",
  "required",
  "items",
  "allOf",
  "oneOf",
  "anyOf",
  "not",
  "properties",
  "additionalProperties",
  "patternProperties",
  "dependencies",
  "additionalItems",
  "definitions",
  "externalDocs",
  "example",
  "nullable",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-int-or-string",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-list-type",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
]);

export function unknownFieldWarning(at: Field, known: Iterable<string>, key: string): Omit<InputWarning, "file"> {
  const where = child(at, key);
  return {
    schemaPath: where.pointer,
    message: `${where.path}: unknown field, dropped by the API server${didYouMean(key, known)}`,
  };
}

/** A warning for each key of the CRD (outside its schemas) the API server does not know. */
export function unknownCrdFields(crd: unknown): Array<Omit<InputWarning, "file">> {
  const warnings: Array<Omit<InputWarning, "file">> = [];
  const visit = (value: unknown, shape: Shape, at: Field) => {
    if (!isRecord(value)) return;
    for (const [key, inner] of Object.entries(value)) {
      if (!Object.hasOwn(shape, key)) {
        warnings.push(unknownFieldWarning(at, Object.keys(shape), key));
        continue;
      }
      const valueShape = shape[key] ?? null;
      if (isList(valueShape)) {
        const [itemShape] = valueShape;
        if (Array.isArray(inner)) inner.forEach((item, i) => visit(item, itemShape, child(at, key, i)));
      } else if (valueShape !== null && valueShape !== "schema") {
        visit(inner, valueShape, child(at, key));
      }
    }
  };
  visit(crd, crdShape, { path: "", pointer: "" });
  return warnings;
}

/** The unknown key of `parent` that is likely a misspelling of `name` (openAPIv3Schema for openAPIV3Schema). */
export function misspelling(parent: unknown, name: string, known: Iterable<string>): string | undefined {
  if (!isRecord(parent)) return undefined;
  const knownNames = new Set(known);
  const unknown = Object.keys(parent).filter((k) => !knownNames.has(k));
  return unknown.find((key) => closest(key, [name]) === name);
}
