// LineSplitter on hostile lines: one that never ends is bounded by maxLineBytes, and a very long one arriving in small
// chunks costs time linear in its length.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LineSplitter, LineTooLongError } from "#runtime/client/ndjson.js";

test("a line of exactly maxLineBytes is a line; the push that takes one past it throws LineTooLongError", () => {
  const s = new LineSplitter(10);
  assert.deepEqual(s.push(Buffer.from("0123456789\n01234")), ["0123456789"]);
  assert.deepEqual(s.push(Buffer.from("56789")), []);
  assert.throws(
    () => s.push(Buffer.from("x")),
    (e: unknown) => e instanceof LineTooLongError && e.maxLineBytes === 10,
  );
});

test("maxLineBytes counts bytes, not characters: five 2-byte characters fill a 10-byte line", () => {
  assert.deepEqual(new LineSplitter(10).push(Buffer.from("ééééé\n")), ["ééééé"]);
  assert.throws(() => new LineSplitter(10).push(Buffer.from("éééééé\n")), LineTooLongError);
});

test("a line that never ends throws as soon as it is too long, whatever the chunk size", () => {
  for (const size of [1, 7, 4096]) {
    const s = new LineSplitter(64 * 1024);
    const chunk = Buffer.alloc(size, "x");
    let pushed = 0;
    assert.throws(() => {
      for (;;) {
        s.push(chunk);
        pushed += size;
      }
    }, LineTooLongError);
    assert.ok(pushed <= 64 * 1024, `at most the limit was held (${pushed} bytes, chunks of ${size})`);
  }
});

// The splitter this replaced appended each chunk to one string and searched it again: a 16 MiB line in 4 KiB chunks
// took 145 s, and 32 MiB would take about ten minutes (quadratic). Linear, 32 MiB takes well under a second; the
// deadline only keeps a regression from hanging the suite.
test("a 32 MiB line in 4 KiB chunks is split in linear time", { timeout: 60_000 }, () => {
  const s = new LineSplitter();
  const chunk = Buffer.alloc(4096, "a");
  const chunks = (32 * 1024 * 1024) / chunk.length;
  for (let i = 0; i < chunks; i++) assert.deepEqual(s.push(chunk), []);
  const lines = s.push(Buffer.from("b\nnext"));
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.length, 32 * 1024 * 1024 + 1);
  assert.equal(lines[0]!.at(-1), "b");
  assert.deepEqual(s.end(), ["next"]);
});
