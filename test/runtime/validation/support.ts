// A CRD version's validation built in memory the way crdgen generates it (ajv standalone code compiled by the
// generator, the structural tree), so runtime tests can validate against a schema written in the test.
import { compileFunction } from "node:vm";
import { validatorRequire, type SchemaValidateFunction, type VersionValidation } from "@crdgen/runtime/validation";
import { toAjvSchema } from "../../../generator/validation/ajv-schema.js";
import { compileSchemaValidator } from "../../../generator/validation/compile-validator.js";
import { structuralNode } from "../../../generator/validation/structural-skeleton.js";

export function versionValidation(openAPIV3Schema: Record<string, unknown>): VersionValidation {
  const code = compileSchemaValidator(toAjvSchema(openAPIV3Schema).schema);
  const module = { exports: {} as unknown };
  // The generated module is CommonJS run with crdgen's require, exactly as the generated template runs it.
  const run = compileFunction(code, ["require", "module"]) as (req: typeof validatorRequire, mod: object) => void;
  run(validatorRequire, module);
  return { schemaValidator: module.exports as SchemaValidateFunction, structure: structuralNode(openAPIV3Schema) };
}

/** A custom resource of the test kind with the given spec. */
export const resource = (spec: unknown) => ({
  apiVersion: "bounds.crdgen.dev/v1",
  kind: "Bound",
  metadata: { name: "hostile" },
  spec,
});

/** An object schema with `spec` as given, as a CRD's openAPIV3Schema. */
export const withSpec = (spec: Record<string, unknown>) => ({
  type: "object",
  properties: { spec: { type: "object", ...spec } },
});
