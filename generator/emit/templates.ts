// Loads the handlebars templates (the packaged ones, or a downstream repo's overrides from --templates).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";

export type TemplateName = "types" | "client" | "lister" | "informer" | "controller" | "hooks" | "main" | "version-index" | "index";

/** templates/ at the package root: two levels above this file both in the sources and in dist/. */
export const packagedTemplatesDir = findTemplatesDir(path.dirname(fileURLToPath(import.meta.url)));

function findTemplatesDir(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, "templates");
    if (existsSync(path.join(candidate, "types.ts.hbs"))) return candidate;
  }
  throw new Error(`crdgen: cannot find its templates/ folder above ${from}`);
}

export type RenderTemplate = (name: TemplateName, data: object) => string;

export function templateRenderer(overrideDir?: string): RenderTemplate {
  const handlebars = Handlebars.create();
  handlebars.registerHelper("json", (value: unknown) => JSON.stringify(value));
  const compiled = new Map<TemplateName, Handlebars.TemplateDelegate>();
  return (name, data) => {
    let template = compiled.get(name);
    if (!template) {
      const override = overrideDir ? path.join(overrideDir, `${name}.ts.hbs`) : undefined;
      const file = override && existsSync(override) ? override : path.join(packagedTemplatesDir, `${name}.ts.hbs`);
      // noEscape: the output is TypeScript, not HTML; strict: a misspelt variable is an error, not an empty string.
      template = handlebars.compile(readFileSync(file, "utf8"), { noEscape: true, strict: true });
      compiled.set(name, template);
    }
    return template(data);
  };
}
