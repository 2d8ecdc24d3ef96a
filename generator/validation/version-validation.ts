// Everything the two validation templates need for one CRD version: the ajv code and the structural tree.
import type { CrdModel, VersionModel } from "../model/resource-model.js";
import type { SchemaWarning } from "../model/normalize-schema.js";
import { toAjvSchema } from "./ajv-schema.js";
import { compileSchemaValidator, schemaProblems } from "./compile-validator.js";
import { InputError } from "../input-error.js";
import { emitStructure, structuralNode, uncheckedByNode } from "./structural-skeleton.js";

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
  /** The name the validation module imports @crdgen/runtime/validation as (a kind may be named StructuralNode). */
  runtimeValidation = "validation",
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
  const { schema, plain, dropped } = toAjvSchema(version.openAPIV3Schema);
  for (const d of dropped) warnings.push({ ...where(d.schemaPath), message: d.message });
  // A validator that cannot check a keyword must not accept everything: the run fails, naming the keyword.
  const [problem, ...more] = schemaProblems(plain);
  if (problem)
    throw new InputError(
      where(problem.pointer),
      `--validation cannot compile keyword ${problem.keyword}: ${problem.message}${more.length ? ` (and ${more.length} more problem(s) in this schema)` : ""}`,
    );
  let schemaValidatorCode: string;
  try {
    schemaValidatorCode = compileSchemaValidator(schema);
  } catch (error) {
    throw new InputError(
      where(""),
      `--validation cannot compile the schema: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
    );
  }
  const structure = emitStructure(
    structuralNode(version.openAPIV3Schema, uncheckedByNode(dropped)),
    "node",
    `${runtimeValidation}.StructuralNode`,
  );
  return { schemaValidatorCode, structureDeclarations: structure.declarations, structureRoot: structure.root };
}
