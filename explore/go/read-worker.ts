// A worker thread of the Go reader (read.ts): reads the files it is given and posts their results back, in order.
import { parentPort, workerData } from "node:worker_threads";
import type { GoModule, GoSource } from "./modules.js";
import { goParser, readGoFile } from "./read-file.js";

const { sources, modules } = workerData as { sources: GoSource[]; modules: GoModule[] };
try {
  const parser = await goParser();
  parentPort!.postMessage({ results: sources.map((source) => readGoFile(parser, source, modules)) });
} catch (error) {
  // Errors cross as their message: the reader's own errors name the file.
  parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
}
