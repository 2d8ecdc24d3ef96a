// Everything the two validation templates need for one CRD version: the ajv code and the structural tree.
import type { CrdModel, VersionModel } from "../model/resource-model.js";
import type { SchemaWarning } from "../model/normalize-schema.js";
import { toAjvSchema } from "./ajv-schema.js";
import { compileSchemaValidator } from "./compile-validator.js";
import { emitStructure, structuralNode } from "./structural-skeleton.js";

export interface VersionValidationCode {
  /** ajv standalone ES module code (default export: the validate function). */
  schemaValidatorCode: string;
  /** `const` declarations of shared structural nodes, then the root's expression. */
  structureDeclarations: string;
  structureRoot: string;
}

export function versionValidationCode(
  crd: CrdModel,
  version: VersionModel,
  warnings: SchemaWarning[],
): VersionValidationCode {
  const where = (schemaPath: string) => ({
    file: crd.source.file,
    documentIndex: crd.source.documentIndex,
    schemaPath: `${version.schemaPointer}${schemaPath}`,
  });
  if (!version.openAPIV3Schema)
    throw new Error(
      `internal: ${crd.name} ${version.name} was modelled without its raw schema (ModelOptions.rawSchemas)`,
    );
  const { schema, dropped } = toAjvSchema(version.openAPIV3Schema);
  for (const d of dropped) warnings.push({ ...where(d.schemaPath), message: d.message });
  let schemaValidatorCode: string;
  try {
    schemaValidatorCode = compileSchemaValidator(schema);
  } catch (error) {
    // Never abort the run: the version gets a validator that checks nothing, and the user is told.
    warnings.push({
      ...where(""),
      message: `the schema could not be compiled for validation, validate() checks only CEL rules and list types: ${error instanceof Error ? error.message : String(error)}`,
    });
    schemaValidatorCode = compileSchemaValidator({});
  }
  const structure = emitStructure(structuralNode(version.openAPIV3Schema), "node");
  return { schemaValidatorCode, structureDeclarations: structure.declarations, structureRoot: structure.root };
}
