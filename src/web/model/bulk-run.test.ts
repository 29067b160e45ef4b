import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, flushMicrotasks } from '../../common/index.js';
import { runStaggered, type BulkResult } from './bulk-run.js';

describe('runStaggered', () => {
  it('spaces the calls by the stagger and reports each result', async () => {
    const clock = new FakeClock();
    const calls: [string, number][] = [];
    const results: BulkResult[] = [];
    const done = runStaggered(
      ['a', 'b', 'c'],
      (job) => {
        calls.push([job, clock.monotonic()]);
        return job === 'b' ? Promise.reject(new Error('409 not running')) : Promise.resolve();
      },
      {
        clock,
        staggerMs: 300,
        signal: new AbortController().signal,
        onResult: (r) => results.push(r),
      },
    );
    await flushMicrotasks();
    await clock.advance(300);
    await clock.advance(300);
    assert.deepEqual(await done, { ok: 2, failed: 1, skipped: 0 });
    assert.deepEqual(
      calls.map(([job, at]) => [job, at - calls[0]![1]]),
      [
        ['a', 0],
        ['b', 300],
        ['c', 600],
      ],
    );
    assert.deepEqual(results[1], { job: 'b', kind: 'failed', error: '409 not running' });
  });

  it('skips the remaining jobs once aborted', async () => {
    const clock = new FakeClock();
    const abort = new AbortController();
    const calls: string[] = [];
    const done = runStaggered(
      ['a', 'b', 'c'],
      (job) => {
        calls.push(job);
        return Promise.resolve();
      },
      { clock, staggerMs: 300, signal: abort.signal, onResult: () => undefined },
    );
    await flushMicrotasks();
    abort.abort();
    assert.deepEqual(await done, { ok: 1, failed: 0, skipped: 2 });
    assert.deepEqual(calls, ['a']);
  });
});
