// The client asks for gzip on ordinary requests (as client-go's transport does) and decodes gzip bodies; a WATCH
// asks for none, since the API server streams watches uncompressed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { ApiError, type KubernetesObject, ResourceClient } from "@crdgen/runtime";
import { TransportError } from "@crdgen/runtime/client";
import { startFakeApi, writeInPieces, widgets } from "../support/fake-api-server.js";

const list = {
  apiVersion: "example.com/v1",
  kind: "WidgetList",
  metadata: { resourceVersion: "5" },
  items: Array.from({ length: 200 }, (_, i) => ({
    metadata: { name: `w${i}`, namespace: "ns1", creationTimestamp: "2026-12-03T00:00:00Z" },
    spec: { i },
  })),
};

test("get and list send Accept-Encoding: gzip and decode a gzip body, also when it arrives in small pieces", async () => {
  const api = await startFakeApi((rec, res) => {
    const body = rec.path.endsWith("/widgets") ? list : list.items[3];
    res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
    writeInPieces(res, gzipSync(JSON.stringify(body)), 50);
  });
  try {
    const client = new ResourceClient<KubernetesObject>(api.client, widgets);
    const got = await client.list("ns1");
    assert.deepEqual(
      got.items.map((o) => o.metadata?.name),
      list.items.map((o) => o.metadata.name),
    );
    assert.ok(got.items[0]!.metadata?.creationTimestamp instanceof Date);
    assert.equal(got.metadata?.resourceVersion, "5");
    assert.equal((await client.get("ns1", "w3")).metadata?.name, "w3");
    assert.deepEqual(
      api.requests.map((r) => r.headers["accept-encoding"]),
      ["gzip", "gzip"],
    );
  } finally {
    await api.close();
  }
});

test("an error answer in gzip is still an ApiError with the server's Status; a corrupt gzip body is a TransportError", async () => {
  const api = await startFakeApi((rec, res) => {
    res.writeHead(rec.path.endsWith("/gone") ? 404 : 200, {
      "Content-Type": "application/json",
      "Content-Encoding": "gzip",
    });
    if (rec.path.endsWith("/gone"))
      return void res.end(
        gzipSync(
          JSON.stringify({ kind: "Status", code: 404, reason: "NotFound", message: 'widgets "gone" not found' }),
        ),
      );
    res.end(
      Buffer.concat([gzipSync('{"kind":"WidgetList","items":[]}').subarray(0, 12), Buffer.from("not gzip at all")]),
    );
  });
  try {
    const client = new ResourceClient<KubernetesObject>(api.client, widgets);
    await assert.rejects(
      client.get("ns1", "gone"),
      (e: unknown) => e instanceof ApiError && e.status === 404 && e.reason === "NotFound",
    );
    await assert.rejects(client.list("ns1"), (e: unknown) => e instanceof TransportError);
  } finally {
    await api.close();
  }
});

test("a watch does not ask for gzip", async () => {
  const api = await startFakeApi((_rec, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(`${JSON.stringify({ type: "ADDED", object: list.items[0] })}\n`);
  });
  try {
    const events = [];
    for await (const e of new ResourceClient<KubernetesObject>(api.client, widgets).watch("ns1")) events.push(e);
    assert.equal(events.length, 1);
    assert.equal(api.requests[0]!.headers["accept-encoding"], undefined);
  } finally {
    await api.close();
  }
});
