// settlesWithin(): the bounded wait of every close, on the injected clock.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createDeferred } from './deferred.js';
import { FakeClock } from './fake-clock.js';
import { settlesWithin } from './settle-within.js';

void test('work that settles within the budget answers true and disarms the timer', async () => {
  const clock = new FakeClock();
  const work = createDeferred();
  const answer = settlesWithin(work.promise, 5000, clock);
  assert.equal(clock.pendingTimers, 1);
  await clock.advance(4999);
  work.resolve();
  assert.equal(await answer, true);
  assert.equal(clock.pendingTimers, 0);
});

void test('a rejection counts as settled (the caller handles it on the work)', async () => {
  const clock = new FakeClock();
  const work = createDeferred();
  const answer = settlesWithin(work.promise, 5000, clock);
  work.reject(new Error('store unmounted'));
  assert.equal(await answer, true);
  assert.equal(clock.pendingTimers, 0);
});

void test('work still running when the budget runs out answers false, not earlier', async () => {
  const clock = new FakeClock();
  let answered: boolean | undefined;
  const answer = settlesWithin(new Promise<never>(() => undefined), 5000, clock).then(
    (value) => (answered = value),
  );
  await clock.advance(4999);
  assert.equal(answered, undefined);
  await clock.advance(1);
  assert.equal(await answer, false);
  assert.equal(clock.pendingTimers, 0);
});

void test('an infinite budget waits without a timer', async () => {
  const clock = new FakeClock();
  const work = createDeferred();
  const answer = settlesWithin(work.promise, Infinity, clock);
  assert.equal(clock.pendingTimers, 0);
  work.resolve();
  assert.equal(await answer, true);
});

void test('a spent budget (zero or less) still lets settled work answer true', async () => {
  const clock = new FakeClock();
  assert.equal(await settlesWithin(Promise.resolve(), -20, clock), true);
  const late = settlesWithin(new Promise<never>(() => undefined), 0, clock);
  await clock.advance(0);
  assert.equal(await late, false);
});

void test('the timer is cancelled in the turn the work settles', async () => {
  const clock = new FakeClock();
  const work = createDeferred();
  const answer = settlesWithin(work.promise, 5000, clock);
  let pendingWhenSettled = -1;
  void work.promise.then(() => (pendingWhenSettled = clock.pendingTimers));
  work.resolve();
  await answer;
  assert.equal(pendingWhenSettled, 0);
});
