// The one error type for bad generator input: it names the file, the line and column, the YAML document and the
// schema path.
import { jsonPointer } from "@crdgen/runtime/json";
import { escapeInvisible } from "./ts-literal.js";
import { UserError } from "./user-error.js";

export interface InputLocation {
  /** The input file as the user named it ("-" for stdin). */
  file: string;
  /** Zero-based index of the YAML document in a multi-document file (messages count from 1, as editors do). */
  documentIndex?: number;
  /** JSON pointer inside the document, e.g. /spec/versions/0/schema/openAPIV3Schema/properties/spec. */
  schemaPath?: string;
  /** One-based line and column of the offending key (or value) in the file, when known. */
  line?: number;
  column?: number;
}

/** A problem the API server would accept (or drop with a warning): reported, and fatal only with --strict. */
export interface InputWarning extends InputLocation {
  message: string;
}

/**
 * Text from the input (a file name, a key, a value) as a terminal shows it on one line: the characters that restyle
 * or move the terminal (ESC, BEL, other controls, bidirectional overrides) and line breaks written as \uXXXX escapes.
 */
export function terminalText(text: string): string {
  return escapeInvisible(text).replace(
    /[\t\n\r\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A warning as the CLI prints it: located, and escaped like an InputError's message. */
export function formatWarning(warning: InputWarning): string {
  return `${formatLocation(warning)}: ${terminalText(warning.message)}`;
}

export class InputError extends UserError {
  constructor(
    readonly location: InputLocation,
    readonly problem: string,
  ) {
    // The problem quotes keys and values of the input: escaped, like the file name, for the terminal.
    super(`${formatLocation(location)}: ${terminalText(problem)}`);
    this.name = "InputError";
  }
}

/**
 * `file:line:column (document N) at /pointer`, the form editors and terminals turn into a link. File names and keys
 * come from the user (or a cluster): escaped by terminalText, so they can neither restyle the terminal nor break the
 * line.
 */
export function formatLocation({ file, documentIndex, schemaPath, line, column }: InputLocation): string {
  let where = file === "-" ? "stdin" : terminalText(file);
  if (line !== undefined) where += `:${line}:${column ?? 1}`;
  if (documentIndex !== undefined) where += ` (document ${documentIndex + 1})`;
  if (schemaPath) where += ` at ${terminalText(schemaPath)}`;
  return where;
}

/** The same error, with the line and column of its location (found once the error is known: see source-positions). */
export function withPosition(error: InputError, position: { line: number; column: number } | undefined): InputError {
  return position ? new InputError({ ...error.location, ...position }, error.problem) : error;
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
