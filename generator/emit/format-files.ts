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
  for (const file of files) {
    if (file.owner !== "generator" || !file.path.endsWith(".ts")) continue;
    const source = project.createSourceFile(`/format${project.getSourceFiles().length}.ts`, file.content);
    source.formatText({ indentSize: 2, convertTabsToSpaces: true });
    file.content = source.getFullText();
    project.removeSourceFile(source);
  }
}
