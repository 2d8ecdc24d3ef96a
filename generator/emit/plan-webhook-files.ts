// Plans the --webhooks files beyond each kind's generated <kind>.webhook.ts: the conversion spokes it serves, the
// user-owned admission hooks, conversions and round-trip test, and the generated webhooks.ts registry.
import path from "node:path";
import type { CrdModel, VersionModel } from "../model/resource-model.js";
import { InputError } from "../input-error.js";
import { schemaDifferences } from "../model/schema-differences.js";
import { exampleFields } from "./example-object.js";
import { headerLine } from "./file-header.js";
import { fileStem } from "./names.js";
import type { PlannedController } from "./plan-types.js";
import { specifierFrom, type PlannedFile, type PlanOptions } from "./plan-types.js";
import type { Spoke, UserSpoke } from "./template-data.js";

/** A controller with its user files' places: its hooks file and its id in the registries. */
export interface UserController extends PlannedController {
  hooksPath: string;
  id: string;
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
export function conversionSpokes(crd: CrdModel, hub: VersionModel, dir: string): Spoke[] {
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
      typeName: `${crd.typeName}${versionWord(v.name)}`,
      toHub: `convert${versionWord(v.name)}To${versionWord(hub.name)}`,
      fromHub: `convert${versionWord(hub.name)}To${versionWord(v.name)}`,
      typesModule: specifierFrom(dir)(typesPath),
      typesPath,
      differences: atMost(schemaDifferences(v.schema, hub.schema, v.name, hub.name), 40),
    };
  });
}

/** A kind's user file beside its hooks file: mysqlcluster.hooks.ts -> mysqlcluster.webhooks (without extension). */
export const webhookUserPath = (hooksPath: string, what: "webhooks" | "conversion") =>
  hooksPath.replace(/\.hooks\.ts$/, `.${what}`);

/**
 * A kind's user-owned webhook files: <kind>.webhooks.ts (admission hooks) and, with testsDir, its test; for several
 * versions <kind>.conversion.ts and, with testsDir, its round-trip test. Each hooks file is signature-checked like the
 * reconcile hooks (a `.new` file when the generated code calls it differently now).
 */
export function planWebhookUserFiles(c: UserController, hooksDir: string, options: PlanOptions): PlannedFile[] {
  const typesModule = specifierFrom(hooksDir)(c.modulePath("types"));
  const files = [admissionHooksFile(c, hooksDir, typesModule, options)];
  if (options.testsDir) files.push(admissionTestFile(c, options.testsDir, options));
  if (c.spokes.length === 0) return files;
  const spokes = c.spokes.map((s) => ({
    ...s,
    userTypesModule: specifierFrom(hooksDir)(s.typesPath),
  }));
  files.push(conversionFile(c, typesModule, spokes, options));
  if (options.testsDir) files.push(conversionTestFile(c, options.testsDir, spokes, options));
  return files;
}

function admissionHooksFile(
  c: UserController,
  hooksDir: string,
  typesModule: string,
  options: PlanOptions,
): PlannedFile {
  const kind = c.crd.typeName;
  const kindModule = specifierFrom(hooksDir)(c.kindModulePath);
  const admissionHook = (name: string, parameterTypes: string[]) => ({
    name,
    parameterTypes,
    required: false,
    moreParameters: true,
  });
  return {
    path: `${webhookUserPath(c.hooksPath, "webhooks")}.ts`,
    content: options.render("webhooks", {
      rtWebhook: c.data.rtWebhook,
      kind,
      resourceConst: c.data.resourceConst,
      kindModule,
      validation: options.validationCode !== undefined,
      typesModule: kindModule,
      validationModule: options.validationCode ? kindModule : false,
    }),
    owner: "user",
    hooks: {
      kind,
      hooks: [
        admissionHook("default", [kind]),
        admissionHook("validateCreate", [kind]),
        admissionHook("validateUpdate", [kind, kind]),
        admissionHook("validateDelete", [kind]),
      ],
      imports: { [kind]: [kindModule, typesModule] },
    },
  };
}

/** An example test of the admission hooks: AdmissionReviews through the kind's generated webhooks. */
function admissionTestFile(c: UserController, testsDir: string, options: PlanOptions): PlannedFile {
  const webhooksPath = webhookUserPath(c.hooksPath, "webhooks");
  const specifier = specifierFrom(testsDir);
  return {
    path: path.join(testsDir, `${path.basename(webhooksPath)}.test.ts`),
    content: options.render("webhooks-test", {
      rtTesting: c.data.rtTesting,
      kind: c.crd.typeName,
      resourceConst: c.data.resourceConst,
      namespaced: c.data.namespaced,
      kindModule: specifier(c.kindModulePath),
      webhooksModule: specifier(webhooksPath),
      exampleFields: exampleFields(c.version.schema, "  "),
    }),
    owner: "user",
  };
}

/** The hub of a kind's conversions: the controller's version, its storage version. */
const hubOf = (c: PlannedController) => ({
  hubVersion: c.version.name,
  hubApiVersion: `${c.crd.group}/${c.version.name}`,
});

function conversionFile(
  c: UserController,
  typesModule: string,
  spokes: UserSpoke[],
  options: PlanOptions,
): PlannedFile {
  const kind = c.crd.typeName;
  return {
    path: `${webhookUserPath(c.hooksPath, "conversion")}.ts`,
    content: options.render("conversion", {
      kind,
      ...hubOf(c),
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
      imports: { [kind]: [typesModule], ...Object.fromEntries(spokes.map((s) => [s.typeName, [s.userTypesModule]])) },
    },
  };
}

function conversionTestFile(
  c: UserController,
  testsDir: string,
  spokes: UserSpoke[],
  options: PlanOptions,
): PlannedFile {
  const conversionPath = webhookUserPath(c.hooksPath, "conversion");
  const specifier = specifierFrom(testsDir);
  return {
    path: path.join(testsDir, `${path.basename(conversionPath)}.test.ts`),
    content: options.render("conversion-test", {
      rt: c.data.rt,
      rtWebhook: c.data.rtWebhook,
      promise: c.data.promise,
      kind: c.crd.typeName,
      namespaced: c.data.namespaced,
      ...hubOf(c),
      typesModule: specifier(c.modulePath("types")),
      webhookModule: specifier(c.modulePath("webhook")),
      conversionModule: specifier(conversionPath),
      spokes,
    }),
    owner: "user",
  };
}

/** webhooks.ts in the output folder: every kind's webhooks with the user's hooks and conversions, for runManager. */
export function planWebhookRegistry(controllers: UserController[], options: PlanOptions): PlannedFile {
  const specifier = specifierFrom(options.outDir);
  return {
    path: path.join(options.outDir, "webhooks.ts"),
    owner: "generator",
    content: options.render("webhook-registry", {
      header: headerLine(controllers.map((c) => c.crd)),
      kinds: controllers.map((c) => ({
        id: c.id,
        kind: c.crd.typeName,
        webhookModule: specifier(c.modulePath("webhook")),
        hooksModule: specifier(webhookUserPath(c.hooksPath, "webhooks")),
        conversionModule: c.spokes.length ? specifier(webhookUserPath(c.hooksPath, "conversion")) : false,
      })),
    }),
  };
}
