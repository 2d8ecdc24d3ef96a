// A generated output folder as the golden tests compare it: every file's path ("/"-separated, sorted) and text.
import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";

/** Every file below dir (none when dir is missing), relative and "/"-separated, sorted. */
export async function listFiles(dir: string, under = ""): Promise<string[]> {
  if (!existsSync(path.join(dir, under))) return [];
  const entries = await readdir(path.join(dir, under), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? listFiles(dir, path.join(under, e.name)) : Promise.resolve([path.join(under, e.name)]),
    ),
  );
  return nested
    .flat()
    .map((f) => f.split(path.sep).join("/"))
    .sort();
}

/** Every file below dir with its text, in listFiles' order. */
export async function readTree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const file of await listFiles(dir)) files.set(file, await readFile(path.join(dir, file), "utf8"));
  return files;
}
