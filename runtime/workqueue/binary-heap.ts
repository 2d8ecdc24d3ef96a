// A binary min-heap over an array: what the workqueue's waiting and priority heaps need (push, peek, pop, clear). Ours
// rather than heap-js's: that package's 94 KB of source and its compiled code stay in every process's heap (0.1 MB).

export class BinaryHeap<T> {
  private readonly items: T[] = [];

  /** compare(a, b) < 0 when a comes out before b. */
  constructor(private readonly compare: (a: T, b: T) => number) {}

  get length(): number {
    return this.items.length;
  }

  /** The first item, left in place. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    let i = items.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(item, items[parent]!) >= 0) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  /** Removes and returns the first item. */
  pop(): T | undefined {
    const items = this.items;
    const first = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return first;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && this.compare(items[right]!, items[left]!) < 0 ? right : left;
      if (this.compare(items[child]!, last) >= 0) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return first;
  }

  clear(): void {
    this.items.length = 0;
  }
}
