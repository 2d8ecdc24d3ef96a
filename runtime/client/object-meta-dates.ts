// Decodes ObjectMeta's timestamps into Date objects, so objects match the V1ObjectMeta type they are declared with.
// Every object the client returns passes through here, so it also shares the strings repeated across objects.
import { shareIdentityStrings } from "./string-pool.js";
import type { KubernetesList, KubernetesObject, WatchEvent } from "./types.js";

/**
 * JSON carries creationTimestamp, deletionTimestamp and managedFields[].time as RFC 3339 strings, while
 * client-node's V1ObjectMeta types them as Date. Converting them here keeps `obj.metadata.creationTimestamp.getTime()`
 * honest; JSON.stringify turns them back into RFC 3339 strings the API server accepts.
 */
export function reviveObjectMeta<T>(obj: T): T {
  const meta = (obj as KubernetesObject | undefined)?.metadata as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== "object") return obj;
  shareIdentityStrings(obj);
  for (const key of ["creationTimestamp", "deletionTimestamp"]) {
    if (typeof meta[key] === "string") meta[key] = new Date(meta[key]);
  }
  if (Array.isArray(meta["managedFields"])) {
    for (const entry of meta["managedFields"] as Array<Record<string, unknown>>) {
      if (typeof entry["time"] === "string") entry["time"] = new Date(entry["time"]);
    }
  }
  return obj;
}

export function reviveListMeta<L extends KubernetesList<KubernetesObject>>(list: L): L {
  if (Array.isArray(list.items)) list.items.forEach(reviveObjectMeta);
  return list;
}

export async function* reviveWatchEvents<T extends KubernetesObject>(
  events: AsyncIterable<WatchEvent<T>>,
): AsyncGenerator<WatchEvent<T>> {
  for await (const event of events) {
    if (event.type !== "ERROR") reviveObjectMeta(event.object);
    yield event;
  }
}
