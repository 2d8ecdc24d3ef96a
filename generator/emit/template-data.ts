// The values each template renders with: TemplateData maps a template's name to them, so renderTemplate(name, data)
// is type-checked against what the template uses (handlebars' strict mode then catches a misspelt one at run time).

/**
 * How a kind's modules name the runtime and the globals they use: each subpath imported as a namespace named for it
 * (rt is the root), renamed with "_" when the kind's own names take it; a global through globalThis when a kind is
 * called like it (kind Promise).
 */
export interface RuntimeNames {
  rt: string;
  rtCache: string;
  rtClient: string;
  rtValidation: string;
  rtTesting: string;
  rtWebhook: string;
  rtEnvtest: string;
  rtWait: string;
  promise: string;
  object: string;
}

/** One kind's version: what its generated modules (types, client, lister, informer, controller) render with. */
export interface KindData extends RuntimeNames {
  /** crdgen's first line of a generated file (see headerLine). */
  header: string;
  /** The kind's TypeScript name (`import_` for the kind `import`: CrdModel.typeName); apiKind is the kind itself. */
  kind: string;
  apiKind: string;
  camelKind: string;
  group: string;
  version: string;
  apiVersion: string;
  /** metadata.name, which validation keeps equal to <plural>.<group>. */
  crdName: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: string;
  namespaced: boolean;
  storage: boolean;
  /** The storage version of the CRD, whether or not it is generated (--versions served may leave it out). */
  storageVersion: string | null;
  deprecated: boolean;
  deprecationWarning: string;
  hasStatus: boolean;
  hasScale: boolean;
  resourceConst: string;
  /** The version's type declarations (type-declarations.ts) and the names the types module imports. */
  declarations: string;
  k8sImports: string;
  runtimeImports: string;
  listMeta: string;
  resourceDescriptor: string;
  /** Module specifiers of the kind's sibling modules, from its own folder. */
  typesModule: string;
  clientModule: string;
  listerModule: string;
  informerModule: string;
}

/** A version other than the hub, as the conversion templates name it. */
export interface Spoke {
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

/** A spoke as a user file (in the hooks folder) imports it. */
export interface UserSpoke extends Spoke {
  userTypesModule: string;
}

/** The kind's version with its compiled validation (--validation). */
export interface ValidationData extends KindData {
  validationModule: string;
  schemaValidatorModule: string;
  /** ajv standalone code, the structural tree's shared nodes and its root expression. */
  code: string;
  structureDeclarations: string;
  structureRoot: string;
}

/** The hub of a kind's conversions: its storage version. */
export interface HubData {
  hubVersion: string;
  hubApiVersion: string;
}

/** A module specifier, or false when the file is not generated (a template's `{{#if}}` leaves its import out). */
type OptionalModule = string | false;

export interface TemplateData {
  types: KindData;
  client: KindData;
  lister: KindData;
  informer: KindData;
  controller: KindData;
  webhook: KindData & { spokes: Spoke[] };
  "schema-validator": ValidationData;
  validation: ValidationData;
  /** kindModule: <out>/<group>/<kind>.js (typesModule and controllerModule are it too, for older --templates files). */
  hooks: Pick<RuntimeNames, "rt" | "promise"> & {
    kind: string;
    kindModule: string;
    typesModule: string;
    controllerModule: string;
  };
  /**
   * testingModule: the kind's <kind>.testing.ts; exampleFields: the example object's lines after metadata (see
   * exampleFields).
   */
  "hooks-test": KindData & {
    kindModule: string;
    controllerModule: string;
    hooksModule: string;
    testingModule: string;
    exampleFields: string;
  };
  /** <out>/<group>/<kind>.testing.ts (with --tests): new<Kind>TestContext over the kind module (kindModule). */
  testing: Pick<KindData, "header" | "rtTesting" | "kind" | "resourceConst" | "hasStatus"> & { kindModule: string };
  /** <kind>.webhooks.test.ts (--webhooks --tests): the admission hooks (webhooksModule) through the kind's webhooks. */
  "webhooks-test": Pick<KindData, "rtTesting" | "kind" | "resourceConst" | "namespaced"> & {
    kindModule: string;
    webhooksModule: string;
    exampleFields: string;
  };
  /** crdFile: the CRD's file, from the folder crdgen ran in; exampleFields as the hooks test's. */
  "e2e-test": KindData & { kindModule: string; hooksModule: string; crdFile: string; exampleFields: string };
  /** typesModule and validationModule: the kind module too (kindModule), for older --templates files. */
  webhooks: Pick<KindData, "rtWebhook" | "kind" | "resourceConst" | "typesModule"> & {
    kindModule: string;
    validation: boolean;
    validationModule: OptionalModule;
  };
  conversion: HubData & { kind: string; annotation: string; typesModule: string; spokes: UserSpoke[] };
  "conversion-test": Pick<KindData, "rt" | "rtWebhook" | "promise" | "kind" | "namespaced" | "typesModule"> &
    HubData & { webhookModule: string; conversionModule: string; spokes: UserSpoke[] };
  registry: {
    header: string;
    controllers: Array<{ id: string; kind: string; controllerModule: string; hooksModule: string }>;
  };
  "webhook-registry": {
    header: string;
    kinds: Array<{
      id: string;
      kind: string;
      webhookModule: string;
      hooksModule: string;
      conversionModule: OptionalModule;
    }>;
  };
  main: { registryModule: string; webhookRegistryModule: OptionalModule };
  /** <out>/<group>/<kind>.ts: the kind's modules at the version its controller reconciles, version-free for user files. */
  kind: {
    header: string;
    kind: string;
    version: string;
    storage: boolean;
    modules: string[];
    explicit: Array<{ name: string; module: string; others: string }>;
  };
  "version-index": {
    header: string;
    group: string;
    version: string;
    modules: string[];
    /** Names two modules export, re-exported from one of them by name (see ambiguousExports). */
    explicit: Array<{ name: string; module: string; others: string }>;
  };
  index: { header: string; groupVersions: Array<{ identifier: string; module: string }> };
}

export type TemplateName = keyof TemplateData;
