// Builds the intermediate model of each CRD and version: names, scope, versions, subresources, columns and schema.
import { InputError, pointer, scalarText } from "../input-error.js";
import type { LoadedCrd } from "../load/parse-crds.js";
import { normalizeSchema, type SchemaWarning } from "./normalize-schema.js";
import type { SchemaNode } from "./schema-node.js";
import { kindTypeName } from "./type-names.js";

export interface InputSource {
  file: string;
  documentIndex: number;
  fileSha256: string;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  format?: string;
  description?: string;
  priority?: number;
}

export interface VersionModel {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  subresources: { status: boolean; scale?: ScaleSubresource };
  printerColumns: PrinterColumn[];
  schema: SchemaNode;
  /**
   * The version's openAPIV3Schema as written, and its JSON pointer in the document (for validation and defaults).
   * Kept only when asked for (--validation, the one phase that reads it).
   */
  openAPIV3Schema?: Record<string, unknown>;
  schemaPointer: string;
}

export interface CrdModel {
  source: InputSource;
  /** metadata.name, `<plural>.<group>`. */
  name: string;
  group: string;
  /** spec.names.kind, as the API server has it (the wire value of every object's kind). */
  kind: string;
  /** The kind's name in TypeScript: the kind, or `<kind>_` for a reserved word (kindTypeName). */
  typeName: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  scope: "Namespaced" | "Cluster";
  /** The generated versions (see VersionSelection). */
  versions: VersionModel[];
  /** The version marked storage: true in the CRD, whether or not it was selected. */
  storageVersion?: string;
}

export type VersionSelection = "served" | "storage" | "all";

export interface ModelResult {
  crds: CrdModel[];
  warnings: SchemaWarning[];
}

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

export interface ModelOptions {
  /** Which versions to model (default: served). */
  selection?: VersionSelection;
  /** Keep each version's raw openAPIV3Schema (validation compiles it). */
  rawSchemas?: boolean;
}

/** The models of CRDs the load phase has checked (load/load-crds.ts): their names reach file paths and literals. */
export function buildModels(loaded: LoadedCrd[], options: ModelOptions = {}): ModelResult {
  const selection = options.selection ?? "served";
  const warnings: SchemaWarning[] = [];
  const seen = new Map<string, LoadedCrd>();
  const crds = loaded.map((entry) => {
    const model = buildCrdModel(entry, selection, options.rawSchemas ?? false, warnings);
    const first = seen.get(model.name);
    if (first) {
      throw new InputError(
        { file: entry.file, documentIndex: entry.documentIndex, schemaPath: "/metadata/name" },
        `a second CustomResourceDefinition named ${model.name} (the first is in ${first.file}, document ${first.documentIndex + 1})`,
      );
    }
    seen.set(model.name, entry);
    return model;
  });
  return { crds, warnings };
}

function buildCrdModel(
  entry: LoadedCrd,
  selection: VersionSelection,
  rawSchemas: boolean,
  warnings: SchemaWarning[],
): CrdModel {
  const where = (schemaPath: string) => ({ file: entry.file, documentIndex: entry.documentIndex, schemaPath });
  const requireString = (value: unknown, schemaPath: string, what: string): string => {
    if (typeof value !== "string" || value === "") throw new InputError(where(schemaPath), `${what} is missing`);
    return value;
  };
  const crd = entry.crd;
  const spec = isRecord(crd["spec"]) ? crd["spec"] : {};
  const names = isRecord(spec["names"]) ? spec["names"] : {};
  const group = requireString(spec["group"], "/spec/group", "spec.group");
  const kind = requireString(names["kind"], "/spec/names/kind", "spec.names.kind");
  const plural = requireString(names["plural"], "/spec/names/plural", "spec.names.plural");
  const metadata = isRecord(crd["metadata"]) ? crd["metadata"] : {};
  const name = typeof metadata["name"] === "string" ? metadata["name"] : `${plural}.${group}`;
  const scope = spec["scope"] === "Cluster" ? "Cluster" : spec["scope"] === "Namespaced" ? "Namespaced" : undefined;
  if (!scope)
    throw new InputError(
      where("/spec/scope"),
      `spec.scope must be Namespaced or Cluster, found ${JSON.stringify(spec["scope"])}`,
    );
  const rawVersions = Array.isArray(spec["versions"]) ? spec["versions"] : [];
  if (rawVersions.length === 0) throw new InputError(where("/spec/versions"), "spec.versions lists no version");

  const versions: VersionModel[] = [];
  const storageVersion = rawVersions.filter(isRecord).find((v) => v["storage"] === true)?.["name"];
  rawVersions.forEach((raw, index) => {
    const at = pointer("/spec/versions", index);
    if (!isRecord(raw)) throw new InputError(where(at), "a version must be a mapping");
    const versionName = requireString(raw["name"], pointer(at, "name"), "the version's name");
    const served = raw["served"] === true;
    const storage = raw["storage"] === true;
    if (selection === "served" && !served) return;
    if (selection === "storage" && !storage) return;
    const schemaAt = pointer(at, "schema", "openAPIV3Schema");
    const schema = isRecord(raw["schema"]) ? raw["schema"]["openAPIV3Schema"] : undefined;
    if (!isRecord(schema))
      throw new InputError(
        where(schemaAt),
        `version ${versionName} has no schema.openAPIV3Schema (required by apiextensions.k8s.io/v1)`,
      );
    const subresources = isRecord(raw["subresources"]) ? raw["subresources"] : {};
    const scale = isRecord(subresources["scale"]) ? subresources["scale"] : undefined;
    versions.push({
      name: versionName,
      served,
      storage,
      deprecated: raw["deprecated"] === true,
      ...(typeof raw["deprecationWarning"] === "string" ? { deprecationWarning: raw["deprecationWarning"] } : {}),
      subresources: {
        status: isRecord(subresources["status"]),
        ...(scale
          ? {
              scale: {
                specReplicasPath: scalarText(scale["specReplicasPath"]),
                statusReplicasPath: scalarText(scale["statusReplicasPath"]),
                ...(typeof scale["labelSelectorPath"] === "string"
                  ? { labelSelectorPath: scale["labelSelectorPath"] }
                  : {}),
              },
            }
          : {}),
      },
      printerColumns: (Array.isArray(raw["additionalPrinterColumns"]) ? raw["additionalPrinterColumns"] : [])
        .filter(isRecord)
        .map((c) => ({
          name: String(c["name"]),
          type: String(c["type"]),
          jsonPath: String(c["jsonPath"]),
          ...(typeof c["format"] === "string" ? { format: c["format"] } : {}),
          ...(typeof c["description"] === "string" ? { description: c["description"] } : {}),
          ...(typeof c["priority"] === "number" ? { priority: c["priority"] } : {}),
        })),
      schema: normalizeSchema(schema, schemaAt, { file: entry.file, documentIndex: entry.documentIndex, warnings }),
      ...(rawSchemas ? { openAPIV3Schema: schema } : {}),
      schemaPointer: schemaAt,
    });
  });
  if (versions.length === 0) {
    warnings.push({
      ...where("/spec/versions"),
      message: `no version of ${kind} is ${selection === "storage" ? "the storage version" : "served"}; nothing is generated for it (--versions all generates every version)`,
    });
  }

  return {
    source: { file: entry.file, documentIndex: entry.documentIndex, fileSha256: entry.fileSha256 },
    name,
    group,
    kind,
    typeName: kindTypeName(kind),
    listKind: typeof names["listKind"] === "string" ? names["listKind"] : `${kind}List`,
    plural,
    singular: typeof names["singular"] === "string" ? names["singular"] : kind.toLowerCase(),
    shortNames: Array.isArray(names["shortNames"]) ? names["shortNames"].map(String) : [],
    categories: Array.isArray(names["categories"]) ? names["categories"].map(String) : [],
    scope,
    versions,
    ...(typeof storageVersion === "string" ? { storageVersion } : {}),
  };
}
