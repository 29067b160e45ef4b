import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDeferred, FakeClock, flushMicrotasks } from '../../common/index.js';
import { firstJobsIn, takeFirstJobs, type FirstJobs, type FirstJobsAnswer } from './first-jobs.js';

function pending(answer: Promise<FirstJobsAnswer>): FirstJobs {
  const early: FirstJobs = {
    token: null,
    answer: answer.then((settled) => (early.settled = settled)),
    settled: null,
  };
  return early;
}

describe('takeFirstJobs', () => {
  const sent = (token: string | null): FirstJobs => ({
    ...pending(Promise.resolve({ kind: 'none' })),
    token,
  });

  it('hands the request over only when the app sends the token it carried', () => {
    const secret = sent('secret');
    assert.equal(takeFirstJobs(secret, 'secret'), secret);
    const none = sent(null);
    assert.equal(takeFirstJobs(none, null), none);
    assert.equal(takeFirstJobs(sent('old'), 'new'), null);
    assert.equal(takeFirstJobs(sent(null), 'typed-later'), null);
    assert.equal(takeFirstJobs(undefined, null), null);
  });
});

describe('firstJobsIn', () => {
  it('resolves when the answer comes in, before the wait is over', async () => {
    const clock = new FakeClock();
    const answer = createDeferred<FirstJobsAnswer>();
    const early = pending(answer.promise);
    let ready = false;
    void firstJobsIn(early, clock, 400).then(() => (ready = true));
    await flushMicrotasks();
    assert.equal(ready, false);
    answer.resolve({ kind: 'body', text: '[]' });
    await flushMicrotasks();
    assert.equal(ready, true);
    assert.deepEqual(early.settled, { kind: 'body', text: '[]' });
    assert.equal(clock.pendingTimers, 0);
  });

  it('gives up waiting after the bound, with the answer still out', async () => {
    const clock = new FakeClock();
    const early = pending(createDeferred<FirstJobsAnswer>().promise);
    let ready = false;
    void firstJobsIn(early, clock, 400).then(() => (ready = true));
    await clock.advance(399);
    assert.equal(ready, false);
    await clock.advance(1);
    assert.equal(ready, true);
    assert.equal(early.settled, null);
  });

  it('resolves at once when the answer is already in', async () => {
    const early = pending(Promise.resolve({ kind: 'none' }));
    await flushMicrotasks();
    let ready = false;
    void firstJobsIn(early, new FakeClock(), 400).then(() => (ready = true));
    await flushMicrotasks();
    assert.equal(ready, true);
  });
});
