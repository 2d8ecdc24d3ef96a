// Turns the CLI's input arguments (files, folders, "-" for stdin) into named YAML texts.
import { readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../input-error.js";

export interface InputText {
  /** The path as the user gave it, or "-" for stdin; used in every message about this input. */
  file: string;
  text: string;
}

const yamlFile = /\.ya?ml$/i;

export async function readInputs(args: string[], stdin: () => Promise<string> = readStdin): Promise<InputText[]> {
  const inputs: InputText[] = [];
  for (const arg of args) {
    if (arg === "-") {
      inputs.push({ file: "-", text: await stdin() });
      continue;
    }
    const info = await stat(arg).catch(() => {
      throw new InputError({ file: arg }, "no such file or folder");
    });
    if (info.isDirectory()) {
      // A folder means every YAML file directly in it, in a stable order so output never depends on readdir order.
      const names = (await readdir(arg, { withFileTypes: true }))
        .filter((entry) => !entry.isDirectory() && yamlFile.test(entry.name))
        .map((entry) => entry.name)
        .sort();
      if (names.length === 0) throw new InputError({ file: arg }, "the folder holds no *.yaml or *.yml file");
      for (const name of names) {
        const file = path.join(arg, name);
        inputs.push({ file, text: await readText(file) });
      }
    } else {
      inputs.push({ file: arg, text: await readText(arg) });
    }
  }
  return inputs;
}

async function readText(file: string): Promise<string> {
  return readFile(file, "utf8").catch((error: unknown) => {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new InputError({ file }, `cannot read it (${code ?? message})`);
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
