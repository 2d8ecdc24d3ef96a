// What planning produces (a file with its content and owner) and what it is asked for.
import path from "node:path";
import type { SchemaWarning } from "../model/normalize-schema.js";
import type { versionValidationCode } from "../validation/version-validation.js";
import type { ExpectedHooks } from "../hooks/hook-signature.js";
import type { RenderTemplate } from "./templates.js";
import type { DeclaredGroupVersions } from "./declare-types.js";
import { moduleSpecifier } from "./names.js";
import type { CrdModel, VersionModel } from "../model/resource-model.js";
import type { KindData, Spoke } from "./template-data.js";

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
  /** Where each kind's example hooks test and e2e test are scaffolded (user-owned); only with hooksDir. */
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

/** How a file in `fromDir` imports a planned module (its path without extension): "./x.js", "../v1/x.js". */
export const specifierFrom =
  (fromDir: string) =>
  (file: string): string =>
    moduleSpecifier(fromDir, file, (from, to) => path.relative(from, to));

/** The version a kind's controller reconciles, with what its user files and the registries refer to. */
export interface PlannedController {
  crd: CrdModel;
  version: VersionModel;
  data: KindData;
  /** With webhooks: the versions converting to and from the controller's (the hub); empty for a single version. */
  spokes: Spoke[];
  /** A module of this kind's version, without extension: modulePath("client") -> <dir>/<kind>.client. */
  modulePath: (artifact: string) => string;
  /** <out>/<group>/<kind>, without extension: the kind's modules at this version, under version-free names. */
  kindModulePath: string;
}
