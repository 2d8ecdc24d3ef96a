// Which TypeScript files can take part in a flow: those joined by imports (either way) to a file that uses a library
// explore knows or a shape it reads without types. The rest (a web UI beside a Go operator) are only parsed, for
// their warnings: type-checking and reading them costs seconds and adds nothing.
import { ts } from "ts-morph";
import { LIBRARY_MODULES } from "./library-types.js";
import type { ModuleResolver } from "./modules.js";

/** The task queue libraries whose queues the linker knows by the module they come from (link/ts-operators.ts). */
const TASK_QUEUE_MODULES = ["async", "async-es", "fastq", "p-queue"];
const KNOWN_MODULES = [...LIBRARY_MODULES, ...TASK_QUEUE_MODULES];

/**
 * Shapes read by name alone: a raw `watch("/path", ...)`, handlers added by method name (`addEventHandler`), crdgen's
 * `controllerFor`, a class of the file's own named …Queue.
 */
const NAMED_SHAPES =
  /\bwatch\s*(?:<[^()]*>)?\s*\(\s*(?:\/\*[\s\S]*?\*\/\s*|\/\/[^\n]*\n\s*)*[`'"]\/|\b(?:add|Add)EventHandler|\bcontrollerFor\b|\bclass\s+\w*queue\b/i;

const isKnownModule = (spec: string) => KNOWN_MODULES.some((m) => spec === m || spec.startsWith(`${m}/`));

/**
 * The files to read: every file of an import component (imports, re-exports, `require`, `import()`, `/// <reference>`,
 * followed either way) holding a file that names a known module or shape.
 */
export function filesThatCanTakePart(sources: { file: string; text: string }[], resolver: ModuleResolver): Set<string> {
  const parent = new Map(sources.map((s) => [s.file, s.file]));
  const root = (file: string): string => {
    let r = file;
    while (parent.get(r) !== r) r = parent.get(r)!;
    for (let f = file; f !== r;) {
      const next = parent.get(f)!;
      parent.set(f, r);
      f = next;
    }
    return r;
  };
  const seeds: string[] = [];
  for (const { file, text } of sources) {
    const info = ts.preProcessFile(text, true, true);
    const specs = [...info.importedFiles, ...info.referencedFiles].map((f) => f.fileName);
    if (specs.some(isKnownModule) || info.ambientExternalModules?.some(isKnownModule) || NAMED_SHAPES.test(text))
      seeds.push(file);
    for (const spec of specs) {
      const target = resolver.resolve(file, spec);
      if (target && parent.has(target)) parent.set(root(target), root(file));
    }
  }
  const seeded = new Set(seeds.map(root));
  return new Set(sources.filter((s) => seeded.has(root(s.file))).map((s) => s.file));
}

/**
 * A file not read can still change how the others type-check when it declares globals: a script (no import or
 * export), `declare global`, or `declare module "x"`. Then every file is read, as before.
 */
export function declaresGlobals(sf: ts.SourceFile): boolean {
  if (!ts.isExternalModule(sf)) return true;
  return sf.statements.some(
    (s) => ts.isModuleDeclaration(s) && (ts.isStringLiteral(s.name) || s.name.text === "global"),
  );
}
