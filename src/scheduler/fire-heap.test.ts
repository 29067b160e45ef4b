import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { FireHeap, type FireNode } from './fire-heap.js';

interface Node extends FireNode {
  readonly key: string;
}

function node(key: string, order: number, atMs = 0): Node {
  return { key, atMs, order, heapIndex: -1 };
}

/** Nodes by key, created on first use (the scheduler's job table plays this part). */
class Keyed {
  readonly heap: FireHeap<Node>;
  readonly nodes = new Map<string, Node>();
  constructor(heap = new FireHeap<Node>()) {
    this.heap = heap;
  }
  set(key: string, atMs: number, order: number): void {
    let entry = this.nodes.get(key);
    if (!entry) {
      entry = node(key, order);
      this.nodes.set(key, entry);
    }
    entry.order = order;
    this.heap.set(entry, atMs);
  }
  delete(key: string): boolean {
    const entry = this.nodes.get(key);
    return entry !== undefined && this.heap.delete(entry);
  }
  get(key: string): number | undefined {
    const entry = this.nodes.get(key);
    return entry && this.heap.has(entry) ? entry.atMs : undefined;
  }
}

function drain(heap: FireHeap<Node>): string[] {
  const keys: string[] = [];
  for (let entry = heap.pop(); entry; entry = heap.pop()) keys.push(entry.key);
  return keys;
}

/** A deterministic pseudo-random sequence (no Math.random in tests). */
function* lcg(seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    yield x;
  }
}

void describe('FireHeap', () => {
  void it('pops entries soonest first, ties broken by config order', () => {
    const keyed = new Keyed();
    keyed.set('c', 300, 0);
    keyed.set('b', 100, 2);
    keyed.set('a', 100, 1);
    keyed.set('d', 200, 3);
    assert.deepEqual(drain(keyed.heap), ['a', 'b', 'd', 'c']);
  });

  void it('keeps heap order over thousands of random inserts, moves and deletes', () => {
    const keyed = new Keyed();
    const rand = lcg(42);
    const expected = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const key = `job-${rand.next().value % 1500}`;
      const op = rand.next().value % 4;
      if (op === 0) {
        keyed.delete(key);
        expected.delete(key);
      } else {
        const at = rand.next().value % 100_000;
        keyed.set(key, at, Number(key.slice(4)));
        expected.set(key, at);
      }
    }
    assert.equal(keyed.heap.size, expected.size);
    for (const [key, at] of expected) assert.equal(keyed.get(key), at);
    for (const [index, entry] of keyed.heap.entries().entries()) {
      assert.equal(entry.heapIndex, index);
    }
    const sorted = [...expected].sort(
      ([ka, a], [kb, b]) => a - b || Number(ka.slice(4)) - Number(kb.slice(4)),
    );
    assert.deepEqual(
      drain(keyed.heap),
      sorted.map(([key]) => key),
    );
    for (const entry of keyed.nodes.values()) assert.equal(entry.heapIndex, -1);
  });

  void it('holds each node once: set() moves a node already in the heap', () => {
    const keyed = new Keyed();
    keyed.set('a', 500, 0);
    keyed.set('b', 400, 1);
    keyed.set('a', 100, 0);
    assert.equal(keyed.heap.size, 2);
    assert.equal(keyed.heap.peek()?.key, 'a');
    keyed.set('a', 900, 0);
    assert.equal(keyed.heap.peek()?.key, 'b');
  });

  void it('knows its own nodes: has() and delete() ignore a node of another heap', () => {
    const one = new FireHeap<Node>();
    const other = new FireHeap<Node>();
    const a = node('a', 0);
    const b = node('b', 1);
    one.set(a, 10);
    other.set(b, 20);
    assert.equal(one.has(b), false);
    assert.equal(one.delete(b), false);
    assert.equal(other.has(b), true);
    assert.equal(one.size, 1);
  });

  void it('popDue() removes exactly the entries at or before now', () => {
    const heap = FireHeap.from([node('a', 0, 10), node('b', 1, 20), node('c', 2, 30)]);
    assert.deepEqual(
      heap
        .popDue(20)
        .map((entry) => entry.key)
        .sort(),
      ['a', 'b'],
    );
    assert.equal(heap.size, 1);
    assert.deepEqual(heap.popDue(29), []);
  });

  void it('popDue() keeps the heap intact whether it removes a few nodes or most of them', () => {
    const rand = lcg(7);
    for (const dueShare of [0.001, 0.01, 0.3, 0.9, 1]) {
      const nodes = Array.from({ length: 2000 }, (_, i) =>
        node(`n${i}`, i, rand.next().value % 100_000),
      );
      const heap = FireHeap.from(nodes);
      const cut = Math.floor(dueShare * 100_000);
      const due = heap.popDue(cut);
      const expectedDue = nodes.filter((entry) => entry.atMs <= cut);
      assert.equal(due.length, expectedDue.length, `share ${dueShare}`);
      assert.ok(due.every((entry) => entry.atMs <= cut && entry.heapIndex === -1));
      assert.equal(heap.size, nodes.length - due.length);
      for (const [index, entry] of heap.entries().entries()) assert.equal(entry.heapIndex, index);
      const rest = drain(heap);
      const expectedRest = nodes
        .filter((entry) => entry.atMs > cut)
        .sort((a, b) => a.atMs - b.atMs || a.order - b.order)
        .map((entry) => entry.key);
      assert.deepEqual(rest, expectedRest, `share ${dueShare}`);
    }
  });

  void it('from() heapifies and reorder() applies changed tie-breaks', () => {
    const nodes = [node('x', 0, 5), node('y', 1, 5), node('z', 2, 1)];
    const heap = FireHeap.from(nodes);
    const orders: Record<string, number> = { x: 2, y: 0, z: 1 };
    for (const entry of nodes) entry.order = orders[entry.key] ?? 0;
    heap.reorder();
    assert.deepEqual(drain(heap), ['z', 'y', 'x']);
  });

  void it('replace() hands a node its predecessor’s slot and instant', () => {
    const heap = FireHeap.from([node('a', 0, 10), node('b', 1, 20), node('c', 2, 30)]);
    const [, b] = [...heap.entries()].sort((p, q) => p.atMs - q.atMs);
    assert.ok(b);
    const successor = node('b', 1);
    heap.replace(b, successor);
    assert.equal(heap.has(b), false);
    assert.equal(b.heapIndex, -1);
    assert.equal(heap.has(successor), true);
    assert.equal(successor.atMs, 20);
    assert.deepEqual(drain(heap), ['a', 'b', 'c']);
    // A node not in the heap has nothing to hand over.
    const stray = node('s', 3);
    heap.replace(stray, node('t', 4));
    assert.equal(heap.size, 0);
  });
});
