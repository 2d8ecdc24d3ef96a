// Turns the CLI's input arguments (files, folders, "-" for stdin) into named YAML texts.
import { constants } from "node:fs";
import { open, readdir, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../input-error.js";

export interface InputText {
  /** The path as the user gave it, or "-" for stdin; used in every message about this input. */
  file: string;
  text: string;
}

const yamlFile = /\.ya?ml$/i;

/**
 * The most crdgen reads from one input: 32 MiB. The largest CRD of the corpus is 1.6 MB (and the API server takes no
 * request over 3 MiB), the largest project's CRDs together 5.3 MB: a bundle of several projects fits with room to
 * spare, while a device or an endless stream stops here instead of filling memory.
 */
export const maxInputBytes = 32 * 1024 * 1024;

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

/**
 * A regular file's text, at most maxInputBytes. It is opened without blocking (opening a FIFO would wait for a writer
 * forever) and checked through the open handle, so what is read is what was checked, even behind a symlink.
 */
async function readText(file: string): Promise<string> {
  const cannotRead = (error: unknown): never => {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new InputError({ file }, `cannot read it (${code ?? message})`);
  };
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch(cannotRead);
  try {
    const info = await handle.stat().catch(cannotRead);
    if (!info.isFile())
      throw new InputError(
        { file },
        `is ${fileKind(info)}, not a regular file: crdgen reads CRDs from files (or - for stdin)`,
      );
    if (info.size > maxInputBytes) throw tooBig(file);
    return await readAtMost(handle, maxInputBytes, () => tooBig(file)).catch((error: unknown) =>
      error instanceof InputError ? Promise.reject(error) : cannotRead(error),
    );
  } finally {
    await handle.close();
  }
}

/** Reads to the end, or throws `tooBig()` once more than `limit` bytes came (a file may grow after its stat). */
async function readAtMost(handle: FileHandle, limit: number, tooBig: () => Error): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total).toString("utf8");
    total += bytesRead;
    if (total > limit) throw tooBig();
    chunks.push(buffer.subarray(0, bytesRead));
  }
}

function tooBig(file: string): InputError {
  return new InputError(
    { file },
    `is larger than ${maxInputBytes / 1024 / 1024} MB, the most crdgen reads from one input (the largest real CRDs are ` +
      "under 2 MB): split it into several files",
  );
}

function fileKind(info: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}): string {
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  return "not a file";
}

/** stdin, at most maxInputBytes. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > maxInputBytes) throw tooBig("-");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
