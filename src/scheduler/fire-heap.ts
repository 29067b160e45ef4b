// The next-fire index: an indexed binary min-heap of (instant, config order) keyed by job name.
// One heap for every cron job, so 100k jobs cost O(log n) per fire and one timer, not 100k timers.
// Invariant: each key appears at most once; ties on the instant are broken by config order.

export interface FireEntry {
  readonly key: string;
  atMs: number;
  order: number;
}

function before(a: FireEntry, b: FireEntry): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.order < b.order);
}

export class FireHeap {
  #items: FireEntry[] = [];
  #positions = new Map<string, number>();

  /** Build from entries in O(n) (Floyd's heapify); later duplicates of a key win. */
  static from(entries: Iterable<{ key: string; atMs: number; order: number }>): FireHeap {
    const heap = new FireHeap();
    for (const { key, atMs, order } of entries) {
      const existing = heap.#positions.get(key);
      const entry: FireEntry = { key, atMs, order };
      if (existing === undefined) {
        heap.#positions.set(key, heap.#items.length);
        heap.#items.push(entry);
      } else {
        heap.#items[existing] = entry;
      }
    }
    heap.#heapify();
    return heap;
  }

  get size(): number {
    return this.#items.length;
  }

  has(key: string): boolean {
    return this.#positions.has(key);
  }

  /** The key's instant, or undefined when absent. */
  get(key: string): number | undefined {
    const at = this.#positions.get(key);
    return at === undefined ? undefined : this.#items[at]?.atMs;
  }

  peek(): FireEntry | undefined {
    return this.#items[0];
  }

  /** Insert or move a key. */
  set(key: string, atMs: number, order: number): void {
    const at = this.#positions.get(key);
    if (at === undefined) {
      this.#items.push({ key, atMs, order });
      this.#positions.set(key, this.#items.length - 1);
      this.#siftUp(this.#items.length - 1);
      return;
    }
    const entry = this.#item(at);
    entry.atMs = atMs;
    entry.order = order;
    this.#siftUp(at);
    this.#siftDown(this.#positions.get(key) ?? at);
  }

  delete(key: string): boolean {
    const at = this.#positions.get(key);
    if (at === undefined) return false;
    this.#removeAt(at);
    return true;
  }

  pop(): FireEntry | undefined {
    if (this.#items.length === 0) return undefined;
    return this.#removeAt(0);
  }

  /** Remove and return every entry due at or before `nowMs`, soonest first. */
  popDue(nowMs: number): FireEntry[] {
    const due: FireEntry[] = [];
    for (let top = this.peek(); top !== undefined && top.atMs <= nowMs; top = this.peek()) {
      due.push(this.#removeAt(0));
    }
    return due;
  }

  /** Re-key every entry's tie-break order (after a reload reorders jobs) and restore the heap. */
  reorder(orderOf: (key: string) => number): void {
    for (const entry of this.#items) entry.order = orderOf(entry.key);
    this.#heapify();
  }

  /** Entries in heap order (not sorted); for inspection and tests. */
  entries(): readonly FireEntry[] {
    return this.#items;
  }

  #item(at: number): FireEntry {
    const entry = this.#items[at];
    if (!entry) throw new Error(`FireHeap index ${at} out of range`);
    return entry;
  }

  #removeAt(at: number): FireEntry {
    const removed = this.#item(at);
    const last = this.#items.pop();
    this.#positions.delete(removed.key);
    if (last !== undefined && last !== removed) {
      this.#items[at] = last;
      this.#positions.set(last.key, at);
      this.#siftUp(at);
      this.#siftDown(this.#positions.get(last.key) ?? at);
    }
    return removed;
  }

  #swap(i: number, j: number): void {
    const a = this.#item(i);
    const b = this.#item(j);
    this.#items[i] = b;
    this.#items[j] = a;
    this.#positions.set(b.key, i);
    this.#positions.set(a.key, j);
  }

  #siftUp(start: number): void {
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(this.#item(i), this.#item(parent))) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #siftDown(start: number): void {
    const n = this.#items.length;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      let smallest = left;
      if (right < n && before(this.#item(right), this.#item(left))) smallest = right;
      if (!before(this.#item(smallest), this.#item(i))) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }

  #heapify(): void {
    this.#items.forEach((entry, index) => this.#positions.set(entry.key, index));
    for (let i = (this.#items.length >> 1) - 1; i >= 0; i--) this.#siftDown(i);
  }
}
