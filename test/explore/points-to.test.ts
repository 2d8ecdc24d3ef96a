// The points-to solver on its own: the cases the linker relies on to meet a queue or a handler function wherever the
// code put it (fields, parameters, results, literals, classes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { PointsTo, fieldSlot, type Constraint } from "@crdgen/explore";

const values = (pts: PointsTo, slot: string) => [...pts.valuesOf(slot)].sort();

test("a value stored in a field of an instance is loaded back through any alias of that instance", () => {
  const constraints: Constraint[] = [
    { c: "alloc", dst: "ctor$c", v: "o|pkg.Controller" },
    { c: "alloc", dst: "ctor~q", v: "q|call1" },
    { c: "store", base: "ctor$c", field: "queue", src: "ctor~q" },
    { c: "copy", dst: "worker#this", src: "ctor$c" },
    { c: "load", dst: "worker~recv", base: "worker#this", field: "queue" },
  ];
  const pts = new PointsTo(constraints);
  assert.deepEqual(values(pts, "worker~recv"), ["q|call1"]);
  assert.deepEqual(values(pts, "pkg.Controller.queue"), ["q|call1"]);
});

test("calls bind arguments to parameters and results to the call's slot, also for functions found only while solving", () => {
  const constraints: Constraint[] = [
    // helper(q) { return q } reached through a function value held in a variable.
    { c: "alloc", dst: "main$f", v: "f|helper" },
    { c: "alloc", dst: "main~q", v: "q|made" },
    { c: "call", callee: "main$f", args: ["main~q"], ret: "main~r" },
    { c: "copy", dst: "helper#ret", src: "helper#p0" },
  ];
  const pts = new PointsTo(constraints);
  assert.deepEqual(values(pts, "helper#p0"), ["q|made"]);
  assert.deepEqual(values(pts, "main~r"), ["q|made"]);
  assert.deepEqual(values(pts, "main~unrelated"), []);
});

test("new makes an instance and runs the class's constructor with the arguments", () => {
  const constraints: Constraint[] = [
    { c: "alloc", dst: "mod.Controller", v: "c|mod.Controller" },
    { c: "alloc", dst: "mod.Controller.constructor", v: "f|ctor" },
    { c: "alloc", dst: "ctor#this", v: "o|mod.Controller" },
    { c: "load", dst: "ctor~q", base: "ctor#p0", field: "queue" },
    { c: "store", base: "ctor#this", field: "queue", src: "ctor~q" },
    { c: "alloc", dst: "make~lit", v: "l|lit1" },
    { c: "alloc", dst: "make~q", v: "q|rl" },
    { c: "store", base: "make~lit", field: "queue", src: "make~q" },
    { c: "new", cls: "mod.Controller", args: ["make~lit"], ret: "make~c" },
  ];
  const pts = new PointsTo(constraints);
  assert.deepEqual(values(pts, "make~c"), ["o|mod.Controller"]);
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
    { c: "copy", dst: "b", src: "a" },
    { c: "copy", dst: "c", src: "b" },
    { c: "copy", dst: "a", src: "c" },
    { c: "alloc", dst: "b", v: "q|1" },
    { c: "alloc", dst: "c", v: "q|2" },
  ];
  const pts = new PointsTo(constraints);
  for (const slot of ["a", "b", "c"]) assert.deepEqual(values(pts, slot), ["q|1", "q|2"]);
});
