// Writes JSDoc blocks from descriptions and schema constraints; no description text can end the comment early or add a
// tag.
import { numericConstraints, type Constraints } from "../model/schema-node.js";
import { escapeInvisible } from "../ts-literal.js";

/**
 * Makes text safe inside a block comment: "*\/" would close it, so the slash is escaped; every line break becomes "\n";
 * NUL and other control characters, bidirectional overrides and invisible format characters become \uXXXX text, so
 * what a reviewer sees is what the compiler reads.
 */
export function commentSafe(text: string): string {
  return escapeInvisible(text.replace(/\*\//g, "*\\/").replace(/\r\n?|[\u2028\u2029]/g, "\n"));
}

/**
 * A description line that starts with "@" (after indentation) would be read as a JSDoc tag, so a description could
 * deprecate a field or invent a default; TSDoc's escape "\@" keeps it as text.
 */
function textLine(line: string): string {
  return line.replace(/^(\s*)@/, "$1\\@");
}

const requiredMeaning = {
  oneOf: "exactly one of these field sets must be set",
  anyOf: "at least one of these field sets must be set",
  allOf: "all of these field sets must be set",
  not: "these fields must not all be set",
} as const;

const valueMeaning = {
  oneOf: "exactly one of these must hold",
  anyOf: "at least one of these must hold",
  allOf: "all of these must hold",
  not: "this must not hold",
} as const;

/** The @default tag of a node: what the API server sets where the field is absent. */
export function defaultTags(c: Constraints): string[] {
  return c.default ? [`@default ${JSON.stringify(c.default.value)}`] : [];
}

/** A node's constraints as tags; `rulesOnly` leaves out @default, which a named type's property carries instead. */
export function constraintTags(c: Constraints, rulesOnly = false): string[] {
  return [
    ...(rulesOnly ? [] : defaultTags(c)),
    ...valueTags(c),
    ...listAndMapTags(c),
    ...celTags(c),
    ...combinatorTags(c),
  ];
}

/** Bounds, counts, pattern and format. */
function valueTags(c: Constraints): string[] {
  const tags = numericConstraints.filter((key) => c[key] !== undefined).map((key) => `@${key} ${String(c[key])}`);
  if (c.exclusiveMinimum) tags.push("@exclusiveMinimum");
  if (c.exclusiveMaximum) tags.push("@exclusiveMaximum");
  if (c.uniqueItems) tags.push("@uniqueItems");
  if (c.pattern !== undefined) tags.push(`@pattern ${c.pattern}`);
  if (c.format !== undefined) tags.push(`@format ${c.format}`);
  return tags;
}

/** x-kubernetes-list-type, -list-map-keys and -map-type. */
function listAndMapTags(c: Constraints): string[] {
  const tags: string[] = [];
  if (c.listType) tags.push(`@listType ${c.listType}`);
  if (c.listMapKeys) tags.push(`@listMapKeys ${c.listMapKeys.join(", ")}`);
  if (c.mapType) tags.push(`@mapType ${c.mapType}`);
  return tags;
}

/** Each x-kubernetes-validations rule on one line, with its message, reason and field path. */
function celTags(c: Constraints): string[] {
  return (c.validations ?? []).map((v) => {
    const message = v.message ?? (v.messageExpression ? `(messageExpression) ${v.messageExpression}` : undefined);
    const where = [v.reason ? `reason ${v.reason}` : "", v.fieldPath ? `fieldPath ${v.fieldPath}` : ""]
      .filter(Boolean)
      .join(", ");
    return `@validation ${v.rule.replace(/\s*\n\s*/g, " ")}${message ? ` — ${message}` : ""}${where ? ` (${where})` : ""}`;
  });
}

/** oneOf/anyOf/allOf/not, of required field sets or of values, as remarks saying what they mean. */
function combinatorTags(c: Constraints): string[] {
  const required = (c.requiredCombinators ?? []).map((r) => {
    const sets = r.alternatives.map((a) => `[${a.join(", ")}]`).join(" | ");
    return `@remarks ${r.combinator}: ${requiredMeaning[r.combinator]}: ${sets}`;
  });
  const values = (c.valueCombinators ?? []).map((v) => {
    const members = v.members.map((m) => JSON.stringify(m)).join(" | ");
    return `@remarks ${v.combinator}: ${valueMeaning[v.combinator]}: ${members}`;
  });
  return [...required, ...values];
}

/**
 * The tags of an array's items or a map's values that have no declaration of their own (strings, numbers, ...),
 * written on the property: "@pattern x" on the items becomes "@itemPattern x", on map values "@valuePattern x".
 */
export function nestedTags(prefix: string, tags: string[]): string[] {
  return tags.map((t) => t.replace(/^@(\w)/, (_, first: string) => `@${prefix}${first.toUpperCase()}`));
}

/** The formatter's width: a JSDoc line longer than it is wrapped at spaces, where that keeps its meaning. */
const lineWidth = 120;

/** Tags of prose or CEL, wrapped like text; others (@default, @pattern, @format, ...) hold a value read verbatim. */
const wrappedTag = /^@(?:\w*(?:Validation|Remarks)|validation|remarks|deprecated) /;

/** How a wrapped tag's continuation lines are indented, under the tag's text. */
const continuation = "  ";

/** A JSDoc block indented by `indent`, or "" when there is nothing to say. */
export function jsdoc(indent: string, description: string | undefined, tags: string[] = []): string {
  const width = lineWidth - indent.length - " * ".length;
  const lines: string[] = [];
  const text = description === undefined ? "" : commentSafe(description).trim();
  if (text) lines.push(...descriptionLines(text, width));
  if (text && tags.length) lines.push("");
  for (const tag of tags) {
    // Only a tag's first line is a tag; its continuation lines (a multi-line message, a wrapped rule) are text.
    const [first = "", ...rest] = commentSafe(tag).split("\n");
    const [head = "", ...wrapped] = wrappedTag.test(first)
      ? wrapWords(first, width - continuation.length, splitOutsideQuotes)
      : [first];
    lines.push(head, ...wrapped.map((l) => textLine(continuation + l)), ...rest.map(textLine));
  }
  if (lines.length === 0) return "";
  return `${indent}/**\n${lines.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)).join("\n")}\n${indent} */\n`;
}

/**
 * A description's lines, each longer than `width` wrapped at spaces, as markdown joins them again. Lines inside a
 * ``` fence, indented lines (code, nested lists) and table rows are kept whole.
 */
function descriptionLines(text: string, width: number): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    const keep = fenced || /^[\s|]/.test(line) || line.trimStart().startsWith("```");
    lines.push(...(keep ? [line] : wrapWords(line, width, (l) => l.split(" "))).map(textLine));
  }
  return lines;
}

/** `line` as lines of at most `width` where its words allow (a longer word stays whole on its own line). */
function wrapWords(line: string, width: number, words: (line: string) => string[]): string[] {
  if (line.length <= width) return [line];
  const lines: string[] = [];
  let current = "";
  for (const word of words(line)) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  lines.push(current);
  return lines;
}

/**
 * A CEL rule's words: split at spaces outside its string literals, so a wrapped rule never breaks a string. A quote
 * opens a literal only after a non-word character, so an apostrophe in the message (the cluster's) does not.
 */
function splitOutsideQuotes(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | undefined;
  // Spaces, quotes and backslashes are single UTF-16 units, so walking the units finds every one.
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote === undefined && ch === " ") {
      words.push(word);
      word = "";
      continue;
    }
    if (quote !== undefined && ch === quote && line[i - 1] !== "\\") quote = undefined;
    else if (quote === undefined && (ch === "'" || ch === '"') && !/\w/.test(line[i - 1] ?? "")) quote = ch;
    word += ch;
  }
  words.push(word);
  return words;
}
