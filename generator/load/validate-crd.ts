// Checks a CustomResourceDefinition as the API server's apiextensions validation does before anything of it reaches a
// file name, a string literal or a comment: names, group, versions, storage, schemas and subresource paths. Messages
// are the API server's own (field path, "Invalid value: ...", detail), located by file, document and JSON pointer.
import { InputError, type InputWarning } from "../input-error.js";
import type { LoadedCrd } from "./parse-crds.js";
import { checkSchema } from "./check-schema.js";
import { child, displayValue, field, isRecord, type Field, type Raw } from "./crd-field.js";
import { misspelling, unknownCrdFields, versionFields } from "./unknown-fields.js";

// k8s.io/apimachinery/pkg/util/validation: the formats and messages of IsDNS1035Label and IsDNS1123Subdomain.
const dns1035LabelFormat = "[a-z]([-a-z0-9]*[a-z0-9])?";
const dns1035LabelMessage =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
  "and end with an alphanumeric character";
const dns1123LabelFormat = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123SubdomainFormat = `${dns1123LabelFormat}(\\.${dns1123LabelFormat})*`;
const dns1123SubdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and " +
  "end with an alphanumeric character";

const regexError = (message: string, format: string, ...examples: string[]) =>
  `${message} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${format}')`;

/** The API server's IsDNS1035Label: every problem of `value`, empty when it is a valid label. */
export function dns1035LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push("must be no more than 63 characters");
  if (!new RegExp(`^${dns1035LabelFormat}$`).test(value))
    errors.push(regexError(dns1035LabelMessage, dns1035LabelFormat, "my-name", "abc-123"));
  return errors;
}

/** The API server's IsDNS1123Subdomain: every problem of `value`, empty when it is a valid subdomain. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push("must be no more than 253 characters");
  if (!new RegExp(`^${dns1123SubdomainFormat}$`).test(value))
    errors.push(regexError(dns1123SubdomainMessage, dns1123SubdomainFormat, "example.com"));
  return errors;
}

/**
 * Throws an InputError for the first problem the API server would report on creating this CRD, plus the generator's
 * own: a kind and listKind must also be identifiers (the API server allows "-"), a scale path must exist in the schema.
 * Returns the warnings: what the API server accepts but drops (unknown fields) or cannot mean (see checkSchema).
 */
export function validateCrd(entry: LoadedCrd): InputWarning[] {
  const at = { file: entry.file, documentIndex: entry.documentIndex };
  const fail = (field: Field, problem: string): never => {
    throw new InputError({ ...at, schemaPath: field.pointer }, problem);
  };
  const warnings: InputWarning[] = unknownCrdFields(entry.crd).map((w) => ({ ...at, ...w }));
  const warn = (warning: Omit<InputWarning, "file" | "documentIndex">) => warnings.push({ ...at, ...warning });
  const required = (at: Field, detail = "") => fail(at, `${at.path}: Required value${detail ? `: ${detail}` : ""}`);
  const invalid = (at: Field, value: unknown, detail: string) =>
    fail(at, `${at.path}: Invalid value: ${displayValue(value)}: ${detail}`);
  /** A string field, or undefined when absent; anything else is an error (the API server would not decode it). */
  const text = (value: unknown, at: Field): string | undefined => {
    if (value === undefined || value === null || value === "") return undefined;
    if (typeof value !== "string") return invalid(at, value, "must be a string");
    return value;
  };

  const crd = entry.crd;
  const metadata = isRecord(crd["metadata"]) ? crd["metadata"] : {};
  const spec = isRecord(crd["spec"]) ? crd["spec"] : {};
  const names = isRecord(spec["names"]) ? spec["names"] : {};

  const nameAt = field("metadata", "name");
  const groupAt = field("spec", "group");
  const pluralAt = field("spec", "names", "plural");
  const kindAt = field("spec", "names", "kind");
  const name = text(metadata["name"], nameAt) ?? required(nameAt, "name or generateName is required");
  const group = text(spec["group"], groupAt) ?? required(groupAt);
  const plural = text(names["plural"], pluralAt) ?? required(pluralAt);
  const kind = text(names["kind"], kindAt) ?? required(kindAt);
  // The API server defaults singular to the lower-cased kind and listKind to <kind>List before validating.
  const singular = text(names["singular"], field("spec", "names", "singular")) ?? kind.toLowerCase();
  const listKind = text(names["listKind"], field("spec", "names", "listKind")) ?? `${kind}List`;

  for (const problem of dns1123SubdomainErrors(group)) invalid(groupAt, group, problem);
  if (!group.includes(".")) invalid(groupAt, group, "should be a domain with at least one dot");

  const label = (value: string, at: Field) => {
    const problems = dns1035LabelErrors(value);
    if (problems.length) invalid(at, value, problems.join(","));
  };
  const mixedCaseLabel = (value: string, at: Field) => {
    const problems = dns1035LabelErrors(value.toLowerCase());
    if (problems.length) invalid(at, value, `may have mixed case, but should otherwise match: ${problems.join(",")}`);
    // Not the API server's rule: the kind names TypeScript types, and "-" cannot be part of one.
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(value))
      invalid(at, value, "must be a TypeScript identifier to name the generated types (crdgen: no '-')");
  };
  label(plural, pluralAt);
  label(singular, field("spec", "names", "singular"));
  mixedCaseLabel(kind, kindAt);
  mixedCaseLabel(listKind, field("spec", "names", "listKind"));
  for (const [list, what] of [
    [names["shortNames"], "shortNames"],
    [names["categories"], "categories"],
  ] as const) {
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) invalid(field("spec", "names", what), list, "must be a list of strings");
    (list as unknown[]).forEach((value, i) => {
      const at = field("spec", "names", what, i);
      label(text(value, at) ?? "", at);
    });
  }
  if (kind === listKind) invalid(field("spec", "names", "listKind"), listKind, "kind and listKind may not be the same");

  validateVersions(spec, { required, invalid, text, fail, warn });
  // Checked last, though the API server checks it first: a bad name is then reported at the field that made it bad.
  for (const problem of dns1123SubdomainErrors(name)) invalid(nameAt, name, problem);
  if (name !== `${plural}.${group}`) invalid(nameAt, name, 'must be spec.names.plural+"."+spec.group');
  return warnings;
}

interface Reporters {
  required: (at: Field, detail?: string) => never;
  invalid: (at: Field, value: unknown, detail: string) => never;
  text: (value: unknown, at: Field) => string | undefined;
  fail: (at: Field, problem: string) => never;
  warn: (warning: Omit<InputWarning, "file" | "documentIndex">) => void;
}

function validateVersions(spec: Raw, report: Reporters): void {
  const { required, invalid, text } = report;
  const versionsAt = field("spec", "versions");
  const versions = spec["versions"];
  if (versions !== undefined && !Array.isArray(versions)) invalid(versionsAt, versions, "must be a list of versions");
  const list = (versions ?? []) as unknown[];
  const seen = new Set<string>();
  let storage = 0;
  list.forEach((version, i) => {
    const at = field("spec", "versions", i);
    if (!isRecord(version)) return invalid(at, version, "must be a mapping");
    const nameAt = child(at, "name");
    const name = text(version["name"], nameAt) ?? required(nameAt);
    const problems = dns1035LabelErrors(name);
    if (problems.length) invalid(nameAt, name, problems.join(","));
    if (seen.has(name)) invalid(versionsAt, versionNames(list), "must contain unique version names");
    seen.add(name);
    if (version["storage"] === true) storage++;
    const schema = isRecord(version["schema"]) ? version["schema"]["openAPIV3Schema"] : undefined;
    if (version["served"] === true && !isRecord(schema))
      required(child(at, "schema", "openAPIV3Schema"), `because otherwise all fields are pruned${misspelled(version)}`);
    if (isRecord(schema)) checkSchema(schema, child(at, "schema", "openAPIV3Schema"), report);
    validateSubresources(version, at, isRecord(schema) ? schema : undefined, report);
  });
  if (storage !== 1) invalid(versionsAt, versionNames(list), "must have exactly one version marked as storage version");
}

function validateSubresources(version: Raw, at: Field, schema: Raw | undefined, report: Reporters): void {
  const { required, invalid, text } = report;
  const subresources = version["subresources"];
  if (subresources === undefined || subresources === null) return;
  const subresourcesAt = child(at, "subresources");
  if (!isRecord(subresources)) return invalid(subresourcesAt, subresources, "must be a mapping");
  const status = subresources["status"];
  if (status !== undefined && status !== null && !isRecord(status))
    invalid(child(subresourcesAt, "status"), status, "must be a mapping (status: {})");
  const scale = subresources["scale"];
  if (scale === undefined || scale === null) return;
  const scaleAt = child(subresourcesAt, "scale");
  if (!isRecord(scale)) return invalid(scaleAt, scale, "must be a mapping");
  const paths: Array<[key: string, prefixes: string[], under: string]> = [
    ["specReplicasPath", [".spec."], "under .spec"],
    ["statusReplicasPath", [".status."], "under .status"],
    ["labelSelectorPath", [".spec.", ".status."], "under either .spec or .status"],
  ];
  for (const [key, prefixes, under] of paths) {
    const pathAt = child(scaleAt, key);
    const value = text(scale[key], pathAt);
    if (value === undefined) {
      if (key !== "labelSelectorPath") required(pathAt);
      continue;
    }
    if (!value.startsWith(".")) invalid(pathAt, value, "must be a simple json path starting with .");
    if (!prefixes.some((p) => value.startsWith(p))) invalid(pathAt, value, `should be a json path ${under}`);
    // Not checked by the API server, which answers the scale subresource with an error at run time instead. The
    // label selector may be left out of the schema (the API server then reports no selector), so it is not checked.
    if (key !== "labelSelectorPath" && schema && !pathInSchema(schema, value.slice(1).split(".")))
      invalid(
        pathAt,
        value,
        "is not a field of the version's openAPIV3Schema (crdgen: the scale subresource reads it)",
      );
  }
}

/** Whether the dotted path names a property the schema declares or lets through (preserve-unknown-fields, maps). */
function pathInSchema(schema: Raw, segments: string[]): boolean {
  let node: Raw = schema;
  for (const segment of segments) {
    if (node["x-kubernetes-preserve-unknown-fields"] === true) return true;
    const properties = isRecord(node["properties"]) ? node["properties"] : undefined;
    const next = properties && Object.hasOwn(properties, segment) ? properties[segment] : node["additionalProperties"];
    if (next === true) return true;
    if (!isRecord(next)) return false;
    node = next;
  }
  return true;
}

/** Where a schema is missing because its key is misspelled (dropped as unknown): which key, and what was meant. */
function misspelled(version: Raw): string {
  const schemaKey = misspelling(version, "schema", versionFields);
  const schema = schemaKey === undefined ? version["schema"] : version[schemaKey];
  const schemaAt = schemaKey ?? "schema";
  const openAPIKey = misspelling(schema, "openAPIV3Schema", ["openAPIV3Schema"]);
  if (schemaKey === undefined && openAPIKey === undefined) return "";
  const found = [schemaAt, ...(openAPIKey === undefined ? [] : [openAPIKey])].join(".");
  return ` (crdgen: found ${displayValue(found)}: did you mean "schema.openAPIV3Schema"?)`;
}

function versionNames(list: unknown[]): string[] {
  return list.map((v) => (isRecord(v) && typeof v["name"] === "string" ? v["name"] : "?"));
}
