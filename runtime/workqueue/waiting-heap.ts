// Min-heap of items waiting for their ready time, keyed by item (client-go delaying_queue.go waitForPriorityQueue +
// knownEntries).

interface Entry<T> {
  readonly item: T;
  readyAt: number;
  // Tie-break so items with the same ready time come out in the order they were added.
  seq: number;
  index: number;
}

export class WaitingHeap<T> {
  private readonly heap: Entry<T>[] = [];
  private readonly known = new Map<T, Entry<T>>();
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** Adds item to wait until readyAt; if already waiting, only ever moves it earlier. */
  offer(item: T, readyAt: number): void {
    const existing = this.known.get(item);
    if (existing !== undefined) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        existing.seq = this.seq++;
        this.up(existing.index);
      }
      return;
    }
    const entry: Entry<T> = { item, readyAt, seq: this.seq++, index: this.heap.length };
    this.heap.push(entry);
    this.known.set(item, entry);
    this.up(entry.index);
  }

  /** Ready time of the earliest item, if any. */
  peekReadyAt(): number | undefined {
    return this.heap[0]?.readyAt;
  }

  /** Removes and returns the earliest item if it is ready at `now`. */
  popReady(now: number): { item: T } | undefined {
    const top = this.heap[0];
    if (top === undefined || top.readyAt > now) return undefined;
    const last = this.heap.pop() as Entry<T>;
    if (last !== top) {
      last.index = 0;
      this.heap[0] = last;
      this.down(0);
    }
    this.known.delete(top.item);
    return { item: top.item };
  }

  clear(): void {
    this.heap.length = 0;
    this.known.clear();
  }

  private less(a: Entry<T>, b: Entry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i] as Entry<T>;
    const b = this.heap[j] as Entry<T>;
    this.heap[i] = b;
    this.heap[j] = a;
    b.index = i;
    a.index = j;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.heap[i] as Entry<T>, this.heap[parent] as Entry<T>)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < n && this.less(this.heap[l] as Entry<T>, this.heap[min] as Entry<T>)) min = l;
      if (r < n && this.less(this.heap[r] as Entry<T>, this.heap[min] as Entry<T>)) min = r;
      if (min === i) return;
      this.swap(i, min);
      i = min;
    }
  }
}
