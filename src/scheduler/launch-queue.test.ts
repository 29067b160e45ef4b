import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { createDeferred, TaskSet, type Deferred } from '../common/index.js';
import { LaunchQueue } from './launch-queue.js';

void describe('LaunchQueue', () => {
  void it('launches a burst in slices, yielding between them', async () => {
    const launched: number[] = [];
    const yields: Deferred<void>[] = [];
    const tasks = new TaskSet((error) => assert.fail(String(error)));
    const queue = new LaunchQueue<number>({
      sliceSize: 16,
      launch: (item) => (launched.push(item), true),
      yieldToLoop: () => {
        const next = createDeferred();
        yields.push(next);
        return next.promise;
      },
      tasks,
    });
    queue.enqueue(Array.from({ length: 40 }, (_, i) => i));
    assert.equal(launched.length, 16, 'the first slice runs synchronously');
    await Promise.resolve();
    assert.equal(yields.length, 1);
    queue.enqueue([100]); // joins the burst in progress, behind it
    yields[0]?.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(launched.length, 32);
    yields[1]?.resolve();
    await tasks.close();
    assert.deepEqual(launched, [...Array.from({ length: 40 }, (_, i) => i), 100]);
    assert.equal(queue.pending, 0);
  });

  void it('does not count launches that spent no spawn towards the slice', async () => {
    const tasks = new TaskSet((error) => assert.fail(String(error)));
    let yields = 0;
    const queue = new LaunchQueue<boolean>({
      sliceSize: 2,
      launch: (spawns) => spawns,
      yieldToLoop: () => (yields++, Promise.resolve()),
      tasks,
    });
    queue.enqueue([false, false, false, true, true, false, true]);
    await tasks.close();
    assert.equal(yields, 1);
  });

  void it('clear() hands back what was not launched yet', () => {
    const tasks = new TaskSet((error) => assert.fail(String(error)));
    const queue = new LaunchQueue<number>({
      sliceSize: 1,
      launch: () => true,
      yieldToLoop: () => new Promise(() => {}),
      tasks,
    });
    queue.enqueue([1, 2, 3]);
    assert.deepEqual(queue.clear(), [2, 3]);
    assert.equal(queue.pending, 0);
  });
});
