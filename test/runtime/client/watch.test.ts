// KubeClient.watch / ResourceClient.watch against a fake API server: NDJSON framing, UTF-8, abort, close, errors, idle
// timeout.
import { test } from "node:test";
import assert from "node:assert/strict";
import type http from "node:http";
import { ApiError, ResourceClient, type KubernetesObject } from "@crdgen/runtime";
import { TransportError, isGone, type WatchEvent } from "@crdgen/runtime/client";
import { LineSplitter } from "#runtime/client/ndjson.js";
import { startFakeApi, json, type FakeApi, type Handler, widgets } from "../support/fake-api-server.js";

interface Widget extends KubernetesObject {
  spec?: { note?: string };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// Notes mix 1-, 2-, 3- and 4-byte UTF-8 characters so that byte splits land inside characters.
const sample: WatchEvent<Widget>[] = [
  {
    type: "ADDED",
    object: { kind: "Widget", metadata: { name: "a", resourceVersion: "1" }, spec: { note: "grüße €5 😀" } },
  },
  {
    type: "MODIFIED",
    object: { kind: "Widget", metadata: { name: "a", resourceVersion: "2" }, spec: { note: "日本語テキスト" } },
  },
  { type: "BOOKMARK", object: { kind: "Widget", metadata: { resourceVersion: "3" } } },
  {
    type: "DELETED",
    object: { kind: "Widget", metadata: { name: "a", resourceVersion: "4" }, spec: { note: "😀😀" } },
  },
];
const sampleBytes = Buffer.from(sample.map((e) => JSON.stringify(e) + "\n").join(""), "utf-8");

async function withApi(
  handler: Handler,
  fn: (api: FakeApi, rc: ResourceClient<Widget>) => Promise<void>,
): Promise<void> {
  const api = await startFakeApi(handler);
  try {
    await fn(api, new ResourceClient<Widget>(api.client, widgets));
  } finally {
    await api.close();
  }
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

test("a watch stream written one byte per chunk (splitting multi-byte UTF-8 characters) yields the right events", () =>
  withApi(
    async (_res, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.flushHeaders();
      for (let i = 0; i < sampleBytes.length; i++) {
        res.write(sampleBytes.subarray(i, i + 1));
        await sleep(i % 16 === 0 ? 1 : 0);
      }
      res.end();
    },
    async (_api, rc) => {
      assert.deepEqual(await collect(rc.watch("ns1", { resourceVersion: "0" })), sample);
    },
  ));

test("LineSplitter yields the same lines for every two-way split of the bytes", () => {
  const expected = sample.map((e) => JSON.stringify(e));
  for (let i = 0; i <= sampleBytes.length; i++) {
    for (const j of [i, Math.min(sampleBytes.length, i + 1), Math.min(sampleBytes.length, i + 3)]) {
      const s = new LineSplitter();
      const lines = [
        ...s.push(sampleBytes.subarray(0, i)),
        ...s.push(sampleBytes.subarray(i, j)),
        ...s.push(sampleBytes.subarray(j)),
        ...s.end(),
      ];
      assert.deepEqual(lines, expected, `split at ${i}/${j}`);
    }
  }
});

test("a last event without a trailing newline is still yielded at a clean close", () =>
  withApi(
    (_r, res) => {
      res.writeHead(200);
      res.end(JSON.stringify(sample[0]) + "\n\n" + JSON.stringify(sample[1]));
    },
    async (_api, rc) => {
      assert.deepEqual(await collect(rc.watch("ns1")), [sample[0], sample[1]]);
    },
  ));

test("a clean server close ends the iteration without an error", () =>
  withApi(
    (_r, res) => {
      res.writeHead(200);
      res.write(JSON.stringify(sample[0]) + "\n");
      setTimeout(() => res.end(), 30);
    },
    async (_api, rc) => {
      assert.deepEqual(await collect(rc.watch("ns1")), [sample[0]]);
    },
  ));

test("aborting the signal ends a running watch cleanly and closes the connection", () =>
  withApi(
    (_r, res) => {
      res.writeHead(200);
      res.write(JSON.stringify(sample[0]) + "\n"); // then stays open forever
    },
    async (api, rc) => {
      const ac = new AbortController();
      const seen: WatchEvent<Widget>[] = [];
      const done = (async () => {
        for await (const e of rc.watch("ns1", {}, ac.signal)) {
          seen.push(e);
          setTimeout(() => ac.abort(), 20);
        }
      })();
      await done; // resolves, does not reject
      assert.deepEqual(seen, [sample[0]]);
      for (let i = 0; i < 100 && api.closedSockets === 0; i++) await sleep(5);
      assert.equal(api.closedSockets, 1);
    },
  ));

test("a signal aborted before the watch starts yields nothing and sends no request", () =>
  withApi(
    (_r, res) => json(res, 200, {}),
    async (api, rc) => {
      const ac = new AbortController();
      ac.abort();
      assert.deepEqual(await collect(rc.watch("ns1", {}, ac.signal)), []);
      assert.equal(api.requests.length, 0);
    },
  ));

test("breaking out of a watch loop closes the connection", () =>
  withApi(
    (_r, res) => {
      res.writeHead(200);
      res.write(JSON.stringify(sample[0]) + "\n");
    },
    async (api, rc) => {
      for await (const _ of rc.watch("ns1")) break;
      for (let i = 0; i < 100 && api.closedSockets === 0; i++) await sleep(5);
      assert.equal(api.closedSockets, 1);
    },
  ));

test("a non-2xx answer at watch start throws ApiError", () =>
  withApi(
    (_r, res) =>
      json(res, 403, {
        kind: "Status",
        status: "Failure",
        code: 403,
        reason: "Forbidden",
        message: "widgets is forbidden",
      }),
    async (_api, rc) => {
      await assert.rejects(
        collect(rc.watch(undefined)),
        (e: unknown) =>
          e instanceof ApiError && e.status === 403 && e.reason === "Forbidden" && e.message === "widgets is forbidden",
      );
    },
  ));

test("an ERROR event is yielded with its Status and the stream then ends", () =>
  withApi(
    (_r, res) => {
      res.writeHead(200);
      res.end(
        JSON.stringify({
          type: "ERROR",
          object: {
            kind: "Status",
            apiVersion: "v1",
            status: "Failure",
            code: 410,
            reason: "Expired",
            message: "too old resource version: 1 (9)",
          },
        }) + "\n",
      );
    },
    async (_api, rc) => {
      const events = await collect(rc.watch("ns1", { resourceVersion: "1" }));
      assert.equal(events.length, 1);
      assert.equal(events[0]?.type, "ERROR");
      assert.ok(isGone(events[0].object));
    },
  ));

test("a malformed line throws TransportError MalformedResponse instead of being skipped", () =>
  withApi(
    (_r, res) => {
      res.writeHead(200);
      res.end(JSON.stringify(sample[0]) + "\n{not json\n");
    },
    async (_api, rc) => {
      const seen: unknown[] = [];
      await assert.rejects(
        (async () => {
          for await (const e of rc.watch("ns1")) seen.push(e);
        })(),
        (e: unknown) => e instanceof TransportError && e.code === "MalformedResponse",
      );
      assert.deepEqual(seen, [sample[0]]);
    },
  ));

test("a connection cut mid-stream throws TransportError", () =>
  withApi(
    (_r, res, req: http.IncomingMessage) => {
      res.writeHead(200);
      res.write(JSON.stringify(sample[0]) + "\n" + '{"type":"ADD');
      setTimeout(() => req.socket.destroy(), 20);
    },
    async (_api, rc) => {
      await assert.rejects(collect(rc.watch("ns1")), (e: unknown) => e instanceof TransportError);
    },
  ));

test("a silent watch fails with TransportError IdleTimeout after idleTimeoutMs", () =>
  withApi(
    (_r, res) => {
      res.writeHead(200);
      res.flushHeaders();
    },
    async (_api, rc) => {
      const t0 = Date.now();
      await assert.rejects(
        collect(rc.watch("ns1", { idleTimeoutMs: 80 })),
        (e: unknown) => e instanceof TransportError && e.code === "IdleTimeout",
      );
      assert.ok(Date.now() - t0 < 2000);
    },
  ));

test("the idle timeout is reset by data and paused while the consumer is busy (not a whole-request timeout)", () =>
  withApi(
    async (_r, res) => {
      res.writeHead(200);
      for (let i = 0; i < 6; i++) {
        res.write(JSON.stringify({ type: "BOOKMARK", object: { metadata: { resourceVersion: String(i) } } }) + "\n");
        await sleep(40);
      }
      res.end();
    },
    async (_api, rc) => {
      let n = 0;
      for await (const _ of rc.watch("ns1", { idleTimeoutMs: 100 })) {
        n += 1;
        if (n === 1) await sleep(250); // a slow consumer must not count as server silence
      }
      assert.equal(n, 6);
    },
  ));
