// Compiles the ajv schema of a CRD version ahead of time into standalone ES module code.
import AjvModule, { _ } from "ajv";
import standaloneModule from "ajv/dist/standalone/index.js";
import { formatsModuleId, patternModuleId, re2Pattern, validatorFormats } from "@crdgen/runtime/validation";
import { pointer } from "../input-error.js";
import { escapeInvisible } from "../ts-literal.js";

// ajv is CommonJS: under NodeNext its default export is the module object.
const Ajv = AjvModule.default;
const standaloneCode = standaloneModule.default;

const patternEngine = Object.assign((source: string) => re2Pattern(source), {
  code: `require(${JSON.stringify(patternModuleId)}).re2Pattern`,
});

/** A keyword ajv cannot compile: where it is in the schema (a JSON pointer), which keyword, and what is wrong. */
export interface SchemaProblem {
  pointer: string;
  keyword: string;
  message: string;
}

/**
 * What keeps ajv from compiling the schema, checked against JSON Schema's own meta-schema: a keyword of the wrong
 * type or out of range (`maxLength: "ten"`, `multipleOf: 0`, `required: name`). Empty when it compiles. An enum's
 * values are checked for repeats here, with a Set: the meta-schema's uniqueItems compares every pair, which took a
 * minute on a 100,000-value enum.
 */
export function schemaProblems(schema: Record<string, unknown>): SchemaProblem[] {
  const repeats: SchemaProblem[] = [];
  const checked = withEnumsChecked(schema, "", repeats) as Raw;
  const ajv = newAjv();
  if (ajv.validateSchema(checked)) return repeats;
  return [
    ...repeats,
    ...(ajv.errors ?? []).map((e) => {
      // ajv names the keyword's value at fault (".../maxLength"), or a whole schema (".../properties/name").
      const segments = e.instancePath.split("/");
      const isSchema = segments.length < 2 || segments.at(-2) === "properties";
      return {
        pointer: e.instancePath,
        keyword: isSchema ? e.keyword : segments.at(-1)!,
        message: e.message ?? e.keyword,
      };
    }),
  ];
}

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The schema for the meta-schema check, each enum of distinct values cut to its first value (the check then sees the
 * enum's shape, not every pair of its values); a repeated value is added to `repeats`. Copied only along the paths to
 * the enums it cuts: the rest is the schema's own nodes.
 */
function withEnumsChecked(node: unknown, at: string, repeats: SchemaProblem[]): unknown {
  if (!isRecord(node)) return node;
  let copy: Raw | undefined;
  const keep = (key: string, value: unknown) => {
    if (value === node[key]) return;
    copy ??= Object.assign(Object.create(null) as Raw, node);
    copy[key] = value;
  };
  for (const [key, value] of Object.entries(node)) {
    const here = `${at}/${key}`;
    if (key === "enum") keep(key, enumStandIn(value, here, repeats));
    else if (key === "properties" && isRecord(value)) {
      let properties: Raw | undefined;
      for (const [name, child] of Object.entries(value)) {
        const checked = withEnumsChecked(child, pointer(at, "properties", name), repeats);
        if (checked === child) continue;
        properties ??= Object.assign(Object.create(null) as Raw, value);
        properties[name] = checked;
      }
      keep(key, properties ?? value);
    } else if (Array.isArray(value) && combinators.has(key)) {
      const members = value.map((member, i) => withEnumsChecked(member, `${here}/${i}`, repeats));
      keep(key, members.some((m, i) => m !== value[i]) ? members : value);
    } else if (subschemas.has(key)) keep(key, withEnumsChecked(value, here, repeats));
  }
  return copy ?? node;
}

const combinators = new Set(["allOf", "anyOf", "oneOf"]);
const subschemas = new Set(["items", "additionalProperties", "not"]);

/** The enum's first value when the enum is a list of distinct values (a repeat is added to `repeats`); else the enum. */
function enumStandIn(values: unknown, at: string, repeats: SchemaProblem[]): unknown {
  if (!Array.isArray(values) || values.length < 2) return values;
  const first = new Map<string, number>();
  for (const [i, value] of values.entries()) {
    const key = canonicalJson(value);
    const seen = first.get(key);
    if (seen !== undefined) {
      repeats.push({ pointer: `${at}/${i}`, keyword: "enum", message: `repeats value ${seen} of the enum` });
      break;
    }
    first.set(key, i);
  }
  return [values[0]];
}

/** JSON text with object keys sorted: equal for values ajv's uniqueItems calls equal ({a,b} and {b,a}). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/**
 * CommonJS source assigning the validate function to module.exports; the template runs it with its own require and
 * module. Throws when ajv cannot compile a keyword, or would ignore one (it only logs an unknown format): a validator
 * that silently skips a keyword is never emitted.
 */
export function compileSchemaValidator(schema: Record<string, unknown>): string {
  const ajv = newAjv();
  // Property names, enums and patterns from the CRD sit in ajv's string literals: invisible characters are escaped
  // there as everywhere else, so the module reads as what it does (an escape in a string keeps the string's value).
  return escapeInvisible(standaloneCode(ajv, ajv.compile(schema)));
}

function newAjv(): InstanceType<typeof Ajv> {
  const refuse = (...args: unknown[]) => {
    throw new Error(args.map(String).join(" "));
  };
  return new Ajv({
    logger: { log: () => undefined, warn: refuse, error: refuse },
    allErrors: true,
    strict: false,
    // schemaProblems checks the schema first, in linear time; ajv's own check would compare every pair of enum values.
    validateSchema: false,
    inlineRefs: false,
    unicodeRegExp: false,
    // Properties are own properties: a field named constructor or toString is absent when the object lacks it, not
    // Object.prototype's member.
    ownProperties: true,
    formats: validatorFormats,
    code: {
      source: true,
      esm: false,
      lines: false,
      optimize: 1,
      formats: _`require(${formatsModuleId})`,
      regExp: patternEngine,
    },
  });
}
