// ListDecoder: a LIST body cut into chunks anywhere decodes to exactly what JSON.parse of the whole body gives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, type KubernetesObject, ResourceClient } from "@crdgen/runtime";
import { TransportError } from "@crdgen/runtime/client";
import { ListDecoder } from "#runtime/client/list-decoder.js";
import { json, startFakeApi, writeInPieces, widgets } from "../support/fake-api-server.js";

const tricky = {
  apiVersion: "example.com/v1",
  kind: "ThingList",
  metadata: { resourceVersion: "42", continue: "", note: "items: [ { not an array } ]" },
  items: [
    {
      apiVersion: "example.com/v1",
      kind: "Thing",
      metadata: { name: "a", namespace: "ns", annotations: { q: 'say "hi" \\ then ] } , [ {', items: "[1,2]" } },
      spec: { items: [1, [2, [3]], { items: [] }], emoji: "🦭 ünïcödé 中文", empty: "", esc: '\\\\"\\n\\u00e9' },
    },
    {
      apiVersion: "example.com/v1",
      kind: "Thing",
      metadata: { name: "b" },
      spec: { n: -1.5e3, t: true, f: false, z: null },
    },
  ],
};

/** Bodies the API server (or a proxy) could send, including pretty-printed ones and metadata after items. */
const bodies: Array<[string, string]> = [
  ["compact, items in the middle", JSON.stringify(tricky)],
  ["pretty-printed", JSON.stringify(tricky, null, 2)],
  [
    "metadata after items",
    JSON.stringify({ items: tricky.items, metadata: tricky.metadata, kind: "ThingList", apiVersion: "example.com/v1" }),
  ],
  [
    "items first, with spaces and tabs",
    `{ "items" :\t[ ${tricky.items.map((i) => JSON.stringify(i)).join(" ,\n ")} ] , "kind":"ThingList" }`,
  ],
  ["empty items", JSON.stringify({ apiVersion: "v1", items: [], kind: "List", metadata: { resourceVersion: "1" } })],
  [
    "scalar and array items",
    JSON.stringify({ items: [1, "two", null, true, false, -3.25, [4, [5]], { six: 6 }, "]", "\\"], kind: "List" }),
  ],
  [
    'a key named items deeper down and a value "items"',
    JSON.stringify({ kind: "items", metadata: { items: [9] }, items: [{ items: [{ items: 1 }] }] }),
  ],
  [
    "another top-level array before items",
    JSON.stringify({ kind: "List", warnings: [{ code: 1 }, "w"], items: [{ a: 1 }], tail: [[]] }),
  ],
  [
    "no items (a Status)",
    JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message: 'x [ { " ]' }),
  ],
  ["items null", JSON.stringify({ kind: "List", items: null })],
];

function decode(parts: Buffer[], decodeItem?: (item: unknown) => unknown): unknown {
  const d = new ListDecoder(decodeItem);
  for (const p of parts) d.push(p);
  return d.end();
}

/** Splits buf at the given offsets. */
function cut(buf: Buffer, at: number[]): Buffer[] {
  const parts: Buffer[] = [];
  let from = 0;
  for (const to of [...at].sort((a, b) => a - b)) {
    parts.push(buf.subarray(from, to));
    from = to;
  }
  parts.push(buf.subarray(from));
  return parts;
}

test("a list body in one chunk, cut once at every byte, or into 1-byte chunks decodes to what JSON.parse gives", () => {
  for (const [what, text] of bodies) {
    const buf = Buffer.from(text, "utf8");
    const want = JSON.parse(text) as unknown;
    assert.deepEqual(decode([buf]), want, `${what}: one chunk`);
    for (let at = 0; at <= buf.length; at++)
      assert.deepEqual(decode(cut(buf, [at])), want, `${what}: cut at byte ${at}`);
    assert.deepEqual(decode(Array.from(buf, (_, i) => buf.subarray(i, i + 1))), want, `${what}: 1-byte chunks`);
  }
});

test("random multi-cuts of a 300-item list (inside strings, escapes and multi-byte characters) decode exactly", () => {
  const items = Array.from({ length: 300 }, (_, i) => ({
    metadata: { name: `obj-${i}`, labels: { "app.kubernetes.io/name": `x${i % 7}` } },
    spec: {
      s: `"${"\\".repeat(i % 4)}]}${"é🦭".repeat(i % 3)}`,
      list: Array.from({ length: i % 5 }, (_, j) => ({ j })),
    },
  }));
  const text = JSON.stringify({ apiVersion: "v1", items, kind: "List", metadata: { resourceVersion: "7" } });
  const buf = Buffer.from(text, "utf8");
  const want = JSON.parse(text) as unknown;
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 50; round++) {
    const at = Array.from({ length: 1 + Math.floor(random() * 40) }, () => Math.floor(random() * buf.length));
    assert.deepEqual(decode(cut(buf, at)), want, `cuts at ${at.join(",")}`);
  }
});

test("each element of items passes through decodeItem, in order, and only those elements", () => {
  const seen: unknown[] = [];
  const list = decode([Buffer.from(JSON.stringify(tricky))], (item) => {
    seen.push(item);
    return { wrapped: item };
  }) as { items: unknown[]; metadata: unknown };
  assert.deepEqual(seen, tricky.items);
  assert.deepEqual(
    list.items,
    tricky.items.map((item) => ({ wrapped: item })),
  );
  assert.deepEqual(list.metadata, tricky.metadata);
});

test("a truncated or malformed body is a SyntaxError, never a partial list", () => {
  const text = JSON.stringify(tricky);
  for (const end of [1, 20, text.indexOf("[") + 1, text.indexOf('"b"'), text.length - 1]) {
    assert.throws(() => decode([Buffer.from(text.slice(0, end))]), SyntaxError, `truncated at ${end}`);
  }
  assert.throws(() => decode([Buffer.from('{"items":[{"a":1},{"b":}],"kind":"List"}')]), SyntaxError);
  assert.throws(() => decode([Buffer.from('{"items":[],"kind":"List"}}')]), SyntaxError);
  assert.throws(() => decode([Buffer.from('["not","an","object"]')]), SyntaxError);
});

// Through the client: ResourceClient.list decodes the body as it arrives, over HTTP.

test("ResourceClient.list over HTTP, written in 7-byte pieces: every item decoded with its Date, the list's metadata kept", async () => {
  const body = JSON.stringify({
    apiVersion: "example.com/v1",
    kind: "WidgetList",
    metadata: { resourceVersion: "99" },
    items: Array.from({ length: 50 }, (_, i) => ({
      metadata: { name: `w${i}`, namespace: "ns1", creationTimestamp: "2026-12-03T01:02:03Z" },
      spec: { note: `"${i}" ]}` },
    })),
  });
  const api = await startFakeApi((_rec, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    writeInPieces(res, Buffer.from(body), 7);
  });
  try {
    const list = await new ResourceClient<KubernetesObject>(api.client, widgets).list("ns1");
    assert.equal(list.metadata?.resourceVersion, "99");
    assert.equal(list.items.length, 50);
    assert.deepEqual(
      list.items.map((o) => o.metadata?.name),
      Array.from({ length: 50 }, (_, i) => `w${i}`),
    );
    assert.ok(
      list.items.every(
        (o) =>
          o.metadata?.creationTimestamp instanceof Date &&
          o.metadata.creationTimestamp.getTime() === Date.UTC(2026, 11, 3, 1, 2, 3),
      ),
    );
    assert.equal((list.items[7] as { spec?: { note?: string } }).spec?.note, '"7" ]}');
  } finally {
    await api.close();
  }
});

test("ResourceClient.list: a 200 body cut short is TransportError MalformedResponse; a 404 is still an ApiError", async () => {
  const api = await startFakeApi((rec, res) => {
    if (rec.path.includes("/namespaces/missing/")) {
      json(res, 404, { kind: "Status", code: 404, reason: "NotFound", message: 'namespaces "missing" not found' });
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end('{"kind":"WidgetList","items":[{"metadata":{"name":"a"}},{"metadata":');
  });
  try {
    const client = new ResourceClient<KubernetesObject>(api.client, widgets);
    await assert.rejects(
      client.list("ns1"),
      (e: unknown) => e instanceof TransportError && e.code === "MalformedResponse",
    );
    await assert.rejects(client.list("missing"), (e: unknown) => e instanceof ApiError && e.status === 404);
  } finally {
    await api.close();
  }
});
