// User-owned: crdgen created this file once and never overwrites it. Your MySQLCluster operator logic lives here.
import type { ReconcileResult } from "@crdgen/runtime";
import type { MySQLCluster, MySQLClusterStatus } from "../generated/example.com/v1/mysqlcluster.types.js";
import type { MySQLClusterContext } from "../generated/example.com/v1/mysqlcluster.controller.js";

/**
 * Makes the cluster match obj.spec. Called with the newest cached MySQLCluster whenever it changes (level-triggered:
 * read what you need from ctx.lister and the cluster, never from the event). Throw to retry with backoff;
 * return { requeueAfter: ms } to run again later.
 *
 * First version: it acknowledges each generation in status. The MySQL operator issue adds the StatefulSet,
 * Services, ConfigMap and Secret, and the Ready condition.
 */
export async function reconcile(ctx: MySQLClusterContext, obj: MySQLCluster): Promise<ReconcileResult> {
  const desired: MySQLClusterStatus = {
    ...obj.status,
    observedGeneration: obj.metadata.generation ?? 0,
    phase: obj.status?.phase ?? "Pending",
  };
  // Write status only when it differs, so a steady-state reconcile issues no request.
  if (desired.observedGeneration !== obj.status?.observedGeneration || desired.phase !== obj.status?.phase) {
    await ctx.client.namespace(ctx.namespace!).patchStatus(ctx.name, { type: "merge", body: { status: desired } });
    ctx.log.info("status updated", { observedGeneration: desired.observedGeneration, phase: desired.phase });
    await ctx.recorder.event(obj, "Normal", "Observed", `generation ${desired.observedGeneration} observed (replicas ${obj.spec?.replicas ?? 1}, version ${obj.spec?.version})`);
  }
  return {};
}
