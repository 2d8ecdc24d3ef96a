// Writes JSDoc blocks from descriptions and schema constraints; no description text can end the comment early.
import type { Constraints } from "../model/schema-node.js";

/** Makes text safe inside a block comment: "*\/" would close it, so the slash is escaped. */
export function commentSafe(text: string): string {
  return text.replace(/\*\//g, "*\\/").replace(/\r\n?/g, "\n");
}

export function constraintTags(c: Constraints): string[] {
  const tags: string[] = [];
  const json = (v: unknown) => JSON.stringify(v);
  if (c.default) tags.push(`@default ${json(c.default.value)}`);
  const numeric: Array<[keyof Constraints, string]> = [
    ["minimum", "minimum"], ["maximum", "maximum"], ["multipleOf", "multipleOf"], ["minLength", "minLength"], ["maxLength", "maxLength"],
    ["minItems", "minItems"], ["maxItems", "maxItems"], ["minProperties", "minProperties"], ["maxProperties", "maxProperties"],
  ];
  for (const [key, tag] of numeric) if (c[key] !== undefined) tags.push(`@${tag} ${String(c[key])}`);
  if (c.exclusiveMinimum) tags.push("@exclusiveMinimum");
  if (c.exclusiveMaximum) tags.push("@exclusiveMaximum");
  if (c.uniqueItems) tags.push("@uniqueItems");
  if (c.pattern !== undefined) tags.push(`@pattern ${c.pattern}`);
  if (c.format !== undefined) tags.push(`@format ${c.format}`);
  if (c.listType) tags.push(`@listType ${c.listType}`);
  if (c.listMapKeys) tags.push(`@listMapKeys ${c.listMapKeys.join(", ")}`);
  if (c.mapType) tags.push(`@mapType ${c.mapType}`);
  for (const v of c.validations ?? []) {
    const message = v.message ?? (v.messageExpression ? `(messageExpression) ${v.messageExpression}` : undefined);
    tags.push(`@validation ${v.rule.replace(/\s*\n\s*/g, " ")}${message ? ` — ${message}` : ""}`);
  }
  for (const r of c.requiredCombinators ?? []) {
    const sets = r.alternatives.map((a) => `[${a.join(", ")}]`).join(" | ");
    const meaning = { oneOf: "exactly one of", anyOf: "at least one of", allOf: "all of", not: "none of" }[r.combinator];
    tags.push(`@remarks ${r.combinator}: ${meaning} these field sets must be set: ${sets}`);
  }
  return tags;
}

/** A JSDoc block indented by `indent`, or "" when there is nothing to say. */
export function jsdoc(indent: string, description: string | undefined, tags: string[] = []): string {
  const lines: string[] = [];
  if (description) lines.push(...commentSafe(description).trim().split("\n").map((l) => l.trimEnd()));
  if (description && tags.length) lines.push("");
  for (const tag of tags) lines.push(...commentSafe(tag).split("\n"));
  if (lines.length === 0) return "";
  return `${indent}/**\n${lines.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)).join("\n")}\n${indent} */\n`;
}
