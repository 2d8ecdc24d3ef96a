// Worker thread side of parallel-models.ts: parses and models one share of the input files, and declares its types.
import { parentPort, workerData } from "node:worker_threads";
import { declareGroupVersions } from "../emit/declare-types.js";
import { buildModels, type ModelOptions } from "../model/resource-model.js";
import { InputError } from "./input-error.js";
import { parseCrds } from "./parse-crds.js";
import type { InputText } from "./read-inputs.js";

const { texts, options } = workerData as { texts: InputText[]; options: ModelOptions };
try {
  const { crds: loaded, skipped } = parseCrds(texts);
  const { crds, warnings } = buildModels(loaded, options);
  // Declaring the types here too spreads the largest part of emitting over the workers (see DeclaredGroupVersions).
  parentPort!.postMessage({ crds, skipped, warnings, declared: declareGroupVersions(crds) });
} catch (error) {
  // InputErrors cross back as data (location and problem) so the main thread rethrows the same error.
  if (error instanceof InputError)
    parentPort!.postMessage({ inputError: { location: error.location, problem: error.problem } });
  else parentPort!.postMessage({ fatal: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
