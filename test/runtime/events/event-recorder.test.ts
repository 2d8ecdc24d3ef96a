// The event recorder's times come from the clock it is given: eventTime and the timestamp in the Event's name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { newEventRecorder, type KubernetesObject } from "@crdgen/runtime";
import { FakeCluster, FakeClock } from "@crdgen/runtime/testing";
import { quiet } from "../support/cache-fakes.js";

test("eventTime and the name's nanosecond timestamp are the injected clock's time", async () => {
  const at = Date.UTC(2031, 4, 6, 7, 8, 9, 123);
  const clock = new FakeClock(at);
  const cluster = new FakeCluster();
  const recorder = newEventRecorder(cluster.kubeClient(), "widgets.example.com", quiet, { clock });
  const obj = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "a", namespace: "ns", uid: "u-1" } };
  await recorder.event(obj, "Normal", "Observed", "ok");
  const events = cluster.client<KubernetesObject & Record<string, unknown>>({
    group: "events.k8s.io",
    version: "v1",
    plural: "events",
    kind: "Event",
    namespaced: true,
  });
  const [e] = (await events.list("ns")).items;
  assert.ok(e);
  assert.equal(e["eventTime"], "2031-05-06T07:08:09.123000Z");
  const nanos = BigInt(`0x${(e.metadata?.name ?? "").replace(/^a\./, "")}`);
  assert.equal(nanos / 1_000_000n, BigInt(at), "the name's milliseconds are the clock's");
});
