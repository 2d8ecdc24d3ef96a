// Decides every file a generate run produces, with its content and owner (generator-owned or user-owned): each kind's
// version's modules (plan-kind-files.ts), the files around each controller's hooks (plan-user-files.ts, with the
// webhook files of plan-webhook-files.ts), then the indexes (plan-index-files.ts).
import type { CrdModel } from "../model/resource-model.js";
import { declareTypes } from "./declare-types.js";
import { planIndexFiles } from "./plan-index-files.js";
import { planKindVersion } from "./plan-kind-files.js";
import { planKindModule } from "./plan-kind-module.js";
import type { PlannedController, PlannedFile, PlanOptions } from "./plan-types.js";
import { planUserFiles } from "./plan-user-files.js";

export type { PlannedFile, PlanOptions } from "./plan-types.js";

export function planFiles(crds: CrdModel[], options: PlanOptions): PlannedFile[] {
  const total = crds.reduce((n, c) => n + c.versions.length, 0) + crds.length;
  let done = 0;
  const step = () => options.progress?.(++done, total);
  const declared = declareTypes(crds, step, options.declared);

  const versions = crds.flatMap((crd) => {
    step();
    return crd.versions.map((version) => planKindVersion(crd, version, declared.get(version)!, options));
  });
  const files = versions.flatMap((v) => [...v.files, ...planKindModule(v, options)]);
  const controllers = versions.flatMap((v): PlannedController[] => (v.controller ? [v.controller] : []));
  if (options.hooksDir && controllers.length) files.push(...planUserFiles(controllers, options.hooksDir, options));
  files.push(...planIndexFiles(versions, crds, options));
  return files;
}
