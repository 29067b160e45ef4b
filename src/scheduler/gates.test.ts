import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { checkEnabled, checkOnlyIfLastSucceeded, decideConcurrency } from './gates.js';
import { makeJob } from '../config/testing.js';

void describe('gates', () => {
  void it('checkEnabled() skips a disabled job', () => {
    assert.deepEqual(checkEnabled(makeJob()), { kind: 'run' });
    assert.deepEqual(checkEnabled(makeJob({ enabled: false })), {
      kind: 'skip',
      reason: 'disabled',
    });
  });

  void it('checkOnlyIfLastSucceeded() is a no-op unless the job opts in', () => {
    const facts = { activeInstances: 3, lastRealOutcome: 'failure' as const };
    assert.deepEqual(checkOnlyIfLastSucceeded(makeJob(), facts), { kind: 'run' });
  });

  void it('checkOnlyIfLastSucceeded() skips after a failure or while an instance runs', () => {
    const job = makeJob({ onlyIfLastSucceeded: true });
    assert.equal(
      checkOnlyIfLastSucceeded(job, { activeInstances: 0, lastRealOutcome: null }).kind,
      'run',
    );
    assert.equal(
      checkOnlyIfLastSucceeded(job, { activeInstances: 0, lastRealOutcome: 'success' }).kind,
      'run',
    );
    assert.deepEqual(
      checkOnlyIfLastSucceeded(job, { activeInstances: 0, lastRealOutcome: 'failure' }),
      { kind: 'skip', reason: 'only-if-last-succeeded', detail: 'the last run failed' },
    );
    assert.equal(
      checkOnlyIfLastSucceeded(job, { activeInstances: 1, lastRealOutcome: 'success' }).kind,
      'skip',
    );
  });

  void it('checkOnlyIfLastSucceeded() lets Replace through while an instance runs', () => {
    const job = makeJob({ onlyIfLastSucceeded: true, concurrencyPolicy: 'Replace' });
    assert.equal(
      checkOnlyIfLastSucceeded(job, { activeInstances: 1, lastRealOutcome: 'success' }).kind,
      'run',
    );
    assert.equal(
      checkOnlyIfLastSucceeded(job, { activeInstances: 1, lastRealOutcome: 'failure' }).kind,
      'skip',
    );
  });

  void it('decideConcurrency() follows the policy only when something is active', () => {
    assert.deepEqual(decideConcurrency('Forbid', 0), { kind: 'run' });
    assert.deepEqual(decideConcurrency('Allow', 2), { kind: 'run' });
    assert.deepEqual(decideConcurrency('Forbid', 1), { kind: 'skip', reason: 'forbid' });
    assert.deepEqual(decideConcurrency('Replace', 1), { kind: 'replace' });
  });
});
