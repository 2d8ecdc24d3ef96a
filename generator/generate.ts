// The generator as a library: inputs -> CRD models -> planned files -> written (or checked) output.
import path from "node:path";
import { readInputs } from "./load/read-inputs.js";
import { parseCrds, type SkippedDocument } from "./load/parse-crds.js";
import { buildModels, type CrdModel, type VersionSelection } from "./model/resource-model.js";
import type { SchemaWarning } from "./model/normalize-schema.js";
import { planFiles } from "./emit/plan-files.js";
import { templateRenderer } from "./emit/templates.js";
import { applyPlan, type ApplyReport } from "./write/apply-plan.js";

export interface GenerateOptions {
  /** Files, folders (every *.yaml / *.yml in them) or "-" for stdin. */
  inputs: string[];
  outDir: string;
  hooksDir?: string;
  templatesDir?: string;
  versions?: VersionSelection;
  /** Write nothing; report what would change. */
  check?: boolean;
  stdin?: () => Promise<string>;
}

export interface GenerateResult {
  crds: CrdModel[];
  skipped: SkippedDocument[];
  warnings: SchemaWarning[];
  report: ApplyReport;
}

export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const texts = await readInputs(options.inputs, options.stdin);
  const { crds: loaded, skipped } = parseCrds(texts);
  const { crds, warnings } = buildModels(loaded, options.versions ?? "served");
  const files = planFiles(crds, {
    outDir: path.normalize(options.outDir),
    ...(options.hooksDir ? { hooksDir: path.normalize(options.hooksDir) } : {}),
    render: templateRenderer(options.templatesDir),
  });
  const report = await applyPlan(files, { check: options.check ?? false, outDir: path.normalize(options.outDir) });
  return { crds, skipped, warnings, report };
}
