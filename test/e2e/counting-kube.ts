// The API server as one sharding member sees it, with the bytes of its primary LIST/WATCH counted: the sharding e2e
// and the sharding benchmark compare these per member.
import type { KubeClient, KubernetesObject } from "@crdgen/runtime/client";

/** How a LIST's bytes are added to the counter: by default one JSON.stringify of the whole list. */
export type ListCounter = (list: unknown, counter: { bytes: number }) => void;

const countWholeList: ListCounter = (list, counter) => {
  counter.bytes += JSON.stringify(list).length;
};

/** The API server as the member sees it, counting the JSON bytes of LISTs and watch events of one kind (by plural). */
export function countingKube(
  inner: KubeClient,
  counter: { bytes: number },
  plural = "mysqlclusters",
  countList: ListCounter = countWholeList,
): KubeClient {
  const primary = (path: string) => path.endsWith(`/${plural}`);
  return {
    get defaultNamespace() {
      return inner.defaultNamespace;
    },
    close: () => inner.close(),
    async request<T>(opts: Parameters<KubeClient["request"]>[0]): Promise<T> {
      const result = await inner.request<T>(opts);
      if (opts.method === "GET" && primary(opts.path)) countList(result, counter);
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
