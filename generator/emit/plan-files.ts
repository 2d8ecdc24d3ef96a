// Decides every file a generate run produces, with its content and owner (generator-owned or user-owned).
import { createHash } from "node:crypto";
import path from "node:path";
import type { CrdModel, VersionModel } from "../model/resource-model.js";
import { camelCase, fileStem, groupVersionIdentifier, moduleSpecifier } from "./names.js";
import type { RenderTemplate } from "./templates.js";
import { emitTypeDeclarations } from "./type-declarations.js";

export const generatorVersion = "0.1.0";

export interface PlannedFile {
  path: string;
  content: string;
  /** generator: rewritten on every run. user: created once, never overwritten. */
  owner: "generator" | "user";
  /** For a hooks file: the parameter types its exported functions must keep, checked when the file already exists. */
  hooks?: { kind: string; parameterTypes: string[] };
}

export interface PlanOptions {
  outDir: string;
  /** Where user-owned files (hooks, main.ts) go; without it none are created. */
  hooksDir?: string;
  render: RenderTemplate;
}

const rel = (from: string, to: string) => path.relative(from, to);

/** The version a kind's controller reconciles: its storage version when served, else its first generated version. */
export function controllerVersion(crd: CrdModel): VersionModel | undefined {
  return crd.versions.find((v) => v.storage && v.served) ?? crd.versions.find((v) => v.served);
}

export function planFiles(crds: CrdModel[], options: PlanOptions): PlannedFile[] {
  const files: PlannedFile[] = [];
  const byGroupVersion = new Map<string, { group: string; version: string; dir: string; modules: string[]; sources: CrdModel[] }>();
  const controllers: Array<{ kind: string; camelKind: string; controllerModule: string; hooksModule: string }> = [];

  for (const crd of crds) {
    for (const version of crd.versions) {
      const dir = path.join(options.outDir, crd.group, version.name);
      const stem = fileStem(crd.kind);
      const modulePath = (artifact: string) => path.join(dir, `${stem}.${artifact}`);
      const header = headerLine([crd]);
      const types = emitTypeDeclarations(crd, version);
      const data = {
        header,
        kind: crd.kind,
        camelKind: camelCase(crd.kind),
        group: crd.group,
        version: version.name,
        apiVersion: `${crd.group}/${version.name}`,
        listKind: crd.listKind,
        plural: crd.plural,
        singular: crd.singular,
        shortNames: crd.shortNames,
        scope: crd.scope,
        namespaced: crd.scope === "Namespaced",
        storage: version.storage,
        hasStatus: version.subresources.status,
        hasScale: version.subresources.scale !== undefined,
        resourceConst: `${camelCase(crd.kind)}Resource`,
        declarations: types.text,
        usesIntOrString: types.usesIntOrString,
        usesObjectMeta: types.usesObjectMeta,
        typesModule: `./${stem}.types.js`,
        clientModule: `./${stem}.client.js`,
        listerModule: `./${stem}.lister.js`,
        informerModule: `./${stem}.informer.js`,
      };
      const artifacts = ["types", "client", "lister", "informer"] as const;
      const isControllerVersion = controllerVersion(crd) === version;
      for (const artifact of artifacts) files.push({ path: `${modulePath(artifact)}.ts`, content: options.render(artifact, data), owner: "generator" });
      if (isControllerVersion) files.push({ path: `${modulePath("controller")}.ts`, content: options.render("controller", data), owner: "generator" });

      const key = `${crd.group}/${version.name}`;
      const entry = byGroupVersion.get(key) ?? { group: crd.group, version: version.name, dir, modules: [], sources: [] };
      entry.modules.push(...artifacts.map((a) => `./${stem}.${a}.js`), ...(isControllerVersion ? [`./${stem}.controller.js`] : []));
      entry.sources.push(crd);
      byGroupVersion.set(key, entry);

      if (isControllerVersion && options.hooksDir) {
        const hooksPath = path.join(options.hooksDir, `${stem}.hooks.ts`);
        const hooksData = {
          kind: crd.kind,
          typesModule: moduleSpecifier(options.hooksDir, modulePath("types"), rel),
          controllerModule: moduleSpecifier(options.hooksDir, modulePath("controller"), rel),
        };
        files.push({ path: hooksPath, content: options.render("hooks", hooksData), owner: "user", hooks: { kind: crd.kind, parameterTypes: [`${crd.kind}Context`, crd.kind] } });
        controllers.push({
          kind: crd.kind,
          camelKind: camelCase(crd.kind),
          controllerModule: moduleSpecifier(options.hooksDir, modulePath("controller"), rel),
          hooksModule: `./${stem}.hooks.js`,
        });
      }
    }
  }

  const groupVersions = [...byGroupVersion.values()].sort((a, b) => a.dir.localeCompare(b.dir));
  for (const gv of groupVersions) {
    files.push({ path: path.join(gv.dir, "index.ts"), content: options.render("version-index", { header: headerLine(gv.sources), group: gv.group, version: gv.version, modules: gv.modules }), owner: "generator" });
  }
  files.push({
    path: path.join(options.outDir, "index.ts"),
    owner: "generator",
    content: options.render("index", {
      header: headerLine(crds),
      groupVersions: groupVersions.map((gv) => ({ identifier: groupVersionIdentifier(gv.group, gv.version), module: moduleSpecifier(options.outDir, path.join(gv.dir, "index"), rel) })),
    }),
  });
  if (options.hooksDir && controllers.length) {
    files.push({ path: path.join(options.hooksDir, "main.ts"), content: options.render("main", { controllers }), owner: "user" });
  }
  return files;
}

/** First line of every generator-owned file: what made it, from which input (with its sha256), and not to edit it. */
function headerLine(sources: CrdModel[]): string {
  const inputs = [...new Map(sources.map((c) => [c.source.file, c.source.fileSha256])).entries()].sort(([a], [b]) => a.localeCompare(b));
  if (inputs.length > 3) {
    // An index over many CRDs names how many inputs it came from, and one hash over all of their hashes.
    const combined = createHash("sha256").update(inputs.map(([file, sha]) => `${file}:${sha}\n`).join("")).digest("hex");
    return `// Code generated by crdgen ${generatorVersion} from ${inputs.length} input files (sha256 of their hashes ${combined}). DO NOT EDIT.`;
  }
  const described = inputs.map(([file, sha]) => `${file === "-" ? "stdin" : file.split(path.sep).join("/")} (sha256 ${sha})`).join(", ");
  return `// Code generated by crdgen ${generatorVersion} from ${described}. DO NOT EDIT.`;
}
