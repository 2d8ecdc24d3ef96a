// The one error type for bad generator input: it names the file, the YAML document and the schema path.
import { UserError } from "../user-error.js";

export interface InputLocation {
  /** The input file as the user named it ("-" for stdin). */
  file: string;
  /** Zero-based index of the YAML document in a multi-document file. */
  documentIndex?: number;
  /** JSON pointer inside the document, e.g. /spec/versions/0/schema/openAPIV3Schema/properties/spec. */
  schemaPath?: string;
}

export class InputError extends UserError {
  constructor(readonly location: InputLocation, readonly problem: string) {
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
  return segments.reduce<string>((p, s) => `${p}/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`, base);
}
