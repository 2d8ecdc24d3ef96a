// How deeply a source file's brackets nest, counted by a flat scan before any parser sees the file: the TypeScript
// parser and both readers recurse once (or more) per level, so a file nested deeper than the limit is skipped rather
// than allowed to exhaust the call stack. Strings, comments and template literals are skipped, so brackets inside
// them do not count.
import { ts } from "ts-morph";

/** The deepest nesting of (), [], {} (and TypeScript's `${`) in a source file. */
export function nestingDepth(text: string, lang: "go" | "ts"): number {
  return lang === "go" ? goNesting(text) : tsNesting(text);
}

const OPEN = new Set(["(", "[", "{"]);
const CLOSE = new Set([")", "]", "}"]);

/** Go has no regular-expression or template literals: comments, strings, runes and raw strings are all it skips. */
function goNesting(text: string): number {
  let depth = 0;
  let max = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === "`") {
      const end = text.indexOf("`", i + 1);
      i = end < 0 ? n : end + 1;
    } else if (c === '"' || c === "'") {
      // An interpreted string or a rune ends at its unescaped quote, or (a syntax error) at the end of the line.
      i++;
      while (i < n && text[i] !== c && text[i] !== "\n") i += text[i] === "\\" ? 2 : 1;
      i++;
    } else {
      if (OPEN.has(c)) max = Math.max(max, ++depth);
      else if (CLOSE.has(c) && depth > 0) depth--;
      i++;
    }
  }
  return max;
}

const K = ts.SyntaxKind;
/** Tokens after which a `/` divides; anywhere else it starts a regular expression. */
const ENDS_OPERAND = new Set([
  K.Identifier,
  K.PrivateIdentifier,
  K.NumericLiteral,
  K.BigIntLiteral,
  K.StringLiteral,
  K.RegularExpressionLiteral,
  K.NoSubstitutionTemplateLiteral,
  K.TemplateTail,
  K.CloseParenToken,
  K.CloseBracketToken,
  K.CloseBraceToken,
  K.PlusPlusToken,
  K.MinusMinusToken,
  K.ThisKeyword,
  K.SuperKeyword,
  K.TrueKeyword,
  K.FalseKeyword,
  K.NullKeyword,
]);

/** TypeScript's own scanner, which knows strings, comments and templates; `}` closes a `${` or a bracket. */
function tsNesting(text: string): number {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  // What each open level is: a bracket, or the `${` of a template literal (its `}` continues the template).
  const open: boolean[] = [];
  let max = 0;
  let previous: ts.SyntaxKind = K.Unknown;
  for (let token = scanner.scan(); token !== K.EndOfFileToken; token = scanner.scan()) {
    if ((token === K.SlashToken || token === K.SlashEqualsToken) && !ENDS_OPERAND.has(previous))
      token = scanner.reScanSlashToken();
    if (token === K.CloseBraceToken && open.at(-1) === true) {
      token = scanner.reScanTemplateToken(false);
      if (token === K.TemplateTail) open.pop();
    } else if (token === K.OpenParenToken || token === K.OpenBracketToken || token === K.OpenBraceToken) {
      open.push(false);
    } else if (token === K.TemplateHead) {
      open.push(true);
    } else if (token === K.CloseParenToken || token === K.CloseBracketToken || token === K.CloseBraceToken) {
      open.pop();
    }
    max = Math.max(max, open.length);
    previous = token;
  }
  return max;
}
