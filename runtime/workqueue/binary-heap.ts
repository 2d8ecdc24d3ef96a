// A binary heap ordered by a less function: push and pop in O(log n). Callers that change an element's key push a
// fresh element and skip the stale one when it surfaces (lazy deletion), so the heap needs no index per element.

export class BinaryHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (this.items.length > 0) {
      this.items[0] = last as T;
      this.down(0);
    }
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }

  private up(i: number): void {
    const item = this.items[i] as T;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = this.items[parent] as T;
      if (!this.less(item, above)) break;
      this.items[i] = above;
      i = parent;
    }
    this.items[i] = item;
  }

  private down(i: number): void {
    const n = this.items.length;
    const item = this.items[i] as T;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.less(this.items[r] as T, this.items[l] as T) ? r : l;
      if (!this.less(this.items[child] as T, item)) break;
      this.items[i] = this.items[child] as T;
      i = child;
    }
    this.items[i] = item;
  }
}
