// User-owned: crdgen created this file once and never overwrites it. Conversions of MySQLCluster between its versions:
// the storage version, v1, is the hub; v1alpha1 converts to it and back. The API server calls the conversion webhook
// whenever it reads or writes a version other than the one stored.
//
// The runtime sets apiVersion, kind and metadata, and keeps the v1 fields v1alpha1 cannot hold (storage, backup,
// service, ...) in the example.com/conversion-data annotation, so a round trip through v1alpha1 loses nothing.
import type {
  MySQLCluster,
  MySQLClusterSpec,
  MySQLClusterStatus,
} from "../generated/example.com/v1/mysqlcluster.types.js";
import type { MySQLCluster as MySQLClusterV1alpha1 } from "../generated/example.com/v1alpha1/mysqlcluster.types.js";

/** v1alpha1 -> v1: size is replicas; image is <imageRepository>:<version>. */
export function convertV1alpha1ToV1(obj: MySQLClusterV1alpha1): MySQLCluster {
  const { size, image } = obj.spec ?? {};
  // The last colon: a registry host may carry a port (registry:5000/mysql:8.0.36).
  const colon = image?.lastIndexOf(":") ?? -1;
  const spec = {
    ...(size !== undefined ? { replicas: size } : {}),
    ...(image !== undefined && colon > 0
      ? { imageRepository: image.slice(0, colon), version: image.slice(colon + 1) }
      : {}),
    // Without an image there is no version yet: the defaulting webhook fills it in before the schema requires it.
  } as MySQLClusterSpec;
  return {
    apiVersion: "example.com/v1",
    kind: "MySQLCluster",
    metadata: obj.metadata,
    spec,
    ...(obj.status ? { status: obj.status as MySQLClusterStatus } : {}),
  };
}

/** v1 -> v1alpha1: replicas is size; imageRepository and version make the image. */
export function convertV1ToV1alpha1(obj: MySQLCluster): MySQLClusterV1alpha1 {
  const spec = obj.spec;
  const status = obj.status;
  return {
    apiVersion: "example.com/v1alpha1",
    kind: "MySQLCluster",
    metadata: obj.metadata,
    ...(spec
      ? {
          spec: {
            ...(spec.replicas !== undefined ? { size: spec.replicas } : {}),
            image: `${spec.imageRepository ?? "mysql"}:${spec.version}`,
          },
        }
      : {}),
    ...(status
      ? {
          status: {
            ...(status.readyReplicas !== undefined ? { readyReplicas: status.readyReplicas } : {}),
            ...(status.phase !== undefined ? { phase: status.phase } : {}),
          },
        }
      : {}),
  };
}
