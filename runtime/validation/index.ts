// @crdgen/runtime/validation: what crdgen's generated applyDefaults() and validate() run on.
// The tree generated code builds (generator/validation/structural-skeleton.ts writes it).
export type { CelRule, StructuralNode, UncheckedKeyword } from "./structural.js";
export { defaultLikeApiServer, normalizeLikeApiServer } from "./structural-defaulting.js";
export {
  type SchemaValidateFunction,
  type SchemaValidatorError,
  type SkippedRule,
  type ValidateOptions,
  type ValidationError,
  type ValidationResult,
  type VersionValidation,
  validateResource,
} from "./validate.js";
// What the generator compiles ajv's standalone validators with, and what those validators require at run time.
export { kubernetesFormatName, validatorFormats } from "./formats.js";
export { validatorRequire, re2Pattern, formatsModuleId, patternModuleId, protoPattern } from "./ajv-support.js";
