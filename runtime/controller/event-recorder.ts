// Records core/v1 Events about an object, as client-go's EventRecorder does; best effort, never fails a reconcile.
import type { KubeClient } from "../client/kube-client.js";
import type { KubernetesObject } from "../client/types.js";
import type { Logger } from "./logger.js";

export interface EventRecorder {
  event(obj: KubernetesObject, type: "Normal" | "Warning", reason: string, message: string): Promise<void>;
}

export function newEventRecorder(kube: KubeClient, component: string, log: Logger): EventRecorder {
  return {
    async event(obj, type, reason, message) {
      const meta = obj.metadata ?? {};
      // Events of cluster-scoped objects live in "default", as kubectl and client-go put them.
      const namespace = meta.namespace ?? "default";
      const now = new Date().toISOString();
      const body = {
        apiVersion: "v1",
        kind: "Event",
        metadata: { generateName: `${meta.name ?? "object"}.`, namespace },
        involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion },
        type,
        reason,
        message,
        source: { component },
        reportingComponent: component,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      };
      try {
        await kube.request({ method: "POST", path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, body });
      } catch (error) {
        log.warn("could not record event", { reason, error });
      }
    },
  };
}
