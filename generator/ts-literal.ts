// The one way text from a CRD (or from the command line) enters generated code: as a TypeScript string literal, or
// as comment text in which no character is invisible, reorders what a reviewer sees, or ends the comment's line.

/**
 * Control characters (but tab and line breaks, which comments handle themselves), bidirectional overrides and
 * isolates (U+202A-U+202E, U+2066-U+2069), other format characters that render as nothing, and the BOM.
 */
const invisible = new RegExp(
  "[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e" +
    "\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2069\\ufeff]",
  "g",
);

const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Text with every invisible character written as its \uXXXX escape, so what a reviewer sees is what is there. */
export function escapeInvisible(text: string): string {
  return text.replace(invisible, unicodeEscape);
}

/**
 * A TypeScript literal of a JSON value (a string is double-quoted): JSON's escaping, plus the characters that render
 * as nothing. Every string of a CRD that reaches generated code as code goes through here.
 */
export function tsLiteral(value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) throw new Error(`internal: ${typeof value} has no TypeScript literal`);
  return escapeInvisible(json).replace(/[\u2028\u2029]/g, unicodeEscape);
}

/** A double-quoted TypeScript string literal of `value` (tsLiteral of a string). */
export const tsString = (value: string): string => tsLiteral(value);

/**
 * Text for a one-line comment (`//`, or a one-line `/** *\/`): escaped like escapeInvisible, no line break (which
 * would end a `//` comment) and no "*\/" (which would end a block comment).
 */
export function lineCommentText(text: string): string {
  return escapeInvisible(text)
    .replace(/[\t\n\r\u2028\u2029]/g, unicodeEscape)
    .replace(/\*\//g, "*\\/");
}
