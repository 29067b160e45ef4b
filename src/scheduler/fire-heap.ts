// The next-fire index: a binary min-heap of (instant, config order) nodes. One heap for every cron
// job, so 100k jobs cost O(log n) per fire and one timer, not 100k timers. Ties on the instant are
// broken by config order.
//
// The nodes are the caller's own objects (the scheduler's per-job entries), each carrying its
// heap position: no key → position map to keep up to date on every swap, no extra object per job,
// and moving or removing a node is O(log n) with no lookup.

export interface FireNode {
  /** The pending fire instant (meaningful while the node is in a heap). */
  atMs: number;
  /** Tie-break among nodes due at the same instant: lower fires first. */
  order: number;
  /** Position in the heap array, or -1 when in no heap. Owned by FireHeap. */
  heapIndex: number;
}

function before(a: FireNode, b: FireNode): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.order < b.order);
}

export class FireHeap<N extends FireNode> {
  #items: N[] = [];

  /** Build from distinct nodes with their atMs and order set, in O(n) (Floyd's heapify). */
  static from<N extends FireNode>(nodes: readonly N[]): FireHeap<N> {
    const heap = new FireHeap<N>();
    heap.#items = nodes.slice();
    heap.#heapify();
    return heap;
  }

  get size(): number {
    return this.#items.length;
  }

  has(node: N): boolean {
    return node.heapIndex >= 0 && this.#items[node.heapIndex] === node;
  }

  peek(): N | undefined {
    return this.#items[0];
  }

  /** Insert the node at `atMs`, or move it there when it is in the heap already. */
  set(node: N, atMs: number): void {
    node.atMs = atMs;
    if (this.has(node)) {
      this.#siftUp(node);
      this.#siftDown(node);
      return;
    }
    node.heapIndex = this.#items.length;
    this.#items.push(node);
    this.#siftUp(node);
  }

  delete(node: N): boolean {
    if (!this.has(node)) return false;
    this.#remove(node);
    return true;
  }

  /** Put `next` in `previous`'s place with `previous`'s instant (and `next`'s own order). */
  replace(previous: N, next: N): void {
    if (previous === next || !this.has(previous)) return;
    if (this.has(next)) this.#remove(next);
    const at = previous.heapIndex;
    next.atMs = previous.atMs;
    next.heapIndex = at;
    previous.heapIndex = -1;
    this.#items[at] = next;
    this.#siftUp(next);
    this.#siftDown(next);
  }

  pop(): N | undefined {
    const top = this.#items[0];
    if (top !== undefined) this.#remove(top);
    return top;
  }

  /**
   * Remove and return every node due at or before `nowMs`, in no particular order (the caller
   * orders them). A burst that empties much of the heap is cut out in one O(n) rebuild instead
   * of k sifted removals (1,000 cold removals took ~2 ms of a burst's decision pass).
   */
  popDue(nowMs: number): N[] {
    const items = this.#items;
    const due: N[] = [];
    if (items.length === 0 || (items[0] as N).atMs > nowMs) return due;
    // The due nodes form a subtree at the root: a node that is not due has no due descendant.
    // (Children are checked against the length before they are read: out-of-bounds reads are
    // slow in V8.)
    const n = items.length;
    const stack: number[] = [0];
    while (stack.length > 0) {
      const at = stack.pop() as number;
      const entry = items[at] as N;
      if (entry.atMs > nowMs) continue;
      due.push(entry);
      const left = 2 * at + 1;
      if (left < n) stack.push(left);
      if (left + 1 < n) stack.push(left + 1);
    }
    if (due.length * (32 - Math.clz32(n)) < n) {
      for (const entry of due) this.#remove(entry);
      return due;
    }
    for (const entry of due) entry.heapIndex = -1;
    let kept = 0;
    for (let at = 0; at < n; at++) {
      const entry = items[at] as N;
      if (entry.heapIndex !== -1) items[kept++] = entry;
    }
    items.length = kept;
    this.#heapify();
    return due;
  }

  /** Restore heap order after nodes' `order` changed (a reload renumbers jobs). */
  reorder(): void {
    this.#heapify();
  }

  /** Nodes in heap order (not sorted); for inspection and tests. */
  entries(): readonly N[] {
    return this.#items;
  }

  #remove(node: N): void {
    const items = this.#items;
    const at = node.heapIndex;
    const last = items.pop() as N;
    node.heapIndex = -1;
    if (last !== node) {
      items[at] = last;
      last.heapIndex = at;
      this.#siftUp(last);
      this.#siftDown(last);
    }
  }

  #siftUp(node: N): void {
    const items = this.#items;
    let i = node.heapIndex;
    while (i > 0) {
      const parentAt = (i - 1) >> 1;
      const parent = items[parentAt] as N;
      if (!before(node, parent)) break;
      items[i] = parent;
      parent.heapIndex = i;
      i = parentAt;
    }
    items[i] = node;
    node.heapIndex = i;
  }

  #siftDown(node: N): void {
    const items = this.#items;
    const n = items.length;
    let i = node.heapIndex;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      let childAt = left;
      let child = items[left] as N;
      if (left + 1 < n) {
        const right = items[left + 1] as N;
        if (before(right, child)) {
          childAt = left + 1;
          child = right;
        }
      }
      if (!before(child, node)) break;
      items[i] = child;
      child.heapIndex = i;
      i = childAt;
    }
    items[i] = node;
    node.heapIndex = i;
  }

  #heapify(): void {
    const items = this.#items;
    for (let i = 0; i < items.length; i++) (items[i] as N).heapIndex = i;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.#siftDown(items[i] as N);
  }
}
