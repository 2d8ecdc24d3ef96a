// Big integers from a hostile server: a resourceVersion of 20 digits stays the same text from the wire back to the
// server, a metadata string sent as a bare number is refused, and an integer beyond 2^53 in an object field is
// rounded to the nearest double (JSON.parse's behaviour, as with client-node).
import { test } from "node:test";
import assert from "node:assert/strict";
import type http from "node:http";
import { type KubernetesObject, ResourceClient } from "@crdgen/runtime";
import { Indexer, Reflector, listerWatcherFor } from "@crdgen/runtime/cache";
import { IndexerSink } from "#runtime/cache/sink.js";
import { TransportError } from "@crdgen/runtime/client";
import { type FakeApi, type Handler, type Recorded, startFakeApi, widgets } from "../support/fake-api-server.js";
import { quiet, until } from "../support/cache-fakes.js";

interface Widget extends KubernetesObject {
  spec?: { big?: number; bigText?: string };
}

// Written as text: JSON.stringify could not produce a number with more digits than a double holds.
const LIST_RV = "98765432109876543210";
const ITEM_RV = "98765432109876543211";
const EVENT_RV = "98765432109876543212";
const widget = (rv: string): string =>
  `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns1","resourceVersion":"${rv}"},` +
  `"spec":{"big":9007199254740993,"bigText":"9007199254740993"}}`;

async function withApi(handler: Handler, fn: (api: FakeApi, rc: ResourceClient<Widget>) => Promise<void>) {
  const api = await startFakeApi(handler);
  try {
    await fn(api, new ResourceClient<Widget>(api.client, widgets));
  } finally {
    await api.close();
  }
}

function send(res: http.ServerResponse, text: string): void {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(text);
}

test("20-digit resourceVersions travel as the same text from LIST and WATCH back to the server", () => {
  let watches = 0;
  return withApi(
    (rec, res) => {
      if (!rec.query.includes("watch=true")) {
        send(res, `{"kind":"WidgetList","metadata":{"resourceVersion":"${LIST_RV}"},"items":[${widget(ITEM_RV)}]}`);
        return;
      }
      watches++;
      res.writeHead(200, { "Content-Type": "application/json" });
      if (watches === 1) res.end(`{"type":"MODIFIED","object":${widget(EVENT_RV)}}\n`);
      else res.flushHeaders(); // the second watch stays open
    },
    async (api, rc) => {
      const indexer = new Indexer<Widget>();
      const reflector = new Reflector<Widget>({
        listerWatcher: listerWatcherFor(rc, { namespace: "ns1" }),
        sink: new IndexerSink(indexer, () => undefined),
        logger: quiet,
      });
      const stop = new AbortController();
      const running = reflector.run(stop.signal);
      await until(() => watches === 2, "the second watch");
      stop.abort();
      await running;
      const rvs = api.requests
        .filter((r) => r.query.includes("watch=true"))
        .map((r) => new URLSearchParams(r.query).get("resourceVersion"));
      assert.deepEqual(rvs, [LIST_RV, EVENT_RV]);
      assert.equal(indexer.getByKey("ns1/w")?.metadata?.resourceVersion, EVENT_RV);
    },
  );
});

test("an integer beyond 2^53 in a field becomes the nearest double; the same digits in a string stay exact", () =>
  withApi(
    (rec, res) => {
      if (rec.query.includes("watch=true")) send(res, `{"type":"ADDED","object":${widget(EVENT_RV)}}\n`);
      else if (rec.path.endsWith("/widgets"))
        send(res, `{"kind":"WidgetList","metadata":{"resourceVersion":"${LIST_RV}"},"items":[${widget(ITEM_RV)}]}`);
      else send(res, widget(ITEM_RV));
    },
    async (_api, rc) => {
      const decoded: Widget[] = [await rc.get("ns1", "w"), ...(await rc.list("ns1")).items];
      for await (const e of rc.watch("ns1")) if (e.type !== "ERROR") decoded.push(e.object);
      assert.equal(decoded.length, 3);
      for (const { spec = {} } of decoded) {
        // JSON.parse (and so client-node) rounds 9007199254740993 = 2^53 + 1 to 2^53: the last digit is lost.
        assert.equal(spec.big, 2 ** 53);
        assert.notEqual(String(spec.big), "9007199254740993");
        assert.equal(spec.bigText, "9007199254740993");
      }
    },
  ));

const bareNumber = (rv: string): string => widget(rv).replace(`"resourceVersion":"${rv}"`, `"resourceVersion":${rv}`);

function hostileAnswer(rec: Recorded): string {
  if (rec.query.includes("watch=true")) return `{"type":"ADDED","object":${bareNumber(EVENT_RV)}}\n`;
  if (rec.path.endsWith("/widgets/w")) return bareNumber(ITEM_RV);
  if (rec.query.includes("limit=1"))
    return `{"kind":"WidgetList","metadata":{"resourceVersion":${LIST_RV}},"items":[]}`;
  if (rec.query.includes("limit=2")) return `{"kind":"WidgetList","metadata":{"continue":12345},"items":[]}`;
  return `{"kind":"WidgetList","metadata":{},"items":[${widget(ITEM_RV)},${bareNumber(ITEM_RV)}]}`;
}

test("a resourceVersion sent as a bare number is refused (MalformedResponse naming the field), never rounded", () =>
  withApi(
    (rec, res) => {
      send(res, hostileAnswer(rec));
    },
    async (_api, rc) => {
      const malformed =
        (what: RegExp) =>
        (e: unknown): boolean => {
          assert.ok(e instanceof TransportError, `a TransportError, got ${String(e)}`);
          assert.equal(e.code, "MalformedResponse");
          assert.match(e.message, what);
          return true;
        };
      await assert.rejects(
        rc.get("ns1", "w"),
        malformed(/metadata\.resourceVersion is a number, not a string \(and a number this large loses digits\)/),
      );
      await assert.rejects(rc.list("ns1"), malformed(/items\[1\]\.metadata\.resourceVersion is a number/));
      await assert.rejects(rc.list("ns1", { limit: 1 }), malformed(/^GET \S+: metadata\.resourceVersion is a number/));
      await assert.rejects(rc.list("ns1", { limit: 2 }), malformed(/metadata\.continue is a number, not a string$/));
      await assert.rejects(
        (async () => {
          for await (const _ of rc.watch("ns1"));
        })(),
        malformed(/watch event: object\.metadata\.resourceVersion is a number/),
      );
    },
  ));
