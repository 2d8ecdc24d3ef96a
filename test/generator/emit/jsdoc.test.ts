// jsdoc: descriptions and rules wrapped within 120 columns where that keeps their meaning; values read verbatim
// (patterns, defaults) and code (fences, indented lines) kept whole; no text can become a tag.
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsdoc } from "../../../generator/emit/jsdoc.js";

const words = (n: number, word = "word") => Array.from({ length: n }, () => word).join(" ");
const lines = (block: string) => block.split("\n").filter(Boolean);

test("a long description is wrapped at spaces within 120 columns, indent included, and joins back to itself", () => {
  const description = words(60);
  const block = jsdoc("    ", description);
  for (const line of lines(block)) assert.ok(line.length <= 120, `${line.length}: ${line}`);
  const text = lines(block)
    .slice(1, -1)
    .map((l) => l.replace(/^ {5}\* /, ""))
    .join(" ");
  assert.equal(text, description);
});

test("a short description stays on one line; a word longer than the width stays whole", () => {
  assert.equal(jsdoc("", "Short."), "/**\n * Short.\n */\n");
  const long = "x".repeat(150);
  assert.deepEqual(lines(jsdoc("", `${long} end`)), ["/**", ` * ${long}`, " * end", " */"]);
});

test("fenced code, indented lines and table rows are never wrapped", () => {
  const code = `call(${words(40, "arg,")})`;
  const description = ["Example:", "```", code, "```", `    ${code}`, `| ${words(40)} |`].join("\n");
  const block = jsdoc("", description);
  assert.ok(block.includes(` * ${code}\n`));
  assert.ok(block.includes(` *     ${code}\n`));
  assert.ok(block.includes(` * | ${words(40)} |\n`));
});

test("a CEL rule is wrapped outside its string literals, continuation lines indented under the tag", () => {
  const literal = `'${words(30, "a")}'`;
  const rule = `@validation self.name == ${literal} || ${words(20, "self.x")} — the cluster's name is fixed`;
  const block = lines(jsdoc("", undefined, [rule]));
  for (const line of block) assert.ok(line.length <= 120, `${line.length}: ${line}`);
  assert.ok(
    block.some((l) => l.includes(literal)),
    "the string literal is on one line",
  );
  assert.match(block[1]!, /^ \* @validation /);
  assert.ok(block.slice(2, -1).every((l) => l.startsWith(" *   ")));
});

test("patterns and defaults are values: never wrapped", () => {
  const pattern = `@pattern ^(${words(40, "a|b")})$`;
  const value = `@default ${JSON.stringify(words(40))}`;
  assert.deepEqual(lines(jsdoc("", undefined, [pattern, value])), ["/**", ` * ${pattern}`, ` * ${value}`, " */"]);
});

test("a wrapped line that would start with @ stays text, not a tag", () => {
  const description = `${words(22)} @deprecated ${words(5)}`;
  const block = lines(jsdoc("", description));
  assert.ok(
    block.every((l) => !/^ \* @/.test(l)),
    block.join("\n"),
  );
  assert.ok(block.some((l) => l.startsWith(" * \\@deprecated")));
});
