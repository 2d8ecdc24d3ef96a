// Lists the linker grows: `out.push(...items)` passes every item as an argument and overflows the call stack past
// some 100,000 items (a large tree's constraints), so they are appended one by one.

/** Appends `items` to `out` in order and returns `out`. */
export function appendAll<T>(out: T[], items: Iterable<T>): T[] {
  for (const item of items) out.push(item);
  return out;
}
