// Plans the generated modules of one kind's version: types, client, lister, informer, and for the version the
// controller reconciles, the controller (and with --webhooks its webhook wiring); with --validation its validation.
import path from "node:path";
import type { CrdModel, VersionModel } from "../model/resource-model.js";
import { headerLine } from "./file-header.js";
import { camelCase, fileStem, globalName } from "./names.js";
import { conversionSpokes } from "./plan-webhook-files.js";
import type { PlannedController, PlannedFile, PlanOptions } from "./plan-types.js";
import type { KindData, TemplateName } from "./template-data.js";
import { declaredExports } from "./templates.js";
import { kindModuleNames } from "./declare-types.js";
import { deprecationTags, freeName, type TypeDeclarations } from "./type-declarations.js";

/** The version a kind's controller reconciles: its storage version when served, else its first generated version. */
export function controllerVersion(crd: CrdModel): VersionModel | undefined {
  return crd.versions.find((v) => v.storage && v.served) ?? crd.versions.find((v) => v.served);
}

/** A module of a group/version, with the names it exports (for the version index's clash check). */
export interface KindModule {
  module: string;
  kind: string;
  exports: string[];
}

/** One kind's version, planned: its files, its modules as the version index lists them, its controller if any. */
export interface PlannedKindVersion {
  crd: CrdModel;
  version: VersionModel;
  /** <out>/<group>/<version>: the folder of the version's modules and its index. */
  dir: string;
  files: PlannedFile[];
  modules: KindModule[];
  controller?: PlannedController;
}

/** The modules every generated version has. */
const versionArtifacts = ["types", "client", "lister", "informer"] as const;

export function planKindVersion(
  crd: CrdModel,
  version: VersionModel,
  types: TypeDeclarations,
  options: PlanOptions,
): PlannedKindVersion {
  const dir = path.join(options.outDir, crd.group, version.name);
  const stem = fileStem(crd.kind);
  const modulePath = (artifact: string) => path.join(dir, `${stem}.${artifact}`);
  const data = kindData(crd, version, types);
  const files: PlannedFile[] = [];
  const modules: KindModule[] = [];
  // Every module but the compiled schema validator is re-exported by the version index.
  const emit = (artifact: TemplateName, content: string, indexed = true) => {
    files.push({ path: `${modulePath(artifact)}.ts`, content, owner: "generator" });
    if (indexed)
      modules.push({ module: `./${stem}.${artifact}.js`, kind: crd.typeName, exports: declaredExports(content) });
  };
  for (const artifact of versionArtifacts) emit(artifact, options.render(artifact, data));

  const isControllerVersion = controllerVersion(crd) === version;
  const spokes = isControllerVersion && options.webhooks ? conversionSpokes(crd, version, dir) : [];
  if (isControllerVersion) emit("controller", options.render("controller", data));
  if (isControllerVersion && options.webhooks) emit("webhook", options.render("webhook", { ...data, spokes }));
  if (options.validationCode) {
    const code = options.validationCode(crd, version, options.warnings ?? [], data.rtValidation);
    const validationData = {
      ...data,
      validationModule: `./${stem}.validation.js`,
      schemaValidatorModule: `./${stem}.schema-validator.js`,
      code: code.schemaValidatorCode,
      structureDeclarations: code.structureDeclarations,
      structureRoot: code.structureRoot,
    };
    emit("schema-validator", options.render("schema-validator", validationData), false);
    emit("validation", options.render("validation", validationData));
  }
  // The kind module (plan-kind-module.ts) beside the version folders: <out>/<group>/<kind>.
  const kindModulePath = path.join(options.outDir, crd.group, stem);
  const controller = isControllerVersion ? { crd, version, data, spokes, modulePath, kindModulePath } : undefined;
  return { crd, version, dir, files, modules, controller };
}

/** What a kind's version renders with: its names, its resource, its types and how its modules import the runtime. */
function kindData(crd: CrdModel, version: VersionModel, types: TypeDeclarations): KindData {
  const stem = fileStem(crd.kind);
  // The namespaces the modules import the runtime as ("rt", "cache", ...), unless a name of this kind's own is one.
  const taken = new Set([...types.exported, ...kindModuleNames(crd.typeName)]);
  return {
    header: headerLine([crd]),
    rt: freeName("rt", taken),
    rtCache: freeName("cache", taken),
    rtClient: freeName("client", taken),
    rtValidation: freeName("validation", taken),
    rtTesting: freeName("testing", taken),
    rtWebhook: freeName("webhook", taken),
    rtEnvtest: freeName("envtest", taken),
    rtWait: freeName("wait", taken),
    promise: globalName("Promise", taken),
    object: globalName("Object", taken),
    kind: crd.typeName,
    apiKind: crd.kind,
    camelKind: camelCase(crd.typeName),
    group: crd.group,
    version: version.name,
    apiVersion: `${crd.group}/${version.name}`,
    crdName: crd.name,
    listKind: crd.listKind,
    plural: crd.plural,
    singular: crd.singular,
    shortNames: crd.shortNames,
    scope: crd.scope,
    namespaced: crd.scope === "Namespaced",
    storage: version.storage,
    storageVersion: crd.storageVersion ?? null,
    deprecated: version.deprecated,
    deprecationWarning: deprecationTags(crd, version)[0]?.replace(/^@deprecated /, "") ?? "",
    hasStatus: version.subresources.status,
    hasScale: version.subresources.scale !== undefined,
    resourceConst: `${camelCase(crd.typeName)}Resource`,
    declarations: types.text,
    k8sImports: types.k8sImports,
    runtimeImports: types.runtimeImports,
    listMeta: types.listMeta,
    resourceDescriptor: types.resourceDescriptor,
    typesModule: `./${stem}.types.js`,
    clientModule: `./${stem}.client.js`,
    listerModule: `./${stem}.lister.js`,
    informerModule: `./${stem}.informer.js`,
  };
}
