// Plans <out>/<group>/<kind>.ts: a kind's modules at the version its controller reconciles, re-exported under the
// names every version shares. User files import from it, so a renamed version or a moved storage version changes
// this generated module and none of theirs.
import { ambiguousExports } from "./plan-index-files.js";
import type { PlannedKindVersion } from "./plan-kind-files.js";
import type { PlannedFile, PlanOptions } from "./plan-types.js";

export function planKindModule(planned: PlannedKindVersion, options: Pick<PlanOptions, "render">): PlannedFile[] {
  const { controller } = planned;
  if (!controller) return [];
  const version = planned.version.name;
  // The version index lists the modules as "./<kind>.<artifact>.js"; from the group's folder they are one level down.
  const modules = planned.modules.map((m) => ({ ...m, module: `./${version}/${m.module.replace(/^\.\//, "")}` }));
  return [
    {
      path: `${controller.kindModulePath}.ts`,
      owner: "generator",
      content: options.render("kind", {
        header: controller.data.header,
        kind: planned.crd.typeName,
        version,
        storage: planned.version.storage,
        modules: modules.map((m) => m.module),
        explicit: ambiguousExports(modules),
      }),
    },
  ];
}
