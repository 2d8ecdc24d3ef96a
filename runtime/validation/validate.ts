// validate(): what the API server checks when a custom resource is created or updated, client-side. In its
// order: prune + default a copy, the OpenAPI schema (ajv, compiled by crdgen at generate time), list-type
// invariants, then the CEL rules: not run at all when the schema found a blocking error (an oversized value is
// rejected before any rule sees it), and within the server's cost limits (per call and per object).
import { Optional } from "@marcbachmann/cel-js";
import { escapePointerSegment, unescapePointerSegment } from "../json/pointer.js";
import { sameJson } from "../json/same-json.js";
import { protoPattern } from "./ajv-support.js";
import { compileRule, toCelValue, type Evaluation } from "./cel-rules.js";
import { costLimitExceededMessage, runtimeCostBudget } from "./cel-cost.js";
import { normalizeLikeApiServer } from "./structural-defaulting.js";
import { childSchema, isJsonObject, type CelRule, type StructuralNode } from "./structural.js";

/** The shape of an ajv error, as the generated (standalone) schema validator reports it. */
export interface SchemaValidatorError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface SchemaValidateFunction {
  (data: unknown): boolean;
  errors?: SchemaValidatorError[] | null;
}

/** What crdgen generates for one CRD version. */
export interface VersionValidation {
  /** The ajv standalone function for the version's openAPIV3Schema (Kubernetes keywords translated). */
  schemaValidator: SchemaValidateFunction;
  structure: StructuralNode;
}

export interface ValidationError {
  /** The field as the API server names it in Status.details.causes (`spec.replicas`, `spec.ports[0].name`). */
  field: string;
  /** JSON pointer to the value in the object. */
  instancePath: string;
  /** JSON pointer into the version's openAPIV3Schema, to the keyword that failed. */
  schemaPath: string;
  /** The schema keyword (`maximum`, `required`, ...), `x-kubernetes-validations` or `x-kubernetes-list-type`. */
  keyword: string;
  /** The API server's cause type: FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, ... */
  reason: string;
  message: string;
}

export interface SkippedRule {
  field: string;
  schemaPath: string;
  /** The CEL rule; for a schema keyword crdgen cannot check, the keyword and its value (`pattern: ^(?!x)`). */
  rule: string;
  reason: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: ValidationError[];
  /**
   * CEL rules that were not evaluated because crdgen cannot (unsupported function or syntax), and schema keywords it
   * cannot check (a pattern RE2 rejects), with why.
   */
  skipped: SkippedRule[];
}

export interface ValidateOptions {
  /** The stored object for an update: enables transition rules (those reading oldSelf). */
  oldObject?: unknown;
  /** Prune unknown fields and apply defaults to a copy first, as the API server does (default true). */
  normalize?: boolean;
}

type Segment = { key: string; kind: "property" | "key" } | { index: number };

const pointerOf = (segments: Segment[]) =>
  segments.map((s) => `/${"index" in s ? s.index : escapePointerSegment(s.key)}`).join("");

/** kube-openapi's names (map keys as `.key`) for schema errors; field.Path's (`[key]`) for list and CEL errors. */
function fieldOf(segments: Segment[], style: "openapi" | "field"): string {
  let out = "";
  for (const s of segments) {
    if ("index" in s) out += `[${s.index}]`;
    else if (s.kind === "key" && style === "field") out += `[${s.key}]`;
    else out += out === "" ? s.key : `.${s.key}`;
  }
  return out;
}

function segmentsOf(
  instancePath: string,
  root: unknown,
  structure: StructuralNode,
): { segments: Segment[]; schemaPath: string[]; nodes: Array<StructuralNode | undefined> } {
  const raw = instancePath === "" ? [] : instancePath.slice(1).split("/").map(unescapePointerSegment);
  const segments: Segment[] = [];
  const schemaPath: string[] = [];
  const nodes: Array<StructuralNode | undefined> = [structure];
  let value: unknown = root;
  let node: StructuralNode | undefined = structure;
  for (const part of raw) {
    if (Array.isArray(value)) {
      segments.push({ index: Number(part) });
      schemaPath.push("items");
      node = node?.items;
      value = value[Number(part)];
    } else {
      const isProperty = node?.properties !== undefined && Object.prototype.hasOwnProperty.call(node.properties, part);
      segments.push({ key: part, kind: isProperty ? "property" : "key" });
      schemaPath.push(...(isProperty ? ["properties", part] : ["additionalProperties"]));
      node = childSchema(node, part);
      value = isJsonObject(value) ? value[part] : undefined;
    }
    nodes.push(node);
  }
  return { segments, schemaPath, nodes };
}

/** How many object/array levels a relative ajv schema path descends (properties/x, items, additionalProperties). */
function instanceSteps(relative: string[]): number {
  let steps = 0;
  for (let i = 0; i < relative.length; i++) {
    const s = relative[i];
    if (s === "properties" || s === "patternProperties") {
      steps++;
      i++;
    } else if (s === "items" || s === "additionalProperties") steps++;
  }
  return steps;
}

const reasons: Record<string, string> = {
  required: "FieldValueRequired",
  enum: "FieldValueNotSupported",
  maxLength: "FieldValueTooLong",
  maxItems: "FieldValueTooMany",
  maxProperties: "FieldValueTooMany",
  type: "FieldValueTypeInvalid",
  // kube-openapi reports a bad format as a type error ("must be of type date-time").
  format: "FieldValueTypeInvalid",
};
const blockingReasons = new Set([
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);

function schemaErrors(data: unknown, version: VersionValidation): ValidationError[] {
  if (version.schemaValidator(data)) return [];
  const raw = version.schemaValidator.errors ?? [];
  // An anyOf/oneOf/not failure is one error at the API server; drop what ajv reports from inside its branches.
  const combinators = raw
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf" || e.keyword === "not")
    .map((e) => `${e.schemaPath}/`);
  const kept = raw.filter((e) => !combinators.some((c) => e.schemaPath.startsWith(c)));
  return kept.map((e) => {
    // ajv's schema path is relative to the root ("#/...") or to a shared definition ("#/definitions/<id>/...").
    const parts = e.schemaPath
      .replace(/^#\/?/, "")
      .split("/")
      .filter((p) => p !== "")
      .map((p) => unescapePointerSegment(decodeURIComponent(p)));
    const relative = parts[0] === "definitions" ? parts.slice(2) : parts;
    const at = segmentsOf(e.instancePath, data, version.structure);
    const anchor = at.segments.length - instanceSteps(relative.slice(0, -1));
    const anchorPath = segmentsOf(pointerOf(at.segments.slice(0, anchor)), data, version.structure).schemaPath;
    // The generator checks a property named __proto__ (which ajv skips) as patternProperties["^__proto__$"].
    const keywordPath = relative.map((p, i) => {
      if (p === "patternProperties" && relative[i + 1] === protoPattern) return "properties";
      return p === protoPattern && relative[i - 1] === "patternProperties" ? "__proto__" : p;
    });
    const node = at.nodes.at(-1);
    if (e.keyword === "type" && node?.intOrString && relative.length === instanceSteps(relative) * 2 + 1)
      keywordPath[keywordPath.length - 1] = "x-kubernetes-int-or-string";
    if (e.keyword === "format" && ["int32", "int64", "float"].includes(String(e.params["format"]))) {
      // The server reports a number out of its format's range without a field (a plain error, not a field error).
      const type = e.params["format"] === "float" ? "number" : "integer";
      return {
        field: "",
        instancePath: e.instancePath,
        schemaPath: `/${[...anchorPath, ...keywordPath].map(escapePointerSegment).join("/")}`,
        keyword: e.keyword,
        reason: "FieldValueInvalid",
        message: `Checked value must be of type ${type} with format ${String(e.params["format"])} in ${fieldOf(at.segments, "openapi")}`,
      };
    }
    const segments =
      e.keyword === "required"
        ? [...at.segments, { key: String(e.params["missingProperty"]), kind: "property" as const }]
        : at.segments;
    return {
      field: fieldOf(segments, "openapi"),
      instancePath: e.instancePath,
      schemaPath: `/${[...anchorPath, ...keywordPath].map(escapePointerSegment).join("/")}`,
      keyword: e.keyword,
      reason: reasons[e.keyword] ?? "FieldValueInvalid",
      message: e.message ?? `${e.keyword} ${JSON.stringify(e.params)}`,
    };
  });
}

interface StructureWalk {
  errors: ValidationError[];
  /** Keywords the generator could not compile by design (a pattern RE2 rejects), met by a value. */
  skipped: SkippedRule[];
}

interface RuleWalk {
  errors: ValidationError[];
  skipped: SkippedRule[];
  /** What the CEL rules may still cost for this object (the API server's RuntimeCELCostBudget). */
  budget: number;
  /** Set once a cost limit stopped validation: the API server runs no further rule. */
  stopped: boolean;
}

interface Old {
  present: boolean;
  value?: unknown;
}
const absent: Old = { present: false };

/** List-type invariants and embedded resources: everything the server checks besides the schema, before CEL. */
function walkStructure(
  value: unknown,
  node: StructuralNode | undefined,
  segments: Segment[],
  schemaPath: string,
  out: StructureWalk,
): void {
  if (!node || value === null || value === undefined) return;
  for (const u of node.unchecked ?? [])
    out.skipped.push({
      field: fieldOf(segments, "field"),
      schemaPath: `${schemaPath}${u.path}`,
      rule: `${u.keyword}: ${u.value}`,
      reason: u.reason,
    });
  if (node.embeddedResource && segments.length > 0 && isJsonObject(value))
    checkEmbeddedResource(value, segments, schemaPath, out);
  if (Array.isArray(value)) {
    if (node.listType === "set" || node.listType === "map") checkListType(value, node, segments, schemaPath, out);
    value.forEach((item, index) =>
      walkStructure(item, node.items, [...segments, { index }], `${schemaPath}/items`, out),
    );
  } else if (isJsonObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const isProperty = node.properties !== undefined && Object.prototype.hasOwnProperty.call(node.properties, key);
      const schema = isProperty ? node.properties![key] : node.additionalProperties;
      if (!schema) continue;
      walkStructure(
        child,
        schema,
        [...segments, { key, kind: isProperty ? "property" : "key" }],
        `${schemaPath}/${isProperty ? `properties/${escapePointerSegment(key)}` : "additionalProperties"}`,
        out,
      );
    }
  }
}

/** Read through a call: the walk's own checks cannot see a nested evaluation setting it. */
const stopped = (out: RuleWalk) => out.stopped;

/** The CEL rules of every node, top-down as the server's validator visits them, until a cost limit stops it. */
function walkRules(
  value: unknown,
  old: Old,
  node: StructuralNode | undefined,
  segments: Segment[],
  schemaPath: string,
  out: RuleWalk,
): void {
  if (!node || value === null || value === undefined || out.stopped || !hasRules(node)) return;
  if (node.rules?.length) evaluateRules(value, old, node, segments, schemaPath, out);
  if (Array.isArray(value)) {
    const oldItems = node.listType === "map" ? mapListIndex(old, node.listMapKeys ?? []) : undefined;
    for (let index = 0; index < value.length && !stopped(out); index++) {
      const item: unknown = value[index];
      const oldItem = oldItems ? correlate(item, oldItems, node.listMapKeys ?? []) : absent;
      walkRules(item, oldItem, node.items, [...segments, { index }], `${schemaPath}/items`, out);
    }
  } else if (isJsonObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (stopped(out)) return;
      const isProperty = node.properties !== undefined && Object.prototype.hasOwnProperty.call(node.properties, key);
      const schema = isProperty ? node.properties![key] : node.additionalProperties;
      if (!schema) continue;
      const oldValue =
        old.present && isJsonObject(old.value) && Object.prototype.hasOwnProperty.call(old.value, key)
          ? { present: true, value: old.value[key] }
          : absent;
      walkRules(
        child,
        oldValue,
        schema,
        [...segments, { key, kind: isProperty ? "property" : "key" }],
        `${schemaPath}/${isProperty ? `properties/${escapePointerSegment(key)}` : "additionalProperties"}`,
        out,
      );
    }
  }
}

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** On create, a custom resource's name must be a DNS-1123 subdomain (or generateName given), as for every CR. */
function objectMetaErrors(data: unknown): ValidationError[] {
  const metadata = isJsonObject(data) ? data["metadata"] : undefined;
  const error = (message: string, reason = "FieldValueInvalid"): ValidationError => ({
    field: "metadata.name",
    instancePath: "/metadata/name",
    schemaPath: "",
    keyword: "metadata",
    reason,
    message,
  });
  if (!isJsonObject(metadata)) return [];
  const name = metadata["name"];
  if (typeof name === "string" && name !== "") {
    if (name.length > 253) return [error("must be no more than 253 characters")];
    if (!dns1123Subdomain.test(name))
      return [
        error(
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        ),
      ];
    return [];
  }
  const generateName = metadata["generateName"];
  return typeof generateName === "string" && generateName !== ""
    ? []
    : [error("name or generateName is required", "FieldValueRequired")];
}

/** x-kubernetes-embedded-resource: apiVersion and kind present and well-formed, metadata names usable in a path. */
function checkEmbeddedResource(
  value: Record<string, unknown>,
  segments: Segment[],
  schemaPath: string,
  out: StructureWalk,
): void {
  const push = (key: string, reason: string, message: string) => {
    const at = [...segments, { key, kind: "property" as const }];
    out.errors.push({
      field: fieldOf(at, "field"),
      instancePath: pointerOf(at),
      schemaPath: `${schemaPath}/x-kubernetes-embedded-resource`,
      keyword: "x-kubernetes-embedded-resource",
      reason,
      message,
    });
  };
  const { apiVersion, kind, metadata } = value;
  if (apiVersion === undefined) push("apiVersion", "FieldValueRequired", "Required value");
  else if (typeof apiVersion !== "string") push("apiVersion", "FieldValueInvalid", "must be a string");
  else if (apiVersion === "") push("apiVersion", "FieldValueInvalid", "must not be empty");
  else if (apiVersion.split("/").length > 2)
    push("apiVersion", "FieldValueInvalid", `unexpected GroupVersion string: ${apiVersion}`);
  if (kind === undefined) push("kind", "FieldValueRequired", "Required value");
  else if (typeof kind !== "string") push("kind", "FieldValueInvalid", "must be a string");
  else if (kind === "") push("kind", "FieldValueInvalid", "must not be empty");
  else if (kind.length > 63 || !dns1035Label.test(kind.toLowerCase()))
    push("kind", "FieldValueInvalid", "may have mixed case, but should otherwise match: a DNS-1035 label");
  if (isJsonObject(metadata)) {
    for (const key of ["name", "generateName"] as const) {
      const name = metadata[key];
      if (typeof name !== "string" || name === "") continue;
      const bad = (key === "name" && (name === "." || name === "..")) || name.includes("/") || name.includes("%");
      if (bad) {
        const at = [...segments, { key: "metadata", kind: "property" as const }, { key, kind: "property" as const }];
        out.errors.push({
          field: fieldOf(at, "field"),
          instancePath: pointerOf(at),
          schemaPath: `${schemaPath}/x-kubernetes-embedded-resource`,
          keyword: "x-kubernetes-embedded-resource",
          reason: "FieldValueInvalid",
          message: `may not ${name === "." || name === ".." ? `be '${name}'` : "contain '/' or '%'"}`,
        });
      }
    }
  }
}

/**
 * A JSON text that is the same for equal values whatever their key order: the identity of set items and map keys.
 * Linear in the value (plus sorting each object's keys).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isJsonObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  return value === undefined ? "undefined" : JSON.stringify(value);
}

/** The identity of a list-type=map item: its key values (a missing key is distinct from any value). */
const mapKeyIdentity = (item: unknown, keys: readonly string[]) =>
  canonicalJson(
    keys.map((k) => (isJsonObject(item) && Object.prototype.hasOwnProperty.call(item, k) ? item[k] : "\u0000missing")),
  );

// Indexes of old lists by item identity, built once per list so correlating n items costs O(n), not O(n²).
const listIndexes = new WeakMap<unknown[], Map<string, Map<string, unknown>>>();

function indexList(list: unknown[], how: string, identity: (item: unknown) => string | undefined) {
  let byHow = listIndexes.get(list);
  if (!byHow) listIndexes.set(list, (byHow = new Map<string, Map<string, unknown>>()));
  let index = byHow.get(how);
  if (!index) {
    index = new Map();
    for (const item of list) {
      const id = identity(item);
      if (id !== undefined && !index.has(id)) index.set(id, item);
    }
    byHow.set(how, index);
  }
  return index;
}

/** The old list-type=map list indexed by key values. */
function mapListIndex(old: Old, keys: readonly string[]): Map<string, unknown> | undefined {
  if (!old.present || !Array.isArray(old.value)) return undefined;
  return indexList(old.value, `map:${JSON.stringify(keys)}`, (o) =>
    isJsonObject(o) ? mapKeyIdentity(o, keys) : undefined,
  );
}

/** The old element of a list-type=map list with the same key values. */
function correlate(item: unknown, oldItems: Map<string, unknown>, keys: readonly string[]): Old {
  if (!isJsonObject(item)) return absent;
  const id = mapKeyIdentity(item, keys);
  return oldItems.has(id) ? { present: true, value: oldItems.get(id) } : absent;
}

function checkListType(
  list: unknown[],
  node: StructuralNode,
  segments: Segment[],
  schemaPath: string,
  out: StructureWalk,
): void {
  const seen = new Map<string, number>();
  list.forEach((item, index) => {
    let identity: string;
    if (node.listType === "set") identity = canonicalJson(item);
    else {
      if (item !== null && !isJsonObject(item)) return;
      identity = JSON.stringify(
        (node.listMapKeys ?? []).map((k) => (isJsonObject(item) && k in item ? item[k] : { unspecified: true })),
      );
    }
    const times = seen.get(identity) ?? 0;
    seen.set(identity, times + 1);
    if (times === 1) {
      const at = [...segments, { index }];
      out.errors.push({
        field: fieldOf(at, "field"),
        instancePath: pointerOf(at),
        schemaPath: `${schemaPath}/x-kubernetes-list-type`,
        keyword: "x-kubernetes-list-type",
        reason: "FieldValueDuplicate",
        message: `Duplicate value: ${node.listType === "set" ? JSON.stringify(item) : identity}`,
      });
    }
  });
}

/** Appends a rule's fieldPath (`.a.b`, `.a['b']`, `.list[0]`) to the node's path. */
function withFieldPath(segments: Segment[], fieldPath: string | undefined): Segment[] {
  if (!fieldPath) return segments;
  const out = [...segments];
  for (const m of fieldPath.matchAll(/\.([A-Za-z_][A-Za-z0-9_-]*)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[(\d+)\]/g)) {
    if (m[1] !== undefined) out.push({ key: m[1], kind: "property" });
    else if (m[2] !== undefined) out.push({ key: m[2], kind: "property" });
    else out.push({ index: Number(m[3]) });
  }
  return out;
}

/** How the API server names a rule in its errors: its message when it has one, else the expression. */
const ruleErrorString = (rule: CelRule) => (rule.message?.trim() ? rule.message.trim() : rule.rule.trim());
const ruleMessageOrDefault = (rule: CelRule) =>
  rule.message?.trim() ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;
const outOfBudget = "validation failed due to running out of cost budget, no further validation rules will be run";
/** celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const maxMessageBytes = 5 * 1024;

/**
 * Takes an evaluation's cost out of the budget as the server does: over the remaining budget is an out-of-budget
 * error, over the per-call limit a call-cost error; either stops all further rules. Returns the error, if any.
 */
function spend(evaluation: Evaluation, out: RuleWalk, overBudget: string, overLimit: string): string | undefined {
  if (evaluation.cost > out.budget) {
    out.stopped = true;
    return overBudget;
  }
  out.budget -= evaluation.cost;
  if (evaluation.costLimitExceeded) {
    out.stopped = true;
    return overLimit;
  }
  return undefined;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message.split("\n")[0] : String(error));

function evaluateRules(
  value: unknown,
  old: Old,
  node: StructuralNode,
  segments: Segment[],
  schemaPath: string,
  out: RuleWalk,
): void {
  const push = (at: Segment[], rulePath: string, reason: string, message: string) =>
    out.errors.push({
      field: fieldOf(at, "field"),
      instancePath: pointerOf(at),
      schemaPath: rulePath,
      keyword: "x-kubernetes-validations",
      reason,
      message,
    });
  const rulesPath = `${schemaPath}/x-kubernetes-validations`;
  if (out.budget <= 0) {
    out.stopped = true;
    push(segments, rulesPath, "FieldValueInvalid", outOfBudget);
    return;
  }
  for (const [i, rule] of (node.rules ?? []).entries()) {
    if (stopped(out)) return;
    const rulePath = `${rulesPath}/${i}/rule`;
    const compiled = compileRule(rule);
    if (!compiled.supported) {
      out.skipped.push({
        field: fieldOf(segments, "field"),
        schemaPath: rulePath,
        rule: rule.rule,
        reason: compiled.reason,
      });
      continue;
    }
    // Transition rules run only on updates where an old value exists, unless optionalOldSelf asks otherwise.
    if (compiled.usesOldSelf && !old.present && !rule.optionalOldSelf) continue;
    // Ratcheting: a rule that does not read oldSelf is not run on a value the update left unchanged.
    if (!compiled.usesOldSelf && old.present && sameJson(value, old.value)) continue;
    const vars: Record<string, unknown> = { self: toCelValue(value, node) };
    if (compiled.usesOldSelf) {
      const oldValue = old.present ? toCelValue(old.value, node) : undefined;
      vars["oldSelf"] = rule.optionalOldSelf ? (old.present ? Optional.of(oldValue) : Optional.none()) : oldValue;
    }
    const result = compiled.run(vars);
    const costError = spend(
      result,
      out,
      outOfBudget,
      `'${costLimitExceededMessage}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
    );
    if (costError !== undefined) {
      push(segments, rulePath, "FieldValueInvalid", costError);
      return;
    }
    if ("error" in result) {
      push(
        segments,
        rulePath,
        "FieldValueInvalid",
        `${errorText(result.error)} evaluating rule: ${ruleErrorString(rule)}`,
      );
      continue;
    }
    if (result.value === true) continue;
    const at = withFieldPath(segments, rule.fieldPath);
    if (result.value !== false) {
      push(
        at,
        rulePath,
        rule.reason ?? "FieldValueInvalid",
        `rule did not evaluate to a bool: ${String(result.value)}`,
      );
      continue;
    }
    let message = ruleMessageOrDefault(rule);
    if (compiled.message) {
      const detail = compiled.message(vars);
      const messageCostError = spend(
        detail,
        out,
        `messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run`,
        `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.messageExpression)}`,
      );
      if (messageCostError !== undefined) {
        push(at, rulePath, "FieldValueInvalid", messageCostError);
        return;
      }
      const text = typeof detail.value === "string" ? detail.value.trim() : "";
      // As the server: an unusable message (error, not a string, empty, too long, multi-line) falls back.
      if (!("error" in detail) && text !== "" && Buffer.byteLength(text) <= maxMessageBytes && !text.includes("\n"))
        message = text;
    }
    push(at, rulePath, rule.reason ?? "FieldValueInvalid", message);
  }
}

/** Validates an object of one CRD version as the API server would on create (or update, with oldObject). */
export function validateResource(
  object: unknown,
  version: VersionValidation,
  options: ValidateOptions = {},
): ValidationResult {
  const normalize = options.normalize ?? true;
  const data = normalize ? normalizeLikeApiServer(object, version.structure) : object;
  const old =
    options.oldObject === undefined
      ? absent
      : {
          present: true,
          value: normalize ? normalizeLikeApiServer(options.oldObject, version.structure) : options.oldObject,
        };
  const structure: StructureWalk = { errors: [], skipped: [] };
  walkStructure(data, version.structure, [], "", structure);
  let errors = [...(old.present ? [] : objectMetaErrors(data)), ...schemaErrors(data, version), ...structure.errors];
  // Update ratcheting (the API server's CRDValidationRatcheting, on by default): an error inside a value that is
  // unchanged since the old object is not reported, so old objects stay updatable after a schema tightened.
  if (old.present) {
    const same = memoizedSameJson();
    errors = errors.filter((e) => !unchangedSinceOld(e.instancePath, data, old.value, version.structure, same));
  }
  // The API server runs no CEL rule once the schema found a blocking error, and says so (when the CRD has rules).
  if (hasRules(version.structure) && errors.some((e) => blockingReasons.has(e.reason))) {
    errors.push({
      field: "",
      instancePath: "",
      schemaPath: "",
      keyword: "x-kubernetes-validations",
      reason: "FieldValueInvalid",
      message:
        "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    });
    return { valid: false, errors, skipped: structure.skipped };
  }
  const rules: RuleWalk = { errors: [], skipped: [], budget: runtimeCostBudget, stopped: false };
  walkRules(data, old, version.structure, [], "", rules);
  errors.push(...rules.errors);
  return { valid: errors.length === 0, errors, skipped: [...structure.skipped, ...rules.skipped] };
}

const withRules = new WeakMap<StructuralNode, boolean>();
function hasRules(node: StructuralNode): boolean {
  let known = withRules.get(node);
  if (known === undefined) {
    known =
      (node.rules?.length ?? 0) > 0 ||
      Object.values(node.properties ?? {}).some(hasRules) ||
      (node.items !== undefined && hasRules(node.items)) ||
      (node.additionalProperties !== undefined && hasRules(node.additionalProperties));
    withRules.set(node, known);
  }
  return known;
}

/**
 * Whether some value on the way to instancePath (or the value there) equals its correlated old value. Values
 * correlate through properties and map keys, list-type=map items by their keys, set items by value; items of
 * atomic lists do not correlate (only the whole list does).
 */
function unchangedSinceOld(
  instancePath: string,
  data: unknown,
  oldData: unknown,
  structure: StructuralNode,
  same: (a: unknown, b: unknown) => boolean,
): boolean {
  const parts = instancePath === "" ? [] : instancePath.slice(1).split("/").map(unescapePointerSegment);
  let value = data;
  let old = oldData;
  let node: StructuralNode | undefined = structure;
  for (const part of parts) {
    if (same(value, old)) return true;
    if (Array.isArray(value)) {
      const item: unknown = value[Number(part)];
      if (!Array.isArray(old) || !node) return false;
      const keys = node.listMapKeys ?? [];
      const match: unknown =
        node.listType === "map" && isJsonObject(item)
          ? mapListIndex({ present: true, value: old }, keys)?.get(mapKeyIdentity(item, keys))
          : node.listType === "set"
            ? indexList(old, "set", canonicalJson).get(canonicalJson(item))
            : undefined;
      if (match === undefined) return false;
      value = item;
      old = match;
      node = node.items;
    } else {
      if (!isJsonObject(value) || !isJsonObject(old) || !Object.prototype.hasOwnProperty.call(old, part)) return false;
      value = value[part];
      old = old[part];
      node = childSchema(node, part);
    }
  }
  return same(value, old);
}

/**
 * sameJson remembering its answers for pairs of objects, so that checking every error of a large update against
 * the old object compares each pair of containers once rather than once per error.
 */
function memoizedSameJson(): (a: unknown, b: unknown) => boolean {
  const known = new WeakMap<object, WeakMap<object, boolean>>();
  return (a, b) => {
    if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return sameJson(a, b);
    let row = known.get(a);
    if (!row) known.set(a, (row = new WeakMap()));
    let answer = row.get(b);
    if (answer === undefined) row.set(b, (answer = sameJson(a, b)));
    return answer;
  };
}
