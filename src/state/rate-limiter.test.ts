import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock, flushMicrotasks } from '../common/index.js';
import { TokenBucket } from './rate-limiter.js';

void test('a token bucket lets one second of operations through at once, then queues at the rate', async () => {
  const clock = new FakeClock();
  const bucket = new TokenBucket(4, clock);
  const immediate = await Promise.all([bucket.take(), bucket.take(), bucket.take(), bucket.take()]);
  assert.deepEqual(immediate, [0, 0, 0, 0], 'burst = one second of tokens');
  const order: number[] = [];
  const waits = [1, 2, 3].map((n) =>
    bucket.take().then((waitedMs) => {
      order.push(n);
      return waitedMs;
    }),
  );
  await flushMicrotasks();
  assert.equal(bucket.queued, 3);
  await clock.advance(249);
  assert.deepEqual(order, []);
  await clock.advance(1);
  assert.deepEqual(order, [1]);
  await clock.advance(500);
  assert.deepEqual(order, [1, 2, 3], 'first come, first served');
  assert.deepEqual(await Promise.all(waits), [250, 500, 750]);
});

void test('an idle bucket refills up to its burst, not beyond', async () => {
  const clock = new FakeClock();
  const bucket = new TokenBucket(2, clock);
  await bucket.take();
  await bucket.take();
  await clock.advance(60_000);
  assert.deepEqual(await Promise.all([bucket.take(), bucket.take()]), [0, 0]);
  let third = -1;
  void bucket.take().then((waitedMs) => (third = waitedMs));
  await flushMicrotasks();
  assert.equal(third, -1);
  await clock.advance(500);
  assert.equal(third, 500);
});

void test('close() releases every queued operation at once', async () => {
  const clock = new FakeClock();
  const bucket = new TokenBucket(1, clock);
  await bucket.take();
  const queued = [bucket.take(), bucket.take()];
  await clock.advance(10);
  bucket.close();
  assert.deepEqual(await Promise.all(queued), [10, 10]);
  assert.equal(await bucket.take(), 0, 'a closed bucket never queues');
  assert.equal(clock.pendingTimers, 0);
});
