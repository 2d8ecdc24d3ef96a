// Worker thread side of parallel-models.ts: parses and models one share of the input files.
import { parentPort, workerData } from "node:worker_threads";
import { buildModels, type ModelOptions } from "../model/resource-model.js";
import { InputError } from "./input-error.js";
import { parseCrds } from "./parse-crds.js";
import type { InputText } from "./read-inputs.js";

const { texts, options } = workerData as { texts: InputText[]; options: ModelOptions };
try {
  const { crds: loaded, skipped } = parseCrds(texts);
  const { crds, warnings } = buildModels(loaded, options);
  parentPort!.postMessage({ crds, skipped, warnings });
} catch (error) {
  // InputErrors cross back as data (location and problem) so the main thread rethrows the same error.
  if (error instanceof InputError)
    parentPort!.postMessage({ inputError: { location: error.location, problem: error.problem } });
  else parentPort!.postMessage({ fatal: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
