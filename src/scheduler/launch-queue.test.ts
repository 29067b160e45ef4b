import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { createDeferred, TaskSet, type Deferred } from '../common/index.js';
import { LaunchQueue, type LaunchQueueOptions } from './launch-queue.js';

function tasks(): TaskSet {
  return new TaskSet((error) => assert.fail(String(error)));
}

/** A queue whose yields wait for the test (each yields[i].resolve() runs the next slice). */
function manualQueue<T>(
  options: Partial<LaunchQueueOptions<T>> & Pick<LaunchQueueOptions<T>, 'launch'>,
): { queue: LaunchQueue<T>; yields: Deferred<void>[]; tasks: TaskSet } {
  const yields: Deferred<void>[] = [];
  const set = options.tasks ?? tasks();
  const queue = new LaunchQueue<T>({
    sliceSize: 16,
    sliceBudgetMs: Number.POSITIVE_INFINITY,
    now: () => 0,
    yieldToLoop: () => {
      const next = createDeferred();
      yields.push(next);
      return next.promise;
    },
    tasks: set,
    ...options,
  });
  return { queue, yields, tasks: set };
}

async function nextTurn(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

void describe('LaunchQueue', () => {
  void it('launches a burst in slices, yielding between them', async () => {
    const launched: number[] = [];
    const { queue, yields, tasks } = manualQueue<number>({
      launch: (item) => (launched.push(item), true),
    });
    queue.enqueue(Array.from({ length: 40 }, (_, i) => i));
    assert.equal(launched.length, 16, 'the first slice runs synchronously');
    await Promise.resolve();
    assert.equal(yields.length, 1);
    yields[0]?.resolve();
    await nextTurn();
    assert.equal(launched.length, 32);
    yields[1]?.resolve();
    await tasks.close();
    assert.deepEqual(
      launched,
      Array.from({ length: 40 }, (_, i) => i),
    );
    assert.equal(queue.pending, 0);
  });

  void it('serves batches round-robin: a later batch does not wait for an earlier burst', async () => {
    const launched: string[] = [];
    const { queue, yields, tasks } = manualQueue<string>({
      sliceSize: 4,
      launch: (item) => (launched.push(item), true),
    });
    queue.enqueue(Array.from({ length: 12 }, (_, i) => `burst-${i}`));
    assert.deepEqual(launched, ['burst-0', 'burst-1', 'burst-2', 'burst-3']);
    // Two wakes during the burst: they join the rotation right after the batch served last, so
    // the next slice starts with them, then every batch takes one launch per turn.
    queue.enqueue(['lone-a']);
    queue.enqueue(['x-0', 'x-1', 'x-2']);
    assert.equal(queue.pending, 12);
    yields[0]?.resolve();
    await nextTurn();
    assert.deepEqual(launched.slice(4), ['lone-a', 'x-0', 'burst-4', 'x-1']);
    yields[1]?.resolve();
    await nextTurn();
    assert.deepEqual(launched.slice(8), ['burst-5', 'x-2', 'burst-6', 'burst-7']);
    yields[2]?.resolve();
    await nextTurn();
    yields[3]?.resolve();
    await tasks.close();
    assert.deepEqual(launched.slice(12), ['burst-8', 'burst-9', 'burst-10', 'burst-11']);
    assert.equal(queue.pending, 0);
  });

  void it('ends a slice when its time budget is spent', async () => {
    let nowMs = 0;
    const slices: number[][] = [[]];
    const { queue, yields, tasks } = manualQueue<number>({
      sliceSize: 100,
      sliceBudgetMs: 8,
      now: () => nowMs,
      launch: (item) => {
        slices.at(-1)?.push(item);
        nowMs += 3; // each spawn takes 3 ms
        return true;
      },
    });
    queue.enqueue([0, 1, 2, 3, 4, 5, 6]);
    // 3 launches reach 9 ms >= 8 ms: the slice ends.
    assert.deepEqual(slices, [[0, 1, 2]]);
    slices.push([]);
    yields[0]?.resolve();
    await nextTurn();
    slices.push([]);
    yields[1]?.resolve();
    await tasks.close();
    assert.deepEqual(slices, [[0, 1, 2], [3, 4, 5], [6]]);
  });

  void it('does not count launches that spent no spawn towards the slice', async () => {
    let yields = 0;
    const queue = new LaunchQueue<boolean>({
      sliceSize: 2,
      sliceBudgetMs: Number.POSITIVE_INFINITY,
      now: () => 0,
      launch: (spawns) => spawns,
      yieldToLoop: () => (yields++, Promise.resolve()),
      tasks: tasks(),
    });
    queue.enqueue([false, false, false, true, true, false, true]);
    await Promise.resolve();
    await nextTurn();
    assert.equal(yields, 1);
    assert.equal(queue.pending, 0);
  });

  void it('clear() hands back what was not launched yet, oldest batch first', () => {
    const { queue } = manualQueue<number>({ sliceSize: 1, launch: () => true });
    queue.enqueue([1, 2, 3]);
    queue.enqueue([4, 5]);
    assert.deepEqual(queue.clear(), [2, 3, 4, 5]);
    assert.equal(queue.pending, 0);
  });
});
