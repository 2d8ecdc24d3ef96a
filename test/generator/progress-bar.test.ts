// The generator's progress bar: drawn only on a terminal, redrawn only when it moves, cleared at the end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { progressBar } from "../../generator/progress-bar.js";

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, write: (chunk: string) => (writes.push(chunk), true) } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

test("no bar at all when the stream is not a terminal", () => {
  assert.equal(progressBar(fakeStream(false).stream), undefined);
});

test("on a terminal the bar redraws one line as work is done and clears it at the end", () => {
  const { stream, writes } = fakeStream(true);
  const bar = progressBar(stream)!;
  for (let done = 1; done <= 300; done++) bar.update(done, 300);
  assert.ok(writes.length <= 32, `redrawn only when the bar moves (${writes.length} writes for 300 steps)`);
  const clearLine = "\r\x1b[2K";
  for (const write of writes) assert.ok(write.startsWith(clearLine), JSON.stringify(write));
  assert.match(writes.at(-1)!.slice(clearLine.length), /^crdgen \[#{30}\] 300\/300$/);
  assert.match(writes[0]!.slice(clearLine.length), /^crdgen \[-{30}\] 1\/300$/);
  bar.done();
  assert.equal(writes.at(-1), clearLine);
});
