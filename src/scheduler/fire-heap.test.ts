import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { FireHeap } from './fire-heap.js';

function drain(heap: FireHeap): string[] {
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
    const heap = new FireHeap();
    heap.set('c', 300, 0);
    heap.set('b', 100, 2);
    heap.set('a', 100, 1);
    heap.set('d', 200, 3);
    assert.deepEqual(drain(heap), ['a', 'b', 'd', 'c']);
  });

  void it('keeps heap order over thousands of random inserts, moves and deletes', () => {
    const heap = new FireHeap();
    const rand = lcg(42);
    const expected = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const key = `job-${rand.next().value % 1500}`;
      const op = rand.next().value % 4;
      if (op === 0) {
        heap.delete(key);
        expected.delete(key);
      } else {
        const at = rand.next().value % 100_000;
        heap.set(key, at, Number(key.slice(4)));
        expected.set(key, at);
      }
    }
    assert.equal(heap.size, expected.size);
    for (const [key, at] of expected) assert.equal(heap.get(key), at);
    const sorted = [...expected].sort(
      ([ka, a], [kb, b]) => a - b || Number(ka.slice(4)) - Number(kb.slice(4)),
    );
    assert.deepEqual(
      drain(heap),
      sorted.map(([key]) => key),
    );
  });

  void it('holds each key once: set() moves an existing key', () => {
    const heap = new FireHeap();
    heap.set('a', 500, 0);
    heap.set('b', 400, 1);
    heap.set('a', 100, 0);
    assert.equal(heap.size, 2);
    assert.equal(heap.peek()?.key, 'a');
    heap.set('a', 900, 0);
    assert.equal(heap.peek()?.key, 'b');
  });

  void it('popDue() removes exactly the entries at or before now', () => {
    const heap = FireHeap.from([
      { key: 'a', atMs: 10, order: 0 },
      { key: 'b', atMs: 20, order: 1 },
      { key: 'c', atMs: 30, order: 2 },
    ]);
    assert.deepEqual(
      heap.popDue(20).map((entry) => entry.key),
      ['a', 'b'],
    );
    assert.equal(heap.size, 1);
    assert.deepEqual(heap.popDue(29), []);
  });

  void it('from() heapifies and reorder() re-keys the tie-break', () => {
    const heap = FireHeap.from([
      { key: 'x', atMs: 5, order: 0 },
      { key: 'y', atMs: 5, order: 1 },
      { key: 'z', atMs: 1, order: 2 },
    ]);
    heap.reorder((key) => ({ x: 2, y: 0, z: 1 })[key] ?? 0);
    assert.deepEqual(drain(heap), ['z', 'y', 'x']);
  });
});
