import { test } from "node:test";
import assert from "node:assert/strict";
import { BinaryHeap } from "#runtime/workqueue/binary-heap.js";

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

test("items come out in the comparator's order, pushes and pops interleaved", () => {
  const next = random(7);
  const heap = new BinaryHeap<number>((a, b) => a - b);
  const model: number[] = [];
  for (let step = 0; step < 5_000; step++) {
    if (next() < 0.6) {
      const v = Math.floor(next() * 100); // many equal values
      heap.push(v);
      model.push(v);
      model.sort((a, b) => a - b);
    } else {
      assert.equal(heap.pop(), model.shift());
    }
    assert.equal(heap.length, model.length);
    assert.equal(heap.peek(), model[0]);
  }
});

test("equal keys come out in the order a tie-break gives, and an empty heap gives undefined", () => {
  const heap = new BinaryHeap<{ at: number; seq: number }>((a, b) => a.at - b.at || a.seq - b.seq);
  const pushed = [3, 1, 3, 2, 1, 3].map((at, seq) => ({ at, seq }));
  for (const e of pushed) heap.push(e);
  const out: number[] = [];
  for (let e = heap.pop(); e !== undefined; e = heap.pop()) out.push(e.seq);
  assert.deepEqual(out, [1, 4, 3, 0, 2, 5]);
  assert.equal(heap.pop(), undefined);
  assert.equal(heap.peek(), undefined);
});

test("clear empties the heap, which takes new items after", () => {
  const heap = new BinaryHeap<string>((a, b) => a.localeCompare(b));
  for (const s of ["c", "a", "b"]) heap.push(s);
  assert.equal(heap.peek(), "a");
  assert.equal(heap.length, 3, "peek leaves the item");
  heap.clear();
  assert.equal(heap.length, 0);
  heap.push("z");
  assert.equal(heap.pop(), "z");
});
