// The solver's incremental use, as the linker grows its constraint list: constraints added to a solved PointsTo reach
// the same fixpoint as solving the whole list at once, and a solver lent the numbering of another solves the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PointsTo, type Constraint, type Slot, type Value } from "@crdgen/explore";

/** A small seeded generator (mulberry32), so that a failing list can be made again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIELDS = ["queue", "sync", "next"];
const TYPES = ["T0", "T1", "L0"];
const FNS = ["f0", "f1", "f2"];
const CLASSES = ["C0", "C1"];
/** Slots the generated constraints name, including the ones the solver derives from values (fields, parameters). */
const SLOTS: Slot[] = [
  ...FNS.flatMap((f) => [`${f}$a`, `${f}$b`, `${f}~0`, `${f}#p0`, `${f}#p1`, `${f}#ret`, `${f}#ret1`] as Slot[]),
  ...TYPES.flatMap((t) => FIELDS.map((f) => `${t}.${f}` as Slot)),
  ...CLASSES.flatMap((c) => [`${c}.constructor`, `${c}.queue`] as Slot[]),
];
const VALUES: Value[] = [
  ...TYPES.map((t) => `${t.startsWith("L") ? "l" : "o"}|${t}` as Value),
  ...FNS.map((f) => `f|${f}` as Value),
  ...CLASSES.map((c) => `c|${c}` as Value),
  "q|1",
  "q|2",
];

function constraints(next: () => number, count: number): Constraint[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const out: Constraint[] = [];
  for (let i = 0; i < count; i++) {
    const kind = pick(["alloc", "copy", "copy", "load", "store", "call", "new"] as const);
    if (kind === "alloc") out.push({ c: "alloc", dst: pick(SLOTS), v: pick(VALUES) });
    else if (kind === "copy") out.push({ c: "copy", dst: pick(SLOTS), src: pick(SLOTS) });
    else if (kind === "load") out.push({ c: "load", dst: pick(SLOTS), base: pick(SLOTS), field: pick(FIELDS) });
    else if (kind === "store") out.push({ c: "store", base: pick(SLOTS), field: pick(FIELDS), src: pick(SLOTS) });
    else if (kind === "call")
      out.push({
        c: "call",
        callee: pick(SLOTS),
        args: [pick(SLOTS), pick(SLOTS)],
        ret: pick(SLOTS),
        more: [pick(SLOTS)],
      });
    else out.push({ c: "new", cls: pick(SLOTS), args: [pick(SLOTS)], ret: pick(SLOTS) });
  }
  return out;
}

/** Every slot's values, sorted: what a solve found, whatever the order it found it in. */
function solution(pts: PointsTo): string[] {
  const derived = VALUES.flatMap((v) => [
    ...FIELDS.map((f) => `${v.slice(2)}.${f}`),
    `${v.slice(2)}.constructor#ignored`,
  ]) as Slot[];
  return [...new Set([...SLOTS, ...derived])].map((s) => `${s}: ${[...pts.valuesOf(s)].sort().join(" ")}`);
}

test("constraints added in steps to a solved points-to reach the fixpoint of solving them all at once", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const list = constraints(random(seed), 40);
    const whole = new PointsTo(list);
    const steps = new PointsTo(list.slice(0, 10));
    steps.addAll(list.slice(10, 25));
    steps.addAll([]);
    steps.addAll(list.slice(25));
    assert.deepEqual(solution(steps), solution(whole), `seed ${seed}`);
  }
});

test("the lists solved are not trivial: values flow into fields, parameters and constructors", () => {
  const flows = { field: 0, param: 0, ctor: 0 };
  for (let seed = 1; seed <= 200; seed++) {
    const pts = new PointsTo(constraints(random(seed), 40));
    const any = (slots: string[]) => slots.some((s) => pts.valuesOf(s as Slot).size > 0);
    if (any(TYPES.flatMap((t) => FIELDS.map((f) => `${t}.${f}`)))) flows.field++;
    if (any(FNS.map((f) => `${f}#p1`))) flows.param++;
    // `o|C0` is only made by `new` of the class.
    if (SLOTS.some((s) => CLASSES.some((c) => pts.valuesOf(s).has(`o|${c}`)))) flows.ctor++;
  }
  for (const [flow, lists] of Object.entries(flows)) assert.ok(lists >= 20, `${flow}: only ${lists} of 200 lists`);
});

test("a solver lent another's numbering solves a changed list as a fresh solver does", () => {
  for (let seed = 1; seed <= 100; seed++) {
    const next = random(seed);
    const list = constraints(next, 40);
    const before = new PointsTo(list);
    // Some constraints kept (the same objects), some replaced, some new: as per-site results rewrite calls.
    const changed = [...list.filter(() => next() < 0.7), ...constraints(next, 10)];
    assert.deepEqual(solution(new PointsTo(changed, before)), solution(new PointsTo(changed)), `seed ${seed}`);
  }
});
