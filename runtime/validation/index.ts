// @crdgen/runtime/validation: what crdgen's generated applyDefaults() and validate() run on.
export * from "./structural.js";
export * from "./structural-defaulting.js";
export * from "./validate.js";
export { kubernetesFormats, kubernetesFormatName, kubernetesNumberFormats, validatorFormats } from "./formats.js";
export { validatorRequire, re2Pattern, formatsModuleId, patternModuleId } from "./ajv-support.js";
export { compileRule, type CompiledRule } from "./cel-rules.js";
