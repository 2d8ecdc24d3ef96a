// Hostile response sizes against small configured limits: a LIST page, a body announced or sent over maxResponseBytes,
// gzip bodies that inflate without end (or never inflate at all), and watch lines over maxWatchEventBytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import type http from "node:http";
import { gzipSync } from "node:zlib";
import { type KubernetesObject, ResourceClient } from "@crdgen/runtime";
import { HttpKubeClient, type KubeClientOptions, TransportError } from "@crdgen/runtime/client";
import {
  type FakeApi,
  type Handler,
  makeKubeConfig,
  startFakeApi,
  widgets,
  writeInPieces,
} from "../support/fake-api-server.js";

// A hostile server that keeps sending must be stopped by the limit; if it were not, these tests would hang, so they
// fail after this long instead (any passing run takes well under a second of it).
const HANG = { timeout: 60_000 };

async function withApi(
  handler: Handler,
  client: KubeClientOptions,
  fn: (api: FakeApi, rc: ResourceClient<KubernetesObject>) => Promise<void>,
): Promise<void> {
  const api = await startFakeApi(handler, { client });
  try {
    await fn(api, new ResourceClient<KubernetesObject>(api.client, widgets));
  } finally {
    await api.close();
  }
}

function widgetList(n: number): object {
  return {
    apiVersion: "example.com/v1",
    kind: "WidgetList",
    metadata: { resourceVersion: "7" },
    items: Array.from({ length: n }, (_, i) => ({ metadata: { name: `w${i}`, namespace: "ns1" }, spec: { i } })),
  };
}

function tooLarge(pattern: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof TransportError, `a TransportError, got ${String(e)}`);
    assert.equal(e.code, "ResponseTooLarge");
    assert.match(e.message, pattern);
    return true;
  };
}

/** Waits until the server saw `n` connections close (the client dropped them). */
async function closed(api: FakeApi, n = 1): Promise<void> {
  for (let i = 0; i < 400 && api.closedSockets < n; i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(api.closedSockets >= n, `the client closed the connection (${api.closedSockets} closed)`);
}

function drainOrClose(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Writes `piece` until the connection goes away, respecting backpressure; resolves with the pieces written. */
async function writeForever(res: http.ServerResponse, piece: Buffer): Promise<number> {
  let written = 0;
  while (!res.destroyed && !res.writableEnded) {
    written++;
    if (!res.write(piece)) await drainOrClose(res);
  }
  return written;
}

test("a LIST page over maxResponseBytes fails with ResponseTooLarge naming the limit; a page under it is read", () =>
  withApi(
    (rec, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      const n = rec.query.includes("limit=2") ? 2 : 500; // about 30 kB: over the 8 KiB limit
      writeInPieces(res, Buffer.from(JSON.stringify(widgetList(n))), 1024);
    },
    { maxResponseBytes: 8192 },
    async (api, rc) => {
      assert.deepEqual(
        (await rc.list("ns1", { limit: 2 })).items.map((o) => o.metadata?.name),
        ["w0", "w1"],
      );
      await assert.rejects(rc.list("ns1"), tooLarge(/response body is larger than 8192 bytes \(maxResponseBytes\)/));
      await closed(api);
    },
  ));

test("a body whose Content-Length is over maxResponseBytes fails at once, without waiting for it", HANG, () =>
  withApi(
    (_rec, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(1024 ** 3) });
      res.write('{"kind":"Widget"'); // and nothing more, ever
    },
    { maxResponseBytes: 8192 },
    async (_api, rc) => {
      await assert.rejects(rc.get("ns1", "w"), tooLarge(/response body of 1073741824 bytes \(Content-Length\)/));
    },
  ),
);

test("a single object over maxResponseBytes fails with ResponseTooLarge", () =>
  withApi(
    (_rec, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      writeInPieces(res, Buffer.from(JSON.stringify({ kind: "Widget", spec: { blob: "x".repeat(20_000) } })), 4096);
    },
    { maxResponseBytes: 8192 },
    async (_api, rc) => {
      await assert.rejects(rc.get("ns1", "w"), tooLarge(/larger than 8192 bytes/));
    },
  ));

// One gzip member of 16 MiB of spaces is about 16 kB; members concatenated are one valid gzip stream (RFC 1952), and
// whitespace inside a JSON list is legal, so the body is a list that never ends and inflates a thousandfold.
const bomb = gzipSync(Buffer.alloc(16 * 1024 ** 2, " "), { level: 9 });

test("a gzip bomb is stopped when the decoded body crosses maxResponseBytes, not inflated to its end", HANG, () =>
  withApi(
    (_rec, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
      res.write(gzipSync('{"kind":"WidgetList","items":['));
      void writeForever(res, bomb);
    },
    { maxResponseBytes: 1024 ** 2 },
    async (api, rc) => {
      assert.ok(bomb.length < 64 * 1024, `the bomb is small on the wire (${bomb.length} bytes)`);
      await assert.rejects(rc.list("ns1"), tooLarge(/response body once gzip-decoded is larger than 1048576 bytes/));
      await assert.rejects(rc.get("ns1", "w"), tooLarge(/once gzip-decoded is larger than 1048576 bytes/));
      await closed(api, 2);
    },
  ),
);

// A deflate stored block may be empty: 5 bytes that inflate to nothing. A gzip body made of them grows on the wire
// while it decodes to nothing, so only the bytes received can bound it.
const gzipHeader = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
const emptyStoredBlock = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

test("a gzip body that never inflates is stopped when the bytes received cross maxResponseBytes", HANG, () =>
  withApi(
    (_rec, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
      res.write(gzipHeader);
      void writeForever(res, Buffer.concat(Array.from({ length: 1000 }, () => emptyStoredBlock)));
    },
    { maxResponseBytes: 256 * 1024 },
    async (api, rc) => {
      await assert.rejects(rc.list("ns1"), tooLarge(/gzip-encoded response body is larger than 262144 bytes/));
      await closed(api);
    },
  ),
);

const event = (name: string): string =>
  JSON.stringify({ type: "ADDED", object: { kind: "Widget", metadata: { name, resourceVersion: "1" } } }) + "\n";

test("a watch line over maxWatchEventBytes ends the watch with client-go's decode error, after the events before it", () =>
  withApi(
    (_rec, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      const huge = JSON.stringify({ type: "ADDED", object: { kind: "Widget", spec: { blob: "x".repeat(20_000) } } });
      writeInPieces(res, Buffer.from(event("a") + huge + "\n" + event("b")), 1000);
    },
    { maxWatchEventBytes: 8192 },
    async (api, rc) => {
      const seen: string[] = [];
      await assert.rejects(
        (async () => {
          for await (const e of rc.watch("ns1"))
            seen.push(e.type === "ERROR" ? "ERROR" : (e.object.metadata?.name ?? ""));
        })(),
        tooLarge(
          /unable to decode an event from the watch stream: object to decode was longer than maximum allowed size \(8192 bytes, maxWatchEventBytes\)/,
        ),
      );
      assert.deepEqual(seen, ["a"]);
      await closed(api);
    },
  ));

test(
  "a watch line that never ends fails once it crosses maxWatchEventBytes, not when (never) its newline comes",
  HANG,
  () =>
    withApi(
      (_rec, res) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.write(event("a") + '{"type":"ADDED","object":{"kind":"Widget","spec":{"blob":"');
        void writeForever(res, Buffer.alloc(4096, "x"));
      },
      { maxWatchEventBytes: 64 * 1024 },
      async (api, rc) => {
        const seen: string[] = [];
        await assert.rejects(
          (async () => {
            for await (const e of rc.watch("ns1"))
              seen.push(e.type === "ERROR" ? "ERROR" : (e.object.metadata?.name ?? ""));
          })(),
          tooLarge(/longer than maximum allowed size \(65536 bytes/),
        );
        assert.deepEqual(seen, ["a"]);
        await closed(api);
      },
    ),
);

test("size limits must be positive numbers of bytes", () => {
  const kc = makeKubeConfig("http://127.0.0.1:9");
  for (const bad of [0, -1, Number.NaN]) {
    assert.throws(() => HttpKubeClient.fromKubeConfig(kc, { maxResponseBytes: bad }), /maxResponseBytes must be/);
    assert.throws(() => HttpKubeClient.fromKubeConfig(kc, { maxWatchEventBytes: bad }), /maxWatchEventBytes must be/);
  }
});
