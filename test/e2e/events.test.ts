// The event recorder against a real kube-apiserver: 1,000 identical events are one events.k8s.io/v1 Event whose
// EventSeries the server accepts, counted by the client's own rest_client_requests_total.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { newEventRecorder, type KubeClient, type KubernetesObject } from "@crdgen/runtime";
import { registerRequestMetrics } from "@crdgen/runtime/client";
import { startControlPlane, type ControlPlane } from "@crdgen/runtime/envtest";
import { Registry, restClientMetrics } from "@crdgen/runtime/metrics";
import { FakeClock } from "@crdgen/runtime/testing";
import { quiet } from "../runtime/support/cache-fakes.js";

let plane: ControlPlane | undefined;
let kube: KubeClient;

before(async () => {
  plane = await startControlPlane();
  kube = plane.kubeClient();
});

after(async () => {
  (kube as KubeClient | undefined)?.close();
  await plane?.stop();
});

interface Event extends KubernetesObject {
  series?: { count: number; lastObservedTime: string };
  note?: string;
}

/** rest_client_requests_total by method, for 2xx answers. */
async function requestsByMethod(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric("rest_client_requests_total")!.get();
  const out: Record<string, number> = {};
  for (const v of metric.values)
    if (String(v.labels["code"]).startsWith("2")) out[String(v.labels["method"])] = v.value;
  return out;
}

test("1,000 identical events about a ConfigMap: a POST and a PATCH, series.count 2, then 1,000 when the series ends", async () => {
  const registry = new Registry();
  registerRequestMetrics(restClientMetrics(registry));
  const start = Date.now();
  const clock = new FakeClock(start);
  const recorder = newEventRecorder(kube, "widgets.example.com", quiet, { clock });
  const object = await kube.request<KubernetesObject>({
    method: "POST",
    path: "/api/v1/namespaces/default/configmaps",
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "events-e2e" } },
  });
  const before = await requestsByMethod(registry);
  for (let i = 0; i < 1_000; i++) {
    await recorder.event(object, "Warning", "Failed", `attempt ${i}`);
    clock.step(10);
  }
  const sent = await requestsByMethod(registry);
  assert.equal((sent["POST"] ?? 0) - (before["POST"] ?? 0), 1, "one create");
  assert.equal((sent["PATCH"] ?? 0) - (before["PATCH"] ?? 0), 1, "one series update");
  const list = async () =>
    (
      await kube.request<{ items: Event[] }>({
        method: "GET",
        path: "/apis/events.k8s.io/v1/namespaces/default/events",
        query: { fieldSelector: "regarding.name=events-e2e" },
      })
    ).items;
  const [event, ...others] = await list();
  assert.equal(others.length, 0);
  assert.equal(event?.series?.count, 2);
  assert.equal(event.note, "attempt 0");

  clock.setTime(start + 12 * 60_000); // client-go's finishSeries pass after the series has been quiet 6 minutes
  for (let i = 0; i < 50 && (await list())[0]?.series?.count !== 1_000; i++)
    await new Promise((r) => setTimeout(r, 20));
  assert.equal((await list())[0]?.series?.count, 1_000, "the final count reached the server");
});
