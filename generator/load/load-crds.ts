// The load phase's result: the CustomResourceDefinitions in the input texts, each checked as the API server checks it,
// so that nothing of a CRD reaches the model (and from there file names, literals and comments) unchecked.
import type { InputWarning } from "../input-error.js";
import { parseCrds, type ParsedInputs } from "./parse-crds.js";
import type { InputText } from "./read-inputs.js";
import { validateCrd } from "./validate-crd.js";

export interface LoadedInputs extends ParsedInputs {
  /** What the API server accepts but drops or cannot mean (unknown fields, required fields no property declares). */
  warnings: InputWarning[];
}

export function loadCrds(texts: InputText[]): LoadedInputs {
  const parsed = parseCrds(texts);
  return { ...parsed, warnings: parsed.crds.flatMap(validateCrd) };
}
