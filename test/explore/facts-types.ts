// Type-level tests of explore's facts: a slot is built in one of its named forms and a value carries a known tag, so
// the compiler catches a reader or linker that makes up another encoding.
// `npx tsc -b` is the test runner: each @ts-expect-error must meet an error, every other line must compile. Nothing here
// runs.
import type { Constraint, Slot, Value } from "@crdgen/explore";

export function slotsInTheirForms(): Slot[] {
  const forms: Slot[] = ["pkg.Name", "pkg.Type.field", "fn#p0", "fn#ret", "fn#this", "fn$local", "fn~3"];
  // @ts-expect-error a temporary is numbered: `<fnId>~<n>`
  const namedTemporary: Slot = "fn~q";
  // @ts-expect-error a bare name is no slot: a local is `<fnId>$<name>`, a package-level name `<moduleKey>.<name>`
  const bare: Slot = "queue";
  // @ts-expect-error a parameter is numbered: `<fnId>#p<i>`
  const namedParameter: Slot = "fn#pq";
  return [...forms, namedTemporary, bare, namedParameter];
}

export function valuesWithTheirTags(): Value[] {
  const tagged: Value[] = ["f|fn", "o|pkg.T", "l|lit", "c|mod.C", "m|mod", "q|call", "i|call", "s|Kind", "k|Kind"];
  // @ts-expect-error a value starts with one of the tags
  const untagged: Value = "x|1";
  // @ts-expect-error a value's tag is followed by "|"
  const unseparated: Value = "f:1";
  return [...tagged, untagged, unseparated];
}

export function constraintsKeepSlotsAndValuesApart(slot: Slot, value: Value): Constraint[] {
  const ok: Constraint = { c: "alloc", dst: slot, v: value };
  // @ts-expect-error a slot is not a value: alloc puts a value into a slot
  const slotAsValue: Constraint = { c: "alloc", dst: slot, v: slot };
  return [ok, slotAsValue];
}
