import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDeferred, isYacronError, FakeClock, flushMicrotasks } from '../common/index.js';
import { SCHEDULING_READ_TIMEOUT_MS, withTimeout } from './with-timeout.js';

void test('withTimeout() passes through an answer that comes in time and cancels its timer', async () => {
  const clock = new FakeClock();
  const read = createDeferred<number>();
  const bounded = withTimeout(read.promise, SCHEDULING_READ_TIMEOUT_MS, clock);
  await clock.advance(9_999);
  read.resolve(7);
  assert.equal(await bounded, 7);
  assert.equal(clock.pendingTimers, 0);
});

void test('withTimeout() rejects with YC_ERR_STATE_TIMEOUT after 10 s and swallows the late result', async () => {
  const clock = new FakeClock();
  const read = createDeferred<number>();
  const bounded = withTimeout(
    read.promise,
    SCHEDULING_READ_TIMEOUT_MS,
    clock,
    'read the run ledger',
  );
  let failure: unknown;
  bounded.catch((error: unknown) => (failure = error));
  await clock.advance(SCHEDULING_READ_TIMEOUT_MS);
  await flushMicrotasks();
  assert.ok(isYacronError(failure, 'YC_ERR_STATE_TIMEOUT'));
  assert.match((failure as Error).message, /^Cannot read the run ledger: no answer within 10 s$/);
  read.reject(new Error('late NFS error')); // must not surface as an unhandled rejection
  await flushMicrotasks();
});

void test('withTimeout() passes an early failure through unchanged', async () => {
  const clock = new FakeClock();
  const boom = new Error('EIO');
  await assert.rejects(withTimeout(Promise.reject(boom), 10_000, clock), (error) => error === boom);
  assert.equal(clock.pendingTimers, 0);
});
