// Compiles the ajv schema of a CRD version ahead of time into standalone ES module code.
import AjvModule, { _ } from "ajv";
import standaloneModule from "ajv/dist/standalone/index.js";
import { formatsModuleId, patternModuleId, re2Pattern, validatorFormats } from "@crdgen/runtime/validation";
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
 * type or out of range (`maxLength: "ten"`, `multipleOf: 0`, `required: name`). Empty when it compiles.
 */
export function schemaProblems(schema: Record<string, unknown>): SchemaProblem[] {
  const ajv = newAjv();
  if (ajv.validateSchema(schema)) return [];
  return (ajv.errors ?? []).map((e) => {
    // ajv names the keyword's value at fault (".../maxLength"), or a whole schema (".../properties/name").
    const segments = e.instancePath.split("/");
    const isSchema = segments.length < 2 || segments.at(-2) === "properties";
    return {
      pointer: e.instancePath,
      keyword: isSchema ? e.keyword : segments.at(-1)!,
      message: e.message ?? e.keyword,
    };
  });
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
