// Compiles the ajv schema of a CRD version ahead of time into standalone ES module code.
import AjvModule, { _ } from "ajv";
import standaloneModule from "ajv/dist/standalone/index.js";
import { formatsModuleId, patternModuleId, re2Pattern, validatorFormats } from "@crdgen/runtime/validation";

// ajv is CommonJS: under NodeNext its default export is the module object.
const Ajv = AjvModule.default;
const standaloneCode = standaloneModule.default;

const patternEngine = Object.assign((source: string) => re2Pattern(source), {
  code: `require(${JSON.stringify(patternModuleId)}).re2Pattern`,
});

/** CommonJS source assigning the validate function to module.exports; the template runs it with its own require and module. */
export function compileSchemaValidator(schema: Record<string, unknown>): string {
  const ajv = new Ajv({
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
  return standaloneCode(ajv, ajv.compile(schema));
}
