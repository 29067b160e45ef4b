import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeJob } from '../config/testing.js';
import { JobRuntime } from './job-runtime.js';

const fields = {
  job: makeJob({ name: 'j', schedule: '* * * * *' }),
  trigger: 'schedule' as const,
  scheduledAtMs: 0,
  ladder: null,
  replace: false,
  decidedAtMs: 0,
};

void describe('JobRuntime and its launch tickets', () => {
  void it('counts a launch as planned from plan() until its ticket is consumed', () => {
    const runtime = new JobRuntime();
    const first = runtime.plan(fields);
    const second = runtime.plan(fields);
    assert.equal(runtime.planned, 2);
    assert.equal(runtime.active, 2);
    first.consume();
    assert.equal(runtime.planned, 1);
    second.consume();
    assert.equal(runtime.planned, 0);
    assert.ok(runtime.idle);
  });

  void it('a ticket consumed twice throws and leaves the count alone', () => {
    const runtime = new JobRuntime();
    const ticket = runtime.plan(fields);
    runtime.plan(fields);
    ticket.consume();
    assert.throws(() => ticket.consume(), /consumed already/);
    assert.equal(runtime.planned, 1);
  });

  void it('a ticket carries the attempt of its ladder (0 without one)', () => {
    const runtime = new JobRuntime();
    const ticket = runtime.plan(fields);
    assert.equal(ticket.kind, 'launch');
    assert.equal(ticket.attempt, 0);
  });
});
