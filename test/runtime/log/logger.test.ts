// Logger: pino-backed JSON lines by default, the logfmt-style text layout on request, child fields, levels, errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import { fromPino, newLogger } from "@crdgen/runtime";

function capture(options: Parameters<typeof newLogger>[0] = {}) {
  const lines: string[] = [];
  const log = newLogger({ ...options, write: (l) => lines.push(l) });
  return { lines, log, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test("json: one object per entry with time, level label, msg and fields", () => {
  const { log, records } = capture({ format: "json" });
  log.info("hello", { n: 1, nested: { a: "b" } });
  const [r] = records();
  assert.equal(r?.["level"], "info");
  assert.equal(r["msg"], "hello");
  assert.equal(r["n"], 1);
  assert.deepEqual(r["nested"], { a: "b" });
  assert.match(String(r["time"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(r["pid"], undefined);
});

test("json is the default format", () => {
  const saved = process.env["CRDGEN_LOG_FORMAT"];
  delete process.env["CRDGEN_LOG_FORMAT"];
  try {
    const { log, records } = capture();
    log.info("x");
    assert.equal(records()[0]?.["msg"], "x");
  } finally {
    if (saved !== undefined) process.env["CRDGEN_LOG_FORMAT"] = saved;
  }
});

test("child loggers carry their fields; entry fields win; the parent is unchanged", () => {
  const { log, records } = capture({ format: "json" });
  const reconcile = log.child({ controller: "things" }).child({ key: "ns/a", reconcileID: "id-1" });
  reconcile.warn("w", { key: "override" });
  log.info("parent");
  const [child, parent] = records();
  assert.equal(child?.["controller"], "things");
  assert.equal(child["reconcileID"], "id-1");
  assert.equal(child["level"], "warn");
  assert.equal(parent?.["controller"], undefined);
});

test("levels below the configured one are dropped", () => {
  const { log, records } = capture({ format: "json", level: "warn" });
  log.debug("d");
  log.info("i");
  log.warn("w");
  log.error("e");
  assert.deepEqual(
    records().map((r) => r["msg"]),
    ["w", "e"],
  );
});

test("errors under any key are serialized with type, message and stack", () => {
  const { log, records } = capture({ format: "json" });
  log.error("failed", { error: new TypeError("boom"), cause: new Error("root") });
  const [r] = records();
  const error = r?.["error"] as Record<string, unknown>;
  assert.equal(error["type"], "TypeError");
  assert.equal(error["message"], "boom");
  assert.match(String(error["stack"]), /TypeError: boom/);
  assert.equal((r?.["cause"] as Record<string, unknown>)["message"], "root");
});

test("text: time, padded level, message, logfmt pairs with quoting", () => {
  const { log, lines } = capture({ format: "text" });
  log.child({ controller: "things" }).error("reconcile failed", { key: "ns/a", error: new Error("no way"), n: 2 });
  assert.match(
    lines[0]!,
    /^\d{4}-\d\d-\d\dT\S+Z ERROR reconcile failed controller=things key=ns\/a error="no way" n=2$/,
  );
});

test("CRDGEN_LOG_FORMAT=text and CRDGEN_LOG_LEVEL are honoured", () => {
  const saved = { f: process.env["CRDGEN_LOG_FORMAT"], l: process.env["CRDGEN_LOG_LEVEL"] };
  process.env["CRDGEN_LOG_FORMAT"] = "text";
  process.env["CRDGEN_LOG_LEVEL"] = "debug";
  try {
    const { log, lines } = capture();
    log.debug("dbg");
    assert.match(lines[0]!, / DEBUG dbg$/);
  } finally {
    for (const [k, v] of [
      ["CRDGEN_LOG_FORMAT", saved.f],
      ["CRDGEN_LOG_LEVEL", saved.l],
    ] as const) {
      if (v === undefined) Reflect.deleteProperty(process.env, k);
      else process.env[k] = v;
    }
  }
});

test("fromPino wraps an existing pino logger", () => {
  const lines: string[] = [];
  const log = fromPino(pino({ base: undefined }, { write: (s: string) => void lines.push(s) }));
  log.child({ controller: "c" }).info("m", { error: new Error("e") });
  const r = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.equal(r["controller"], "c");
  assert.equal(r["msg"], "m");
  assert.equal((r["error"] as Record<string, unknown>)["message"], "e");
});
