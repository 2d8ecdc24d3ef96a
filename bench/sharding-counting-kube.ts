// The API server as one member of the sharding benchmark sees it, counting the JSON bytes of its primary LIST/WATCH
// as test/e2e/counting-kube.ts does, but a LIST's bytes are counted after the list was handed on, a thousand items at
// a time with a turn of the event loop between: one JSON.stringify of a 50,000-object list holds a member's event
// loop for a third of a second or more (its Lease renewals with it), which the operator itself never does.
import type { KubeClient, KubernetesObject } from "@crdgen/runtime/client";

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

/** The API server as the member sees it, counting the JSON bytes of LISTs and watch events of one kind (by plural). */
export function countingKube(inner: KubeClient, counter: { bytes: number }, plural = "mysqlclusters"): KubeClient {
  const primary = (path: string) => path.endsWith(`/${plural}`);
  return {
    get defaultNamespace() {
      return inner.defaultNamespace;
    },
    close: () => inner.close(),
    async request<T>(opts: Parameters<KubeClient["request"]>[0]): Promise<T> {
      const result = await inner.request<T>(opts);
      if (opts.method === "GET" && primary(opts.path)) void countList(result as { items?: unknown }, counter);
      return result;
    },
    watch<T extends KubernetesObject>(opts: Parameters<KubeClient["watch"]>[0]) {
      const events = inner.watch<T>(opts);
      if (!primary(opts.path)) return events;
      return (async function* () {
        for await (const event of events) {
          counter.bytes += JSON.stringify(event).length;
          yield event;
        }
      })();
    },
  };
}
