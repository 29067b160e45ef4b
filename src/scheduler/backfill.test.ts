// A backfill waits for its job to go idle: without bound for a Forbid job (a launch beside a
// running instance would be swallowed), at most BACKFILL_IDLE_WAIT_MS for Allow and Replace, as
// the reference bounds it, so a job whose runs always overlap still gets its backfill.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeJob } from '../config/testing.js';
import { BACKFILL_IDLE_WAIT_MS } from './backfill.js';
import { createHarness } from './test-harness.js';

const SLOT_MS = Date.UTC(2026, 0, 1);

void test('an Allow job still running after the bound gets its backfill beside it, with a log line', async () => {
  const h = createHarness([makeJob({ name: 'a', concurrencyPolicy: 'Allow' })]);
  h.scheduler.start();
  const manual = h.scheduler.startJob('a');
  await h.clock.advance(0);
  assert.equal((await manual).kind, 'started');
  const backfill = h.scheduler.runBackfill('a', SLOT_MS);
  await h.clock.advance(BACKFILL_IDLE_WAIT_MS - 1);
  assert.equal(h.runner.runsOf('a').length, 1, 'waits while within the bound');
  await h.clock.advance(1);
  assert.equal(h.runner.runsOf('a').length, 2, 'launched beside the running instance');
  assert.equal(
    h.logged(
      'catch-up: job a is still running after 30 s (concurrencyPolicy Allow); launching its backfill of 2026-01-01T00:00:00',
    ).length,
    1,
  );
  h.runner.last('a').succeed();
  const summary = await backfill;
  assert.equal(summary?.outcome, 'success');
  await h.stop();
});

void test('an Allow job that goes idle within the bound gets its backfill at once, no log line', async () => {
  const h = createHarness([makeJob({ name: 'a', concurrencyPolicy: 'Allow' })]);
  h.scheduler.start();
  void h.scheduler.startJob('a');
  await h.clock.advance(0);
  const backfill = h.scheduler.runBackfill('a', SLOT_MS);
  await h.clock.advance(5_000);
  h.runner.last('a').succeed();
  await h.clock.advance(0);
  assert.equal(h.runner.runsOf('a').length, 2);
  assert.equal(h.logged('catch-up: job a is still running').length, 0);
  h.runner.last('a').succeed();
  assert.equal((await backfill)?.outcome, 'success');
  await h.stop();
});

void test('a Forbid job waits without bound: no backfill beside a running instance', async () => {
  const h = createHarness([makeJob({ name: 'f', concurrencyPolicy: 'Forbid' })]);
  h.scheduler.start();
  void h.scheduler.startJob('f');
  await h.clock.advance(0);
  const backfill = h.scheduler.runBackfill('f', SLOT_MS);
  await h.clock.advance(10 * BACKFILL_IDLE_WAIT_MS);
  assert.equal(h.runner.runsOf('f').length, 1, 'still waiting');
  h.runner.last('f').succeed();
  await h.clock.advance(0);
  assert.equal(h.runner.runsOf('f').length, 2);
  h.runner.last('f').succeed();
  assert.equal((await backfill)?.outcome, 'success');
  await h.stop();
});
