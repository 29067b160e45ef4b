import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDeferred, FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { ShutdownSteps } from './shutdown-steps.js';

test('a step that hangs is abandoned at the deadline and the steps after it still run', async () => {
  const clock = new FakeClock();
  const hung = createDeferred<void>();
  const ran: string[] = [];
  const steps = new ShutdownSteps(clock, silentLogger(), [
    { what: 'the reports', run: () => Promise.resolve(void ran.push('reports')) },
    { what: 'the state store', run: () => hung.promise },
    { what: 'the control API', run: () => Promise.resolve(void ran.push('web')) },
    { what: 'nothing to close', run: () => undefined },
  ]);
  assert.equal(steps.pending.length, 4);
  const running = steps.run(clock.monotonic() + 5_000);
  await clock.advance(0);
  assert.deepEqual(ran, ['reports']);
  assert.deepEqual(steps.pending, ['the state store', 'the control API', 'nothing to close']);
  await clock.advance(4_999);
  assert.deepEqual(steps.abandoned, []);
  await clock.advance(1);
  await running;
  assert.deepEqual(ran, ['reports', 'web']);
  assert.deepEqual(steps.abandoned, ['the state store']);
  assert.deepEqual(steps.pending, []);
});

test('a failing step is logged, not abandoned; a past deadline still lets settled work count', async () => {
  const clock = new FakeClock();
  const errors: string[] = [];
  const logger = {
    ...silentLogger(),
    error: (msg: string | object) => void errors.push(typeof msg === 'string' ? msg : ''),
  };
  const steps = new ShutdownSteps(clock, logger, [
    { what: 'the job API', run: () => Promise.reject(new Error('boom')) },
    { what: 'the durable state', run: () => Promise.resolve() },
  ]);
  await steps.run(clock.monotonic() - 1);
  assert.deepEqual(steps.abandoned, []);
  assert.deepEqual(errors, ['Cannot stop the job API: boom']);
});

test('awaited steps run to their end, a failing one does not stop the rest, and its error is thrown last', async () => {
  const clock = new FakeClock();
  const ran: string[] = [];
  let deadlineAsked = 0;
  const steps = new ShutdownSteps(clock, silentLogger(), [
    { kind: 'awaited', what: 'firing', run: () => void ran.push('firing') },
    {
      kind: 'awaited',
      what: 'the cluster manager',
      run: () => Promise.reject(new Error('cluster')),
    },
    { kind: 'awaited', what: 'the drain', run: () => clock.advance(10_000) },
    { what: 'the reports', run: () => Promise.resolve(void ran.push('reports')) },
    { kind: 'awaited', what: 'the spawn helper', run: () => void ran.push('spawner') },
  ]);
  // Only the bounded steps are ever named as pending.
  assert.deepEqual(steps.pending, ['the reports']);
  await assert.rejects(
    steps.run(() => {
      deadlineAsked += 1;
      return clock.monotonic() + 5_000;
    }),
    { message: 'cluster' },
  );
  assert.deepEqual(ran, ['firing', 'reports', 'spawner']);
  // The deadline is asked once, when the first bounded step starts (after the drain).
  assert.equal(deadlineAsked, 1);
  assert.deepEqual(steps.abandoned, []);
  assert.deepEqual(steps.pending, []);
});
