// The API server as one member of the sharding benchmark sees it, counting the JSON bytes of its primary LIST/WATCH
// as test/e2e/counting-kube.ts does, but a LIST's bytes are counted after the list was handed on, a thousand items at
// a time with a turn of the event loop between: one JSON.stringify of a 50,000-object list holds a member's event
// loop for a third of a second or more (its Lease renewals with it), which the operator itself never does.
import type { KubeClient } from "@crdgen/runtime/client";
import { countingKube as countingKubeWith } from "../test/e2e/counting-kube.js";

const CHUNK = 1000;

/** JSON.stringify(list).length, computed in chunks: the skeleton, each item, and the commas between items. */
async function countList(list: { items?: unknown }, counter: { bytes: number }): Promise<void> {
  if (!Array.isArray(list.items)) {
    counter.bytes += JSON.stringify(list).length;
    return;
  }
  const items: unknown[] = list.items;
  let bytes = JSON.stringify({ ...list, items: [] }).length + Math.max(0, items.length - 1);
  for (let i = 0; i < items.length; i++) {
    bytes += JSON.stringify(items[i]).length;
    if (i % CHUNK === CHUNK - 1) await new Promise((resolve) => setImmediate(resolve));
  }
  counter.bytes += bytes;
}

/** countingKube of the e2e tests, with each LIST counted in chunks after it was handed on. */
export function countingKube(inner: KubeClient, counter: { bytes: number }, plural = "mysqlclusters"): KubeClient {
  return countingKubeWith(inner, counter, plural, (list, c) => void countList(list as { items?: unknown }, c));
}
