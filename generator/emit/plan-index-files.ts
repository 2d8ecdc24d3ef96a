// Plans the index modules: one per group/version re-exporting its kinds' modules, and the output folder's index with
// one namespace per group/version.
import path from "node:path";
import type { CrdModel } from "../model/resource-model.js";
import { headerLine } from "./file-header.js";
import { groupVersionIdentifier } from "./names.js";
import type { KindModule, PlannedKindVersion } from "./plan-kind-files.js";
import { specifierFrom, type PlannedFile, type PlanOptions } from "./plan-types.js";

interface GroupVersion {
  group: string;
  version: string;
  dir: string;
  modules: KindModule[];
  sources: CrdModel[];
}

export function planIndexFiles(
  versions: PlannedKindVersion[],
  crds: CrdModel[],
  options: Pick<PlanOptions, "outDir" | "render">,
): PlannedFile[] {
  const byDir = new Map<string, GroupVersion>();
  for (const v of versions) {
    const entry = byDir.get(v.dir) ?? {
      group: v.crd.group,
      version: v.version.name,
      dir: v.dir,
      modules: [],
      sources: [],
    };
    entry.modules.push(...v.modules);
    entry.sources.push(v.crd);
    byDir.set(v.dir, entry);
  }
  const groupVersions = [...byDir.values()].sort((a, b) => a.dir.localeCompare(b.dir));
  const files: PlannedFile[] = groupVersions.map((gv) => ({
    path: path.join(gv.dir, "index.ts"),
    content: options.render("version-index", {
      header: headerLine(gv.sources),
      group: gv.group,
      version: gv.version,
      modules: gv.modules.map((m) => m.module),
      explicit: ambiguousExports(gv.modules),
    }),
    owner: "generator",
  }));
  files.push({
    path: path.join(options.outDir, "index.ts"),
    owner: "generator",
    content: options.render("index", {
      header: headerLine(crds),
      groupVersions: groupVersions.map((gv) => ({
        identifier: groupVersionIdentifier(gv.group, gv.version),
        module: specifierFrom(options.outDir)(path.join(gv.dir, "index")),
      })),
    }),
  });
  return files;
}

/**
 * Names two modules of one group/version both export (a kind FooClient next to kind Foo's FooClient): `export *` would
 * drop them (TS2308), so the index names one explicitly: the kind's own type when the name is a kind, else the first.
 */
export function ambiguousExports(modules: KindModule[]): Array<{ name: string; module: string; others: string }> {
  const owners = new Map<string, KindModule[]>();
  for (const m of modules) for (const name of m.exports) owners.set(name, [...(owners.get(name) ?? []), m]);
  const result: Array<{ name: string; module: string; others: string }> = [];
  for (const [name, list] of [...owners].sort(([a], [b]) => a.localeCompare(b))) {
    if (list.length < 2) continue;
    const winner = list.find((m) => m.kind === name && m.module.endsWith(".types.js")) ?? list[0]!;
    result.push({
      name,
      module: winner.module,
      others: list
        .filter((m) => m !== winner)
        .map((m) => m.module)
        .join(", "),
    });
  }
  return result;
}
