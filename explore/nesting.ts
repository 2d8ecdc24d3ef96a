// How deeply a source file's brackets nest, counted by a flat scan before any parser sees the file: the TypeScript
// parser and both readers recurse once (or more) per level, so a file nested deeper than the limit is skipped rather
// than allowed to exhaust the call stack. Strings, comments and template literals are skipped, so brackets inside
// them do not count.
import { ts } from "ts-morph";

/** The deepest nesting of (), [], {} (and TypeScript's `${`) in a source file. */
export function nestingDepth(text: string, lang: "go" | "ts"): number {
  return lang === "go" ? goNesting(text) : tsNesting(text);
}

// Character codes: the Go scan compares numbers, not one-character strings (a 5 MB file is scanned in well under a
// second).
const [SLASH, STAR, BACKQUOTE, QUOTE, APOSTROPHE, NEWLINE, BACKSLASH] = [0x2f, 0x2a, 0x60, 0x22, 0x27, 0x0a, 0x5c];
const [OPEN_PAREN, OPEN_BRACKET, OPEN_BRACE] = [0x28, 0x5b, 0x7b];
const [CLOSE_PAREN, CLOSE_BRACKET, CLOSE_BRACE] = [0x29, 0x5d, 0x7d];

/** Go has no regular-expression or template literals: comments, strings, runes and raw strings are all it skips. */
function goNesting(text: string): number {
  let depth = 0;
  let max = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (c === SLASH && next === SLASH) {
      const end = text.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
    } else if (c === SLASH && next === STAR) {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === BACKQUOTE) {
      const end = text.indexOf("`", i + 1);
      i = end < 0 ? n : end + 1;
    } else if (c === QUOTE || c === APOSTROPHE) {
      // An interpreted string or a rune ends at its unescaped quote, or (a syntax error) at the end of the line.
      i++;
      for (let d = text.charCodeAt(i); i < n && d !== c && d !== NEWLINE; d = text.charCodeAt(i))
        i += d === BACKSLASH ? 2 : 1;
      i++;
    } else {
      if (c === OPEN_PAREN || c === OPEN_BRACKET || c === OPEN_BRACE) max = Math.max(max, ++depth);
      else if ((c === CLOSE_PAREN || c === CLOSE_BRACKET || c === CLOSE_BRACE) && depth > 0) depth--;
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
