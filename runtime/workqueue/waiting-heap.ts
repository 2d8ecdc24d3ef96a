// Items waiting for their ready time, earliest first, keyed by item (client-go delaying_queue.go waitForPriorityQueue
// + knownEntries). Moving an item earlier pushes a fresh entry; the stale one is skipped when it surfaces.
import { Heap } from "./heap-js.js";

interface Entry<T> {
  readonly item: T;
  readonly readyAt: number;
  /** Tie-break so items with the same ready time come out in the order they were added. */
  readonly seq: number;
}

export class WaitingHeap<T> {
  private readonly heap = new Heap<Entry<T>>((a, b) => a.readyAt - b.readyAt || a.seq - b.seq);
  /** The live entry of every waiting item. */
  private readonly known = new Map<T, Entry<T>>();
  private seq = 0;

  get size(): number {
    return this.known.size;
  }

  /** Adds item to wait until readyAt; if already waiting, only ever moves it earlier. */
  offer(item: T, readyAt: number): void {
    const existing = this.known.get(item);
    if (existing !== undefined && readyAt >= existing.readyAt) return;
    const entry: Entry<T> = { item, readyAt, seq: this.seq++ };
    this.known.set(item, entry);
    this.heap.push(entry);
  }

  /** Ready time of the earliest item, if any. */
  peekReadyAt(): number | undefined {
    return this.top()?.readyAt;
  }

  /** Removes and returns the earliest item if it is ready at `now`. */
  popReady(now: number): { item: T } | undefined {
    const top = this.top();
    if (top === undefined || top.readyAt > now) return undefined;
    this.heap.pop();
    this.known.delete(top.item);
    return { item: top.item };
  }

  clear(): void {
    this.heap.clear();
    this.known.clear();
  }

  /** The earliest live entry, after dropping stale ones from the top. */
  private top(): Entry<T> | undefined {
    for (let top = this.heap.peek(); top !== undefined; top = this.heap.peek()) {
      if (this.known.get(top.item) === top) return top;
      this.heap.pop();
    }
    return undefined;
  }
}
