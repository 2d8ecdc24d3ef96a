// Work over a whole list (a relist's store replace and its notifications, a shard's filter, a cache walk) done in
// chunks with a turn of the event loop between them, so that timers and I/O keep running: a sharding member's Lease
// renewal must not wait for 50,000 objects to be stored and handed to handlers.

/** Items handled between two turns of the event loop (each takes microseconds: a chunk stays around 10 ms). */
export const CHUNK_ITEMS = 1000;

/**
 * Steps of work: a generator that yields at each point where it may pause (at most every CHUNK_ITEMS items; see
 * Pacer). Nothing is yielded to the caller but the pause itself.
 */
export type Steps<R> = Generator<void, R, void>;

/** Resolves after the event loop ran its timers and I/O (setImmediate: after the poll phase, not only microtasks). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs steps to the end: synchronously when they never pause (a list below CHUNK_ITEMS is handled exactly as before),
 * otherwise resuming after a turn of the event loop at every pause. What steps throw is thrown (or rejected).
 */
export function runSteps<R>(steps: Steps<R>): R | Promise<R> {
  const first = steps.next();
  if (first.done) return first.value;
  return (async () => {
    for (;;) {
      await nextTurn();
      const r = steps.next();
      if (r.done) return r.value;
    }
  })();
}

/** Counts items; due() says when a chunk is full and steps should pause (yield). */
export class Pacer {
  private count = 0;

  constructor(private readonly chunk = CHUNK_ITEMS) {}

  /** Counts one item; true every chunk items. */
  due(): boolean {
    if (++this.count < this.chunk) return false;
    this.count = 0;
    return true;
  }
}

/** items.filter(keep), pausing every CHUNK_ITEMS items. */
export function* filterSteps<T>(items: readonly T[], keep: (item: T) => boolean, pacer = new Pacer()): Steps<T[]> {
  const kept: T[] = [];
  for (const item of items) {
    if (keep(item)) kept.push(item);
    if (pacer.due()) yield;
  }
  return kept;
}

/** Calls fn on each item, pausing every CHUNK_ITEMS items. */
export function* forEachSteps<T>(items: Iterable<T>, fn: (item: T) => void, pacer = new Pacer()): Steps<void> {
  for (const item of items) {
    fn(item);
    if (pacer.due()) yield;
  }
}
