// --format: one TypeScript formatter pass (through ts-morph, already a dependency) over the generated .ts files.
// The templates already emit formatted code, so this runs only when asked; ts-morph is loaded only then.
import type { PlannedFile } from "./plan-files.js";

export async function formatGeneratedFiles(files: PlannedFile[]): Promise<void> {
  const { Project } = await import("ts-morph");
  const project = new Project({
    useInMemoryFileSystem: true,
    skipLoadingLibFiles: true,
    compilerOptions: { noLib: true },
  });
  let formatted = 0;
  for (const file of files) {
    if (file.owner !== "generator" || !file.path.endsWith(".ts")) continue;
    // Each file gets a name no earlier file had: the language service keeps the text of a removed file's name, and
    // formatting edits computed on that stale text and applied to a new one corrupt it ("Promis <", "export f tion").
    const source = project.createSourceFile(`/format/${formatted++}.ts`, file.content);
    source.formatText({ indentSize: 2, convertTabsToSpaces: true });
    file.content = source.getFullText();
    project.removeSourceFile(source);
  }
}
