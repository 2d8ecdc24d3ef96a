// The one error type for bad generator input: it names the file, the YAML document and the schema path.
import { jsonPointer } from "@crdgen/runtime/json";
import { UserError } from "./user-error.js";

export interface InputLocation {
  /** The input file as the user named it ("-" for stdin). */
  file: string;
  /** Zero-based index of the YAML document in a multi-document file. */
  documentIndex?: number;
  /** JSON pointer inside the document, e.g. /spec/versions/0/schema/openAPIV3Schema/properties/spec. */
  schemaPath?: string;
}

export class InputError extends UserError {
  constructor(
    readonly location: InputLocation,
    readonly problem: string,
  ) {
    super(`${formatLocation(location)}: ${problem}`);
    this.name = "InputError";
  }
}

export function formatLocation({ file, documentIndex, schemaPath }: InputLocation): string {
  let where = file === "-" ? "stdin" : file;
  if (documentIndex !== undefined) where += ` (document ${documentIndex})`;
  if (schemaPath) where += ` at ${schemaPath}`;
  return where;
}

/** Appends one segment to a JSON pointer, escaping "~" and "/" as RFC 6901 asks. */
export function pointer(base: string, ...segments: Array<string | number>): string {
  return base + jsonPointer(...segments);
}

/** A YAML value where text is expected: a scalar as String() prints it, "" when absent, a mapping or sequence as JSON. */
export function scalarText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  return JSON.stringify(value);
}
