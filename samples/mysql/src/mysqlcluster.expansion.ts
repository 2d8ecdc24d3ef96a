// User-owned: crdgen created this file once and never overwrites it. Your own helpers on top of the generated
// MySQLCluster client (client-gen's "expansion" pattern): import expandMySQLClusterClient where you need them.
import type { MySQLClusterClient } from "../generated/example.com/v1/mysqlcluster.client.js";

export function expandMySQLClusterClient(client: MySQLClusterClient) {
  return Object.assign(client, {
    // Add methods here, e.g. a read-modify-write of the fields your operator owns.
  });
}
