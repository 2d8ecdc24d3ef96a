// Loads the handlebars templates (the packaged ones, or a downstream repo's overrides from --templates).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";
import { InputError } from "../input-error.js";
import { lineCommentText, tsLiteral } from "../ts-literal.js";
import type { TemplateData, TemplateName } from "./template-data.js";

/** templates/ at the package root: two levels above this file both in the sources and in dist/. */
export const packagedTemplatesDir = findTemplatesDir(path.dirname(fileURLToPath(import.meta.url)));

function findTemplatesDir(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, "templates");
    if (existsSync(path.join(candidate, "types.ts.hbs"))) return candidate;
  }
  throw new Error(`crdgen: cannot find its templates/ folder above ${from}`);
}

/** Renders a template with the values its TemplateData entry declares. */
export type RenderTemplate = <N extends TemplateName>(name: N, data: TemplateData[N]) => string;

export function templateRenderer(overrideDir?: string): RenderTemplate {
  const handlebars = Handlebars.create();
  // The only ways a value reaches a template's output other than as a validated identifier: a literal, or comment text.
  handlebars.registerHelper("json", (value: unknown) => tsLiteral(value));
  handlebars.registerHelper("comment", (value: unknown) => lineCommentText(String(value)));
  const compiled = new Map<TemplateName, Handlebars.TemplateDelegate>();
  const files = new Map<TemplateName, string>();
  return (name, data) => {
    let template = compiled.get(name);
    if (!template) {
      const override = overrideDir ? path.join(overrideDir, `${name}.ts.hbs`) : undefined;
      const file = override && existsSync(override) ? override : path.join(packagedTemplatesDir, `${name}.ts.hbs`);
      // noEscape: the output is TypeScript, not HTML; strict: a misspelt variable is an error, not an empty string.
      template = handlebars.compile(readFileSync(file, "utf8"), { noEscape: true, strict: true });
      compiled.set(name, template);
      files.set(name, file);
    }
    try {
      return template(data);
    } catch (error) {
      // Handlebars says "x not defined in [object Object] - line:col": name the template and what it can use instead.
      const message = (error instanceof Error ? error.message : String(error))
        .replace(/ in \[object Object\]/, "")
        .replace(/ - (\d+):(\d+)$/, " (line $1, column $2)");
      throw new InputError(
        { file: files.get(name)! },
        `template ${name}: ${message}; it can use: ${Object.keys(data).join(", ")}`,
      );
    }
  };
}

/** `export function|const|interface|type|class|enum Name` at the start of a line; Name may hold `{{placeholders}}`. */
const exportDeclaration =
  /^export (?:declare )?(?:async )?(?:function\*?|const|let|var|interface|type|abstract class|class|enum) ((?:[\w$]|\{\{\w+\}\})+)/gm;

/** The names a rendered module declares as exports (what `export *` of it re-exports). */
export function declaredExports(text: string): string[] {
  return [...new Set([...text.matchAll(exportDeclaration)].map((m) => m[1]!))];
}

/**
 * The names a packaged template exports for these values of its placeholders ("new{{kind}}Client" -> "newFooClient"),
 * read from the template's text, so the list is declared once: in the template. Names made of other placeholders
 * (the types template's `{{{declarations}}}`) are left out.
 */
export function templateExports(name: TemplateName, values: Readonly<Record<string, string>>): string[] {
  let text = templateSources.get(name);
  if (text === undefined) {
    text = readFileSync(path.join(packagedTemplatesDir, `${name}.ts.hbs`), "utf8");
    templateSources.set(name, text);
  }
  const names = declaredExports(text).map((n) =>
    n.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole),
  );
  return names.filter((n) => !n.includes("{{"));
}

const templateSources = new Map<TemplateName, string>();
