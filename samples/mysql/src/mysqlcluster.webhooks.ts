// User-owned: crdgen created this file once and never overwrites it. The admission webhooks of MySQLCluster: the API
// server calls them on each create and update of a MySQLCluster, before it is stored.
//
// Order on the API server: mutating webhooks (default below), then the schema's defaults and validation with its CEL
// rules, then validating webhooks (validateCreate / validateUpdate below). So a downgrade sent as v1 is refused by the
// CRD's CEL rule on spec.version before validateUpdate runs; one sent as v1alpha1 (spec.image) has no such rule in
// that version's schema, and validateUpdate, called with the object converted to v1, refuses it.
import * as webhook from "@crdgen/runtime/webhook";
import { mySQLClusterResource, type MySQLCluster } from "../generated/example.com/v1/mysqlcluster.types.js";

/** The MySQL versions this operator is tested with, newest first: a MySQLCluster without spec.version gets the first. */
export const supportedVersions = ["8.4.3", "8.0.40", "5.7.44"] as const;

/** Defaulting: spec.version, when left out, is the newest supported version. */
export default function defaultMySQLCluster(obj: MySQLCluster): void {
  // The generated type says version is required: the schema requires it, but checks it only after this webhook.
  if (obj.spec?.version === undefined) obj.spec = { ...obj.spec, version: supportedVersions[0] };
}

export function validateCreate(obj: MySQLCluster): webhook.Warnings {
  return untestedVersion(obj);
}

/** Refuses an in-place major version downgrade (8.x -> 5.x: MySQL cannot read the newer data directory). */
export function validateUpdate(oldObj: MySQLCluster, obj: MySQLCluster): webhook.Warnings {
  const from = majorOf(oldObj.spec?.version);
  const to = majorOf(obj.spec?.version);
  if (from !== undefined && to !== undefined && to < from) {
    throw new webhook.Invalid(mySQLClusterResource, obj.metadata.name ?? "", [
      webhook.field.invalid(
        "spec.version",
        obj.spec?.version,
        `cannot move from major version ${from} to ${to} (in-place downgrade is unsupported)`,
      ),
    ]);
  }
  return untestedVersion(obj);
}

const majorOf = (version: string | undefined) => (version ? Number(version.split(".")[0]) : undefined);

/** A warning (kubectl prints it) for a version outside the supported list: allowed, but not tested. */
function untestedVersion(obj: MySQLCluster): webhook.Warnings {
  const version = obj.spec?.version;
  return version === undefined || (supportedVersions as readonly string[]).includes(version)
    ? []
    : [`spec.version ${version} is not one this operator is tested with (${supportedVersions.join(", ")})`];
}
