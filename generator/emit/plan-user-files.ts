// Plans the files around each controller's hooks: the user-owned hooks, example tests and main.ts, and the
// generated controllers.ts registry main.ts imports (adding a CRD adds its controller there, so no user file needs an
// edit); with --webhooks the webhook files of plan-webhook-files.ts.
import { existsSync } from "node:fs";
import path from "node:path";
import { exampleFields } from "./example-object.js";
import { headerLine } from "./file-header.js";
import { camelCase, fileStem, groupVersionIdentifier } from "./names.js";
import type { PlannedController } from "./plan-types.js";
import { specifierFrom, type PlannedFile, type PlanOptions } from "./plan-types.js";
import { planWebhookRegistry, planWebhookUserFiles, type UserController } from "./plan-webhook-files.js";

export function planUserFiles(controllers: PlannedController[], hooksDir: string, options: PlanOptions): PlannedFile[] {
  const entries = placeUserFiles(controllers, hooksDir, options.previousHooks);
  const files: PlannedFile[] = [];
  for (const c of entries) {
    files.push(hooksFile(c, hooksDir, options));
    if (options.testsDir) files.push(testingFile(c, options), hooksTestFile(c, options.testsDir, options));
    if (options.testsDir) files.push(...e2eTestFile(c, options.testsDir, options));
    if (options.webhooks) files.push(...planWebhookUserFiles(c, hooksDir, options));
  }
  const registry = controllerRegistry(entries, options);
  files.push(registry);
  if (options.webhooks) files.push(planWebhookRegistry(entries, options));
  files.push({
    path: path.join(hooksDir, "main.ts"),
    content: options.render("main", {
      registryModule: specifierFrom(hooksDir)(registry.path.replace(/\.ts$/, "")),
      webhookRegistryModule: options.webhooks ? specifierFrom(hooksDir)(path.join(options.outDir, "webhooks")) : false,
    }),
    owner: "user",
  });
  return files;
}

/** How many of `values` each value is. */
const counts = (values: string[]) => {
  const count = new Map<string, number>();
  for (const v of values) count.set(v, (count.get(v) ?? 0) + 1);
  return count;
};

/** Each controller's hooks file and its id in the registries, both unique among the kinds of this run. */
function placeUserFiles(
  controllers: PlannedController[],
  hooksDir: string,
  previousHooks: ReadonlyMap<string, string> | undefined,
): UserController[] {
  const stemCount = counts(controllers.map((c) => fileStem(c.crd.kind)));
  const camelCount = counts(controllers.map((c) => camelCase(c.crd.typeName)));
  return controllers.map((c) => {
    const stem = fileStem(c.crd.kind);
    // Kinds of the same name in two groups (metallb's and calico's BGPPeer) each get their own hooks file. A hooks file
    // the lock already records keeps its path, so adding a second such CRD never moves the first one's.
    const recorded = previousHooks?.get(c.crd.name);
    const hooksPath =
      recorded !== undefined
        ? path.join(hooksDir, recorded)
        : path.join(hooksDir, stemCount.get(stem)! > 1 ? `${stem}.${c.crd.group}.hooks.ts` : `${stem}.hooks.ts`);
    const camelKind = camelCase(c.crd.typeName);
    const id =
      camelCount.get(camelKind)! > 1
        ? `${camelKind}_${groupVersionIdentifier(c.crd.group, c.version.name)}`
        : camelKind;
    return { ...c, hooksPath, id };
  });
}

/** <kind>.hooks.ts: reconcile (and optionally finalize), signature-checked when it exists already. */
function hooksFile(c: UserController, hooksDir: string, options: PlanOptions): PlannedFile {
  const kind = c.crd.typeName;
  const specifier = specifierFrom(hooksDir);
  const kindModule = specifier(c.kindModulePath);
  const parameterTypes = [`${kind}Context`, kind];
  // typesModule and controllerModule: the kind module too, for a --templates hooks file written before it existed.
  const modules = { kindModule, typesModule: kindModule, controllerModule: kindModule };
  return {
    path: c.hooksPath,
    content: options.render("hooks", { rt: c.data.rt, promise: c.data.promise, kind, ...modules }),
    owner: "user",
    crdName: c.crd.name,
    hooks: {
      kind,
      hooks: [
        { name: "reconcile", parameterTypes, required: true },
        { name: "finalize", parameterTypes, required: false },
      ],
      // A file an earlier crdgen created imports the controller's version's modules: still right while it is.
      imports: {
        [kind]: [kindModule, specifier(c.modulePath("types"))],
        [`${kind}Context`]: [kindModule, specifier(c.modulePath("controller"))],
      },
    },
  };
}

/** <out>/<group>/<kind>.testing.ts: new<Kind>TestContext, the context the hooks tests hand reconcile. */
function testingFile(c: UserController, options: PlanOptions): PlannedFile {
  return {
    path: `${c.kindModulePath}.testing.ts`,
    owner: "generator",
    content: options.render("testing", {
      header: c.data.header,
      rtTesting: c.data.rtTesting,
      kind: c.crd.typeName,
      resourceConst: c.data.resourceConst,
      hasStatus: c.data.hasStatus,
      kindModule: `./${path.basename(c.kindModulePath)}.js`,
    }),
  };
}

/** An example unit test of the kind's hooks, on the runtime's FakeCluster, starting from a valid object. */
function hooksTestFile(c: UserController, testsDir: string, options: PlanOptions): PlannedFile {
  const specifier = specifierFrom(testsDir);
  const kindModule = specifier(c.kindModulePath);
  return {
    path: path.join(testsDir, `${path.basename(c.hooksPath, ".ts")}.test.ts`),
    content: options.render("hooks-test", {
      ...c.data,
      kindModule,
      // The kind module too, for a --templates test written before it existed.
      controllerModule: kindModule,
      typesModule: kindModule,
      clientModule: kindModule,
      listerModule: kindModule,
      informerModule: kindModule,
      hooksModule: specifier(c.hooksPath.replace(/\.ts$/, "")),
      testingModule: specifier(`${c.kindModulePath}.testing`),
      exampleFields: exampleFields(c.version.schema, "  "),
    }),
    owner: "user",
  };
}

/**
 * An example end-to-end test of the kind's controller on a local control plane, which installs the CRD from its file:
 * none for a CRD read from stdin or a cluster. The file is named from the folder crdgen runs in, as npm runs both.
 */
function e2eTestFile(c: UserController, testsDir: string, options: PlanOptions): PlannedFile[] {
  const source = c.crd.source.file;
  if (source === "-" || !existsSync(source)) return [];
  const specifier = specifierFrom(testsDir);
  return [
    {
      path: path.join(testsDir, `${path.basename(c.hooksPath, ".hooks.ts")}.e2e.test.ts`),
      content: options.render("e2e-test", {
        ...c.data,
        // The kind module: the test keeps compiling when versions are renamed or the storage version moves.
        kindModule: specifier(c.kindModulePath),
        hooksModule: specifier(c.hooksPath.replace(/\.ts$/, "")),
        crdFile: path.relative(process.cwd(), source).split(path.sep).join("/"),
        exampleFields: exampleFields(c.version.schema, "      "),
      }),
      owner: "user",
    },
  ];
}

/** controllers.ts in the output folder: every controller with the user's hooks, for main.ts. */
function controllerRegistry(controllers: UserController[], options: PlanOptions): PlannedFile {
  const specifier = specifierFrom(options.outDir);
  return {
    path: path.join(options.outDir, "controllers.ts"),
    owner: "generator",
    content: options.render("registry", {
      header: headerLine(controllers.map((c) => c.crd)),
      controllers: controllers.map((c) => ({
        id: c.id,
        kind: c.crd.typeName,
        controllerModule: specifier(c.modulePath("controller")),
        hooksModule: specifier(c.hooksPath.replace(/\.ts$/, "")),
      })),
    }),
  };
}
