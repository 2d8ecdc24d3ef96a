// The points-to solver on its own: the cases the linker relies on to meet a queue or a handler function wherever the
// code put it (fields, parameters, results, literals, classes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { PointsTo, fieldSlot, keyOf, keysOf, type Constraint, type Slot, type Value } from "@crdgen/explore";

const values = (pts: PointsTo, slot: Slot) => [...pts.valuesOf(slot)].sort();

test("a value stored in a field of an instance is loaded back through any alias of that instance", () => {
  const constraints: Constraint[] = [
    { c: "alloc", dst: "ctor$c", v: "o|pkg.Controller" },
    { c: "alloc", dst: "ctor~0", v: "q|call1" },
    { c: "store", base: "ctor$c", field: "queue", src: "ctor~0" },
    { c: "copy", dst: "worker#this", src: "ctor$c" },
    { c: "load", dst: "worker~0", base: "worker#this", field: "queue" },
  ];
  const pts = new PointsTo(constraints);
  assert.deepEqual(values(pts, "worker~0"), ["q|call1"]);
  assert.deepEqual(values(pts, "pkg.Controller.queue"), ["q|call1"]);
});

test("calls bind arguments to parameters and results to the call's slot, also for functions found only while solving", () => {
  const constraints: Constraint[] = [
    // helper(q) { return q } reached through a function value held in a variable.
    { c: "alloc", dst: "main$f", v: "f|helper" },
    { c: "alloc", dst: "main~0", v: "q|made" },
    { c: "call", callee: "main$f", args: ["main~0"], ret: "main~1" },
    { c: "copy", dst: "helper#ret", src: "helper#p0" },
  ];
  const pts = new PointsTo(constraints);
  assert.deepEqual(values(pts, "helper#p0"), ["q|made"]);
  assert.deepEqual(values(pts, "main~1"), ["q|made"]);
  assert.deepEqual(values(pts, "main~9"), []);
});

test("new makes an instance and runs the class's constructor with the arguments", () => {
  const constraints: Constraint[] = [
    { c: "alloc", dst: "mod.Controller", v: "c|mod.Controller" },
    { c: "alloc", dst: "mod.Controller.constructor", v: "f|ctor" },
    { c: "alloc", dst: "ctor#this", v: "o|mod.Controller" },
    { c: "load", dst: "ctor~0", base: "ctor#p0", field: "queue" },
    { c: "store", base: "ctor#this", field: "queue", src: "ctor~0" },
    { c: "alloc", dst: "make~0", v: "l|lit1" },
    { c: "alloc", dst: "make~1", v: "q|rl" },
    { c: "store", base: "make~0", field: "queue", src: "make~1" },
    { c: "new", cls: "mod.Controller", args: ["make~0"], ret: "make~2" },
  ];
  const pts = new PointsTo(constraints);
  assert.deepEqual(values(pts, "make~2"), ["o|mod.Controller"]);
  assert.deepEqual(values(pts, "mod.Controller.queue"), ["q|rl"]);
});

test("field slots exist for instances, literals, modules and classes, not for functions or queues", () => {
  assert.equal(fieldSlot("o|go:pkg.Controller", "queue"), "go:pkg.Controller.queue");
  assert.equal(fieldSlot("l|file:3:4#0", "AddFunc"), "file:3:4#0.AddFunc");
  assert.equal(fieldSlot("m|go:pkg/util", "Enqueue"), "go:pkg/util.Enqueue");
  assert.equal(fieldSlot("f|file:1:1", "x"), undefined);
  assert.equal(fieldSlot("q|file:1:1", "x"), undefined);
});

test("cycles of copies terminate with every value everywhere on the cycle", () => {
  const constraints: Constraint[] = [
    { c: "copy", dst: "f$b", src: "f$a" },
    { c: "copy", dst: "f$c", src: "f$b" },
    { c: "copy", dst: "f$a", src: "f$c" },
    { c: "alloc", dst: "f$b", v: "q|1" },
    { c: "alloc", dst: "f$c", v: "q|2" },
  ];
  const pts = new PointsTo(constraints);
  for (const slot of ["f$a", "f$b", "f$c"] as const) assert.deepEqual(values(pts, slot), ["q|1", "q|2"]);
});

test("a value's key is read by its tag", () => {
  assert.equal(keyOf("o|go:pkg.Controller", "o"), "go:pkg.Controller");
  assert.equal(keyOf("o|go:pkg.Controller", "c"), undefined);
  assert.equal(keyOf("s|a|b", "s"), "a|b");
  assert.deepEqual(keysOf(["f|a", "q|b", "f|c", "f|a"], "f"), ["a", "c", "a"]);
  assert.deepEqual(keysOf(new Set<Value>(["q|b"]), "f"), []);
});
