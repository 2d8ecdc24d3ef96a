// The load phase's result: the CustomResourceDefinitions in the input texts, each checked as the API server checks it,
// so that nothing of a CRD reaches the model (and from there file names, literals and comments) unchecked.
import { parseCrds, type ParsedInputs } from "./parse-crds.js";
import type { InputText } from "./read-inputs.js";
import { validateCrd } from "./validate-crd.js";

export function loadCrds(texts: InputText[]): ParsedInputs {
  const parsed = parseCrds(texts);
  for (const crd of parsed.crds) validateCrd(crd);
  return parsed;
}
