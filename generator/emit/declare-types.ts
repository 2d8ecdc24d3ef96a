// The type declarations of every kind and version, named group/version by group/version (see declareTypes).
import type { CrdModel, VersionModel } from "../model/resource-model.js";
import { camelCase } from "./names.js";
import { templateExports } from "./templates.js";
import { emitTypeDeclarations, type TypeDeclarations } from "./type-declarations.js";

/**
 * Every name a kind's generated modules declare, besides its nested types (reserved across a group/version): the kind
 * and the names the per-kind templates export, read from the templates themselves (templateExports).
 */
export function kindModuleNames(kind: string): string[] {
  const c = camelCase(kind);
  const names = (["types", "client", "lister", "informer", "controller", "webhook"] as const).flatMap((t) =>
    templateExports(t, { kind, camelKind: c, resourceConst: `${c}Resource` }),
  );
  return [...new Set([kind, ...names])];
}

interface Entry {
  crd: CrdModel;
  version: VersionModel;
}

/**
 * The declarations of whole group/versions, declared elsewhere (on a worker thread), by group/version: how many kinds'
 * versions the group/version had there, and each one's declarations by typeKey. They stand for the group/version only
 * when it has as many here: a group/version split across workers is declared again, whole, here.
 */
export type DeclaredGroupVersions = Map<string, { count: number; types: Array<[string, TypeDeclarations]> }>;

/** A version's key among declared types: CRD names are unique in a run (loadModels checks). */
const typeKey = ({ crd, version }: Entry) => `${crd.name} ${version.name}`;

/** Every kind's version by group/version, in input order, each group/version's in naming order (kind, CRD name). */
function byGroupVersion(crds: CrdModel[]): Map<string, Entry[]> {
  const groups = new Map<string, Entry[]>();
  for (const crd of crds) {
    for (const version of crd.versions) {
      const key = `${crd.group}/${version.name}`;
      const entries = groups.get(key) ?? [];
      entries.push({ crd, version });
      groups.set(key, entries);
    }
  }
  for (const entries of groups.values())
    entries.sort((a, b) => a.crd.kind.localeCompare(b.crd.kind) || a.crd.name.localeCompare(b.crd.name));
  return groups;
}

/**
 * The types of one group/version's kinds. They share its index module, so a nested type of one must not take a name
 * another exports: kinds are named in a fixed order, each avoiding the names of every kind's modules and the nested
 * names of the kinds before it.
 */
function declareGroupVersion(entries: Entry[], step: () => void): TypeDeclarations[] {
  // Every kind's <Kind>Spec and <Kind>Status are kept for it, so another kind's nested type never takes them.
  const own = (kind: string) => [`${kind}Spec`, `${kind}Status`];
  const reserved = new Set(
    entries.length > 1 ? entries.flatMap((e) => [...kindModuleNames(e.crd.typeName), ...own(e.crd.typeName)]) : [],
  );
  return entries.map(({ crd, version }) => {
    const mine = own(crd.typeName);
    const types = emitTypeDeclarations(crd, version, {
      reserved: new Set([...reserved].filter((n) => !mine.includes(n))),
    });
    step();
    if (entries.length > 1) for (const name of types.exported) reserved.add(name);
    return types;
  });
}

/** The types of every kind and version; those of a group/version in `declared` (whole) are taken from there. */
export function declareTypes(
  crds: CrdModel[],
  step: () => void = () => undefined,
  declared?: DeclaredGroupVersions,
): Map<VersionModel, TypeDeclarations> {
  const result = new Map<VersionModel, TypeDeclarations>();
  for (const [groupVersion, entries] of byGroupVersion(crds)) {
    const done = declared?.get(groupVersion);
    const known = done?.count === entries.length ? new Map(done.types) : undefined;
    if (known && entries.every((e) => known.has(typeKey(e)))) {
      for (const entry of entries) {
        result.set(entry.version, known.get(typeKey(entry))!);
        step();
      }
      continue;
    }
    const types = declareGroupVersion(entries, step);
    entries.forEach((e, i) => result.set(e.version, types[i]!));
  }
  return result;
}

/**
 * What a worker thread declares for its share of the CRDs: every group/version of the share. One that fails is left
 * out, so the main thread declares it again and reports its error at the point a single thread would.
 */
export function declareGroupVersions(crds: CrdModel[]): DeclaredGroupVersions {
  const declared: DeclaredGroupVersions = new Map();
  for (const [groupVersion, entries] of byGroupVersion(crds)) {
    try {
      const types = declareGroupVersion(entries, () => undefined);
      declared.set(groupVersion, { count: entries.length, types: entries.map((e, i) => [typeKey(e), types[i]!]) });
    } catch {
      // Declared again, and reported, on the main thread.
    }
  }
  return declared;
}

/** Several workers' declarations as one: a group/version more than one declared (each a part of it) is left out. */
export function mergeDeclared(parts: DeclaredGroupVersions[]): DeclaredGroupVersions {
  const merged: DeclaredGroupVersions = new Map();
  const split = new Set<string>();
  for (const part of parts) {
    for (const [groupVersion, entry] of part) {
      if (merged.has(groupVersion)) split.add(groupVersion);
      else merged.set(groupVersion, entry);
    }
  }
  for (const groupVersion of split) merged.delete(groupVersion);
  return merged;
}
