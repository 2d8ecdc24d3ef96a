// The recorder's EventSeries and per-object rate limit, as client-go's events.k8s.io/v1 broadcaster
// (tools/events: event_broadcaster.go, eventseries_test.go, event_broadcaster_test.go) and its spam filter
// (tools/record/events_cache.go, events_cache_test.go), counted on the requests reaching a fake cluster.
import { test } from "node:test";
import assert from "node:assert/strict";
import { newEventRecorder, type KubeClient, type KubernetesObject } from "@crdgen/runtime";
import type { RequestOptions } from "@crdgen/runtime/client";
import { FakeCluster, FakeClock } from "@crdgen/runtime/testing";
import { quiet } from "../support/cache-fakes.js";

const MINUTE = 60_000;
const eventsResource = { group: "events.k8s.io", version: "v1", plural: "events", kind: "Event", namespaced: true };
type Event = KubernetesObject & { series?: { count: number; lastObservedTime: string }; action?: string };

/** A fake cluster whose client records each request's method. */
function setup() {
  const clock = new FakeClock(Date.UTC(2031, 0, 1));
  const cluster = new FakeCluster();
  const inner = cluster.kubeClient();
  const requests: string[] = [];
  const kube: KubeClient = Object.create(inner) as KubeClient;
  kube.request = <T>(opts: RequestOptions) => {
    requests.push(opts.method);
    return inner.request<T>(opts);
  };
  const recorder = newEventRecorder(kube, "widgets.example.com", quiet, { clock });
  const events = async () => (await cluster.client<Event>(eventsResource).list("ns")).items;
  return { clock, cluster, requests, recorder, events };
}

const widget = (name: string, resourceVersion = "1"): KubernetesObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name, namespace: "ns", uid: `uid-${name}`, resourceVersion },
});

test("1,000 identical events about one object: one Event, its series count written at 2 and when the series ends", async () => {
  const { clock, requests, recorder, events } = setup();
  for (let i = 0; i < 1_000; i++) {
    await recorder.event(widget("a"), "Warning", "Failed", `attempt ${i}`);
    clock.step(100);
  }
  assert.deepEqual(requests, ["POST", "PATCH"], "a create, then one series update");
  const [event] = await events();
  assert.equal((await events()).length, 1);
  assert.equal(event?.series?.count, 2);
  assert.equal(event["note" as keyof Event], "attempt 0", "the note is the first occurrence's");

  // client-go's finishSeries runs every 6 minutes and ends a series unseen for 6: the final count is written once.
  clock.setTime(Date.UTC(2031, 0, 1) + 12 * MINUTE);
  await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(requests, ["POST", "PATCH", "PATCH"]);
  assert.equal((await events())[0]?.series?.count, 1_000);
  // Ended: the next occurrence is a new Event.
  await recorder.event(widget("a"), "Warning", "Failed", "again");
  assert.deepEqual(requests, ["POST", "PATCH", "PATCH", "POST"]);
  assert.equal((await events()).length, 2);
});

test("eventseries_test: an isomorphic event updates the series; one with another action is a new Event", async () => {
  const { requests, recorder, events } = setup();
  await recorder.event(widget("a"), "Normal", "Test", "some verbose message: 1", { action: "started" });
  await recorder.event(widget("a", "2"), "Normal", "Test", "some verbose message: 1", { action: "started" });
  await recorder.event(widget("a"), "Normal", "Test", "some verbose message: 1", { action: "stopped" });
  assert.deepEqual(requests, ["POST", "PATCH", "POST"]);
  const byAction = new Map((await events()).map((e) => [e.action, e]));
  assert.equal(byAction.get("started")?.series?.count, 2, "a new resourceVersion of the object is the same object");
  assert.equal(byAction.get("stopped")?.series, undefined);
});

test("event_broadcaster_test: a series update whose Event is gone creates it, with its series", async () => {
  const { cluster, requests, recorder, events } = setup();
  await recorder.event(widget("a"), "Normal", "Synced", "ok");
  const [first] = await events();
  await cluster.client<Event>(eventsResource).delete("ns", first!.metadata!.name!);
  await recorder.event(widget("a"), "Normal", "Synced", "ok");
  assert.deepEqual(
    requests,
    ["POST", "DELETE", "PATCH", "POST"].filter((m) => m !== "DELETE"),
  );
  const [recreated] = await events();
  assert.equal(recreated?.metadata?.name, first?.metadata?.name);
  assert.equal(recreated?.series?.count, 2);
});

test("events_cache_test spam filter: 25 new Events per object, then 1 per 5 minutes; other objects are not starved", async () => {
  const { clock, requests, recorder, events } = setup();
  for (let i = 0; i < 1_000; i++) await recorder.event(widget("a"), "Warning", `Reason${i}`, "distinct");
  assert.equal(requests.length, 25, "client-go's burst of 25 per object");
  await recorder.event(widget("b"), "Warning", "Reason0", "another object");
  assert.equal(requests.length, 26, "object b has its own bucket");
  await recorder.event(widget("a"), "Normal", "Reason0", "another type");
  assert.equal(requests.length, 27, "the event type is part of the key, as in client-go's getSpamKey");

  clock.step(5 * MINUTE - 1);
  await recorder.event(widget("a"), "Warning", "Late1", "still limited");
  assert.equal(requests.length, 27);
  clock.step(1);
  await recorder.event(widget("a"), "Warning", "Late2", "one token refilled after 5 minutes");
  await recorder.event(widget("a"), "Warning", "Late3", "and only one");
  assert.equal(requests.length, 28);
  const notes = (await events()).map((e) => e["note" as keyof Event]);
  assert.ok(notes.includes("one token refilled after 5 minutes") && !notes.includes("and only one"));
});

test("an ongoing series writes its count every 30 minutes", async () => {
  const { clock, requests, recorder, events } = setup();
  for (let minute = 0; minute <= 40; minute++) {
    await recorder.event(widget("a"), "Normal", "Polled", "still waiting");
    clock.step(MINUTE);
    await new Promise((resolve) => setImmediate(resolve));
  }
  // POST, the count-2 PATCH, and the refresh 30 minutes after the first (30 seen by then); never paused 6 minutes.
  assert.deepEqual(requests, ["POST", "PATCH", "PATCH"]);
  assert.equal((await events())[0]?.series?.count, 30);
});
