// Decides every file a generate run produces, with its content and owner (generator-owned or user-owned).
import { createHash } from "node:crypto";
import path from "node:path";
import type { CrdModel, VersionModel } from "../model/resource-model.js";
import { camelCase, fileStem, globalName, groupVersionIdentifier, moduleSpecifier } from "./names.js";
import { declaredExports, type RenderTemplate, type TemplateName } from "./templates.js";
import { deprecationTags, freeName } from "./type-declarations.js";
import { declareTypes, kindModuleNames, type DeclaredGroupVersions } from "./declare-types.js";
import type { SchemaWarning } from "../model/normalize-schema.js";
import type { versionValidationCode } from "../validation/version-validation.js";
import type { ExpectedHooks } from "../hooks/hook-signature.js";
import { generatorVersion } from "../version.js";
import { lineCommentText } from "../ts-literal.js";
import { InputError } from "../input-error.js";
import { schemaDifferences } from "../model/schema-differences.js";

export interface PlannedFile {
  path: string;
  content: string;
  /** generator: rewritten on every run. user: created once, never overwritten. */
  owner: "generator" | "user";
  /** For a hooks file: the parameter types its exported functions must keep, checked when the file already exists. */
  hooks?: { kind: string } & ExpectedHooks;
  /** For a hooks file: the CRD (metadata.name) it belongs to, recorded in the lock. */
  crdName?: string;
}

export interface PlanOptions {
  outDir: string;
  /** Where user-owned files (hooks, main.ts) go; without it none are created. */
  hooksDir?: string;
  /** Where an example unit test of each kind's hooks is scaffolded (user-owned); only with hooksDir. */
  testsDir?: string;
  /** Hooks file of each CRD (by metadata.name) as the previous run's lock recorded it, relative to hooksDir. */
  previousHooks?: ReadonlyMap<string, string>;
  render: RenderTemplate;
  /** Called as work is done: types of each version, then each CRD's modules (for a progress bar). */
  progress?: (done: number, total: number) => void;
  /**
   * Given: also emit <kind>.validation.ts (defaults, validate) and its compiled <kind>.schema-validator.ts per version,
   * from this function's code (passed in so ajv and the CEL libraries load only when validation is asked for).
   */
  validationCode?: typeof versionValidationCode;
  /** Where problems met while emitting (e.g. a pattern RE2 rejects) are reported. */
  warnings?: SchemaWarning[];
  /**
   * Also emit each kind's webhook wiring (<kind>.webhook.ts: admission, and conversion when it has several versions)
   * and, with hooksDir, the user-owned <kind>.webhooks.ts and <kind>.conversion.ts and the webhooks.ts registry.
   */
  webhooks?: boolean;
  /** Type declarations made already (on the worker threads that modelled the CRDs), by group/version. */
  declared?: DeclaredGroupVersions;
}

const rel = (from: string, to: string) => path.relative(from, to);

/** The version a kind's controller reconciles: its storage version when served, else its first generated version. */
export function controllerVersion(crd: CrdModel): VersionModel | undefined {
  return crd.versions.find((v) => v.storage && v.served) ?? crd.versions.find((v) => v.served);
}

export function planFiles(crds: CrdModel[], options: PlanOptions): PlannedFile[] {
  const files: PlannedFile[] = [];
  const total = crds.reduce((n, c) => n + c.versions.length, 0) + crds.length;
  let done = 0;
  const step = () => options.progress?.(++done, total);
  const declared = declareTypes(crds, step, options.declared);
  const byGroupVersion = new Map<
    string,
    {
      group: string;
      version: string;
      dir: string;
      modules: Array<{ module: string; kind: string; exports: string[] }>;
      sources: CrdModel[];
    }
  >();
  const controllers: PlannedController[] = [];

  for (const crd of crds) {
    step();
    for (const version of crd.versions) {
      const dir = path.join(options.outDir, crd.group, version.name);
      const stem = fileStem(crd.kind);
      const modulePath = (artifact: string) => path.join(dir, `${stem}.${artifact}`);
      const header = headerLine([crd]);
      const types = declared.get(version)!;
      // The namespace the operational modules import the runtime as: "rt", unless a name of this kind's own is "rt".
      const taken = new Set([...types.exported, ...kindModuleNames(crd.kind)]);
      const rt = freeName("rt", taken);
      const data = {
        header,
        rt,
        // The runtime's subpaths, each imported as a namespace named for it (rt stays the root).
        rtCache: freeName("cache", taken),
        rtClient: freeName("client", taken),
        rtValidation: freeName("validation", taken),
        rtTesting: freeName("testing", taken),
        rtWebhook: freeName("webhook", taken),
        // The globals the templates use, through globalThis when the kind has their name (kind: Promise).
        promise: globalName("Promise", taken),
        object: globalName("Object", taken),
        kind: crd.kind,
        camelKind: camelCase(crd.kind),
        group: crd.group,
        version: version.name,
        apiVersion: `${crd.group}/${version.name}`,
        // metadata.name, which validation keeps equal to <plural>.<group>.
        crdName: crd.name,
        listKind: crd.listKind,
        plural: crd.plural,
        singular: crd.singular,
        shortNames: crd.shortNames,
        scope: crd.scope,
        namespaced: crd.scope === "Namespaced",
        storage: version.storage,
        // The storage version of the CRD, whether or not it is generated (--versions served may leave it out).
        storageVersion: crd.storageVersion ?? null,
        deprecated: version.deprecated,
        deprecationWarning: deprecationTags(crd, version)[0]?.replace(/^@deprecated /, "") ?? "",
        hasStatus: version.subresources.status,
        hasScale: version.subresources.scale !== undefined,
        resourceConst: `${camelCase(crd.kind)}Resource`,
        declarations: types.text,
        k8sImports: types.k8sImports,
        runtimeImports: types.runtimeImports,
        listMeta: types.listMeta,
        typesModule: `./${stem}.types.js`,
        clientModule: `./${stem}.client.js`,
        listerModule: `./${stem}.lister.js`,
        informerModule: `./${stem}.informer.js`,
      };
      const artifacts = ["types", "client", "lister", "informer"] as const;
      const isControllerVersion = controllerVersion(crd) === version;
      // What each module exports (for the version index's clash check), read from the module as rendered.
      const rendered = new Map<string, string>();
      const emit = (artifact: TemplateName, content: string) => {
        rendered.set(artifact, content);
        files.push({ path: `${modulePath(artifact)}.ts`, content, owner: "generator" });
      };
      for (const artifact of artifacts) emit(artifact, options.render(artifact, data));
      if (isControllerVersion) emit("controller", options.render("controller", data));
      const spokes = isControllerVersion && options.webhooks ? conversionSpokes(crd, version, dir) : [];
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
        emit("schema-validator", options.render("schema-validator", validationData));
        emit("validation", options.render("validation", validationData));
      }

      const key = `${crd.group}/${version.name}`;
      const entry = byGroupVersion.get(key) ?? {
        group: crd.group,
        version: version.name,
        dir,
        modules: [],
        sources: [],
      };
      for (const artifact of [
        ...artifacts,
        ...(isControllerVersion ? ["controller"] : []),
        ...(isControllerVersion && options.webhooks ? ["webhook"] : []),
        ...(options.validationCode ? ["validation"] : []),
      ]) {
        entry.modules.push({
          module: `./${stem}.${artifact}.js`,
          kind: crd.kind,
          exports: declaredExports(rendered.get(artifact)!),
        });
      }
      entry.sources.push(crd);
      byGroupVersion.set(key, entry);

      if (isControllerVersion)
        controllers.push({ crd, version, data, spokes, modulePath: (artifact) => modulePath(artifact) });
    }
  }
  if (options.hooksDir && controllers.length) files.push(...planUserFiles(controllers, options.hooksDir, options));

  const groupVersions = [...byGroupVersion.values()].sort((a, b) => a.dir.localeCompare(b.dir));
  for (const gv of groupVersions) {
    files.push({
      path: path.join(gv.dir, "index.ts"),
      content: options.render("version-index", {
        header: headerLine(gv.sources),
        group: gv.group,
        version: gv.version,
        modules: gv.modules.map((m) => m.module),
        explicit: ambiguousExports(gv.modules),
      }),
      owner: "generator",
    });
  }
  files.push({
    path: path.join(options.outDir, "index.ts"),
    owner: "generator",
    content: options.render("index", {
      header: headerLine(crds),
      groupVersions: groupVersions.map((gv) => ({
        identifier: groupVersionIdentifier(gv.group, gv.version),
        module: moduleSpecifier(options.outDir, path.join(gv.dir, "index"), rel),
      })),
    }),
  });
  return files;
}

interface PlannedController {
  crd: CrdModel;
  version: VersionModel;
  /** The template data of the controller's version. */
  data: Record<string, unknown>;
  /** With webhooks: the versions converting to and from the controller's (the hub); empty for a single version. */
  spokes: Spoke[];
  modulePath: (artifact: string) => string;
}

/** A version other than the hub, as the conversion templates name it. */
interface Spoke {
  version: string;
  apiVersion: string;
  /** The kind's type of this version, as the hub's modules import it (`MySQLClusterV1alpha1`). */
  typeName: string;
  /** convert<Spoke>To<Hub> and convert<Hub>To<Spoke>. */
  toHub: string;
  fromHub: string;
  /** The spoke's types module, from the hub version's folder. */
  typesModule: string;
  /** Its path without extension (for the user files' specifiers). */
  typesPath: string;
  /** The fields whose types differ from the hub's, for the conversion stubs to list. */
  differences: string[];
}

/** v1alpha1 -> V1alpha1, v2-preview -> V2Preview: a version inside an identifier. */
const versionWord = (version: string) =>
  version
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

/** A list cut to its first `most` lines and one saying how many more there are. */
const atMost = (lines: string[], most: number) =>
  lines.length <= most ? lines : [...lines.slice(0, most - 1), `... and ${lines.length - most + 1} more`];

/**
 * The spokes of a kind's conversion: every other generated version, when the hub (the controller's version) is the
 * storage version, as the API server stores objects in it. A CRD whose storage version is not generated cannot have
 * a hub here: an error naming it, rather than conversions that would not match what the API server stores.
 */
function conversionSpokes(crd: CrdModel, hub: VersionModel, dir: string): Spoke[] {
  const others = crd.versions.filter((v) => v !== hub);
  if (others.length === 0) return [];
  if (!hub.storage)
    throw new InputError(
      { file: crd.source.file, documentIndex: crd.source.documentIndex },
      `${crd.name}: --webhooks converts every version through the storage version ${crd.storageVersion ?? "(none)"}, which is not served`,
    );
  const stem = fileStem(crd.kind);
  return others.map((v) => {
    const typesPath = path.join(path.dirname(dir), v.name, `${stem}.types`);
    return {
      version: v.name,
      apiVersion: `${crd.group}/${v.name}`,
      typeName: `${crd.kind}${versionWord(v.name)}`,
      toHub: `convert${versionWord(v.name)}To${versionWord(hub.name)}`,
      fromHub: `convert${versionWord(hub.name)}To${versionWord(v.name)}`,
      typesModule: moduleSpecifier(dir, typesPath, rel),
      typesPath,
      differences: atMost(schemaDifferences(v.schema, hub.schema, v.name, hub.name), 40),
    };
  });
}

/**
 * The user-owned files (each kind's hooks, optional scaffolded tests, main.ts) and the generated registry of every
 * controller (controllers.ts in the output folder), which main.ts imports: adding a CRD adds its controller there,
 * so no user-owned file ever needs an edit.
 */
function planUserFiles(controllers: PlannedController[], hooksDir: string, options: PlanOptions): PlannedFile[] {
  const files: PlannedFile[] = [];
  const stemCount = new Map<string, number>();
  for (const c of controllers) stemCount.set(fileStem(c.crd.kind), (stemCount.get(fileStem(c.crd.kind)) ?? 0) + 1);
  const camelCount = new Map<string, number>();
  for (const c of controllers) camelCount.set(camelCase(c.crd.kind), (camelCount.get(camelCase(c.crd.kind)) ?? 0) + 1);
  const entries = controllers.map((c) => {
    const stem = fileStem(c.crd.kind);
    // Kinds of the same name in two groups (metallb's and calico's BGPPeer) each get their own hooks file. A hooks file
    // the lock already records keeps its path, so adding a second such CRD never moves the first one's.
    const recorded = options.previousHooks?.get(c.crd.name);
    const hooksPath =
      recorded !== undefined
        ? path.join(hooksDir, recorded)
        : path.join(hooksDir, stemCount.get(stem)! > 1 ? `${stem}.${c.crd.group}.hooks.ts` : `${stem}.hooks.ts`);
    const camelKind = camelCase(c.crd.kind);
    const id =
      camelCount.get(camelKind)! > 1
        ? `${camelKind}_${groupVersionIdentifier(c.crd.group, c.version.name)}`
        : camelKind;
    return { ...c, hooksPath, id };
  });
  for (const c of entries) {
    const hooksData = {
      rt: c.data["rt"],
      promise: c.data["promise"],
      kind: c.crd.kind,
      typesModule: moduleSpecifier(hooksDir, c.modulePath("types"), rel),
      controllerModule: moduleSpecifier(hooksDir, c.modulePath("controller"), rel),
    };
    const parameterTypes = [`${c.crd.kind}Context`, c.crd.kind];
    const hooks = {
      kind: c.crd.kind,
      hooks: [
        { name: "reconcile", parameterTypes, required: true },
        { name: "finalize", parameterTypes, required: false },
      ],
      imports: { [c.crd.kind]: hooksData.typesModule, [`${c.crd.kind}Context`]: hooksData.controllerModule },
    };
    files.push({
      path: c.hooksPath,
      content: options.render("hooks", hooksData),
      owner: "user",
      crdName: c.crd.name,
      hooks,
    });
    files.push({
      path: c.hooksPath.replace(/\.hooks\.ts$/, ".expansion.ts"),
      content: options.render("expansion", {
        kind: c.crd.kind,
        clientModule: moduleSpecifier(hooksDir, c.modulePath("client"), rel),
      }),
      owner: "user",
    });
    if (options.testsDir) {
      const testPath = path.join(options.testsDir, `${path.basename(c.hooksPath, ".ts")}.test.ts`);
      const testData = {
        ...c.data,
        typesModule: moduleSpecifier(options.testsDir, c.modulePath("types"), rel),
        clientModule: moduleSpecifier(options.testsDir, c.modulePath("client"), rel),
        listerModule: moduleSpecifier(options.testsDir, c.modulePath("lister"), rel),
        controllerModule: moduleSpecifier(options.testsDir, c.modulePath("controller"), rel),
        hooksModule: moduleSpecifier(options.testsDir, c.hooksPath.replace(/\.ts$/, ""), rel),
      };
      files.push({ path: testPath, content: options.render("hooks-test", testData), owner: "user" });
    }
    if (options.webhooks) files.push(...planWebhookUserFiles(c, hooksDir, options));
  }
  const registryPath = path.join(options.outDir, "controllers.ts");
  files.push({
    path: registryPath,
    owner: "generator",
    content: options.render("registry", {
      header: headerLine(entries.map((c) => c.crd)),
      controllers: entries.map((c) => ({
        id: c.id,
        kind: c.crd.kind,
        controllerModule: moduleSpecifier(options.outDir, c.modulePath("controller"), rel),
        hooksModule: moduleSpecifier(options.outDir, c.hooksPath.replace(/\.ts$/, ""), rel),
      })),
    }),
  });
  if (options.webhooks) {
    const registry = path.join(options.outDir, "webhooks.ts");
    files.push({
      path: registry,
      owner: "generator",
      content: options.render("webhook-registry", {
        header: headerLine(entries.map((c) => c.crd)),
        kinds: entries.map((c) => ({
          id: c.id,
          kind: c.crd.kind,
          webhookModule: moduleSpecifier(options.outDir, c.modulePath("webhook"), rel),
          hooksModule: moduleSpecifier(options.outDir, webhookUserPath(c.hooksPath, "webhooks"), rel),
          conversionModule: c.spokes.length
            ? moduleSpecifier(options.outDir, webhookUserPath(c.hooksPath, "conversion"), rel)
            : false,
        })),
      }),
    });
  }
  files.push({
    path: path.join(hooksDir, "main.ts"),
    content: options.render("main", {
      registryModule: moduleSpecifier(hooksDir, registryPath.replace(/\.ts$/, ""), rel),
      webhookRegistryModule: options.webhooks
        ? moduleSpecifier(hooksDir, path.join(options.outDir, "webhooks"), rel)
        : false,
    }),
    owner: "user",
  });
  return files;
}

/** A kind's user file beside its hooks file: mysqlcluster.hooks.ts -> mysqlcluster.webhooks (without extension). */
const webhookUserPath = (hooksPath: string, what: "webhooks" | "conversion") =>
  hooksPath.replace(/\.hooks\.ts$/, `.${what}`);

/**
 * A kind's user-owned webhook files: <kind>.webhooks.ts (admission hooks), and for several versions
 * <kind>.conversion.ts and, with testsDir, its round-trip test. Each hooks file is signature-checked like the
 * reconcile hooks (a `.new` file when the generated code calls it differently now).
 */
function planWebhookUserFiles(
  c: PlannedController & { hooksPath: string },
  hooksDir: string,
  options: PlanOptions,
): PlannedFile[] {
  const files: PlannedFile[] = [];
  const kind = c.crd.kind;
  const typesModule = moduleSpecifier(hooksDir, c.modulePath("types"), rel);
  const admission = {
    rtWebhook: c.data["rtWebhook"],
    kind,
    resourceConst: c.data["resourceConst"],
    typesModule,
    validationModule: options.validationCode ? moduleSpecifier(hooksDir, c.modulePath("validation"), rel) : false,
  };
  const admissionHook = (name: string, parameterTypes: string[]) => ({
    name,
    parameterTypes,
    required: false,
    moreParameters: true,
  });
  files.push({
    path: `${webhookUserPath(c.hooksPath, "webhooks")}.ts`,
    content: options.render("webhooks", admission),
    owner: "user",
    hooks: {
      kind,
      hooks: [
        admissionHook("default", [kind]),
        admissionHook("validateCreate", [kind]),
        admissionHook("validateUpdate", [kind, kind]),
        admissionHook("validateDelete", [kind]),
      ],
      imports: { [kind]: typesModule },
    },
  });
  if (c.spokes.length === 0) return files;
  const conversionPath = webhookUserPath(c.hooksPath, "conversion");
  const hub = { hubVersion: c.version.name, hubApiVersion: `${c.crd.group}/${c.version.name}` };
  const spokes = c.spokes.map((s) => ({ ...s, userTypesModule: moduleSpecifier(hooksDir, s.typesPath, rel) }));
  files.push({
    path: `${conversionPath}.ts`,
    content: options.render("conversion", {
      kind,
      ...hub,
      annotation: `${c.crd.group}/conversion-data`,
      typesModule,
      spokes,
    }),
    owner: "user",
    hooks: {
      kind,
      hooks: spokes.flatMap((s) => [
        { name: s.toHub, parameterTypes: [s.typeName], required: true },
        { name: s.fromHub, parameterTypes: [kind], required: true },
      ]),
      imports: { [kind]: typesModule, ...Object.fromEntries(spokes.map((s) => [s.typeName, s.userTypesModule])) },
    },
  });
  if (options.testsDir) {
    files.push({
      path: path.join(options.testsDir, `${path.basename(conversionPath)}.test.ts`),
      content: options.render("conversion-test", {
        rt: c.data["rt"],
        rtWebhook: c.data["rtWebhook"],
        promise: c.data["promise"],
        kind,
        namespaced: c.data["namespaced"],
        ...hub,
        typesModule: moduleSpecifier(options.testsDir, c.modulePath("types"), rel),
        webhookModule: moduleSpecifier(options.testsDir, c.modulePath("webhook"), rel),
        conversionModule: moduleSpecifier(options.testsDir, conversionPath, rel),
        spokes,
      }),
      owner: "user",
    });
  }
  return files;
}

/**
 * Names two modules of one group/version both export (a kind FooClient next to kind Foo's FooClient): `export *` would
 * drop them (TS2308), so the index names one explicitly: the kind's own type when the name is a kind, else the first.
 */
function ambiguousExports(
  modules: Array<{ module: string; kind: string; exports: string[] }>,
): Array<{ name: string; module: string; others: string }> {
  const owners = new Map<string, Array<{ module: string; kind: string }>>();
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

/** First line of every generator-owned file: what made it, from which input (with its sha256), and not to edit it. */
function headerLine(sources: CrdModel[]): string {
  const inputs = [...new Map(sources.map((c) => [c.source.file, c.source.fileSha256])).entries()].sort(([a], [b]) =>
    a.localeCompare(b),
  );
  if (inputs.length > 3) {
    // An index over many CRDs names how many inputs it came from, and one hash over all of their hashes.
    const combined = createHash("sha256")
      .update(inputs.map(([file, sha]) => `${file}:${sha}\n`).join(""))
      .digest("hex");
    return `// Code generated by crdgen ${generatorVersion} from ${inputs.length} input files (sha256 of their hashes ${combined}). DO NOT EDIT.`;
  }
  const described = inputs
    // A path is the user's (or a kubeconfig context's) text: a line break in it would end the comment and start code.
    .map(([file, sha]) => `${file === "-" ? "stdin" : lineCommentText(file.split(path.sep).join("/"))} (sha256 ${sha})`)
    .join(", ");
  return `// Code generated by crdgen ${generatorVersion} from ${described}. DO NOT EDIT.`;
}
