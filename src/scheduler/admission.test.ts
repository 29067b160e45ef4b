import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeJob, type MakeJobOverrides } from '../config/testing.js';
import { decide, RUN_VERDICT, type AdmissionFacts } from './admission.js';
import type { JobTrigger } from './types.js';

const IDLE: AdmissionFacts = { activeInstances: 0, leadership: RUN_VERDICT, lastRealOutcome: null };
const job = (overrides: MakeJobOverrides = {}) =>
  makeJob({ name: 'j', schedule: '* * * * *', ...overrides });
const TRIGGERS: readonly JobTrigger[] = ['schedule', 'reboot', 'retry', 'manual', 'catchup'];

void describe('decide()', () => {
  void it('refuses a disabled job for every trigger, before any other gate', () => {
    for (const trigger of TRIGGERS) {
      const result = decide(job({ enabled: false }), trigger, {
        activeInstances: 3,
        leadership: { kind: 'skip', reason: 'cluster' },
        lastRealOutcome: 'failure',
      });
      assert.deepEqual(result, {
        kind: 'skip',
        reason: 'disabled',
        gate: 'enabled',
        ladderReset: false,
      });
    }
  });

  void it('applies the leadership verdict to every trigger but a manual start', () => {
    const facts: AdmissionFacts = {
      ...IDLE,
      leadership: { kind: 'skip', reason: 'cluster', detail: 'not the leader' },
    };
    for (const trigger of ['schedule', 'reboot', 'retry', 'catchup'] as const) {
      assert.deepEqual(decide(job(), trigger, facts), {
        kind: 'skip',
        reason: 'cluster',
        detail: 'not the leader',
        gate: 'leadership',
        ladderReset: false,
      });
    }
    assert.equal(decide(job(), 'manual', facts).kind, 'launch');
  });

  void it('gates onlyIfLastSucceeded on scheduled and @reboot fires only, leaving the ladder alone', () => {
    const gated = job({ onlyIfLastSucceeded: true });
    const failed: AdmissionFacts = { ...IDLE, lastRealOutcome: 'failure' };
    for (const trigger of ['schedule', 'reboot'] as const) {
      assert.deepEqual(decide(gated, trigger, failed), {
        kind: 'skip',
        reason: 'only-if-last-succeeded',
        detail: 'the last run failed',
        gate: 'only-if-last-succeeded',
        ladderReset: false,
      });
    }
    for (const trigger of ['retry', 'manual', 'catchup'] as const) {
      assert.equal(decide(gated, trigger, failed).kind, 'launch', trigger);
    }
    const running = decide(gated, 'schedule', { ...IDLE, activeInstances: 1 });
    assert.equal(running.kind === 'skip' && running.detail, 'an instance is still running');
    // Replace may replace a running instance of an onlyIfLastSucceeded job.
    const replace = decide(
      job({ onlyIfLastSucceeded: true, concurrencyPolicy: 'Replace' }),
      'schedule',
      {
        ...IDLE,
        activeInstances: 1,
      },
    );
    assert.equal(replace.kind === 'launch' && replace.plan.replace, true);
  });

  void it('says which ladder each trigger holds', () => {
    const ladders = TRIGGERS.map((trigger) => {
      const result = decide(job(), trigger, IDLE);
      return result.kind === 'launch' ? result.plan.ladder : result.kind;
    });
    assert.deepEqual(ladders, ['fresh', 'fresh', 'carried', 'current', 'none']);
  });

  void it('a Forbid refusal of a scheduled fire still resets the ladder (gate 4 comes first)', () => {
    const forbid = job({ concurrencyPolicy: 'Forbid' });
    const busy: AdmissionFacts = { ...IDLE, activeInstances: 1 };
    for (const trigger of TRIGGERS) {
      const result = decide(forbid, trigger, busy);
      assert.equal(result.kind, 'skip');
      assert.equal(result.kind === 'skip' && result.reason, 'forbid');
      assert.equal(
        result.kind === 'skip' && result.ladderReset,
        trigger === 'schedule' || trigger === 'reboot',
        trigger,
      );
    }
  });

  void it('Allow and Replace launch under contention and say so', () => {
    const busy: AdmissionFacts = { ...IDLE, activeInstances: 2 };
    assert.deepEqual(decide(job({ concurrencyPolicy: 'Allow' }), 'schedule', busy), {
      kind: 'launch',
      plan: { replace: false, ladder: 'fresh', contended: true },
    });
    assert.deepEqual(decide(job({ concurrencyPolicy: 'Replace' }), 'manual', busy), {
      kind: 'launch',
      plan: { replace: true, ladder: 'current', contended: true },
    });
    assert.deepEqual(decide(job(), 'retry', IDLE), {
      kind: 'launch',
      plan: { replace: false, ladder: 'carried', contended: false },
    });
  });

  void it('answers the common cases with shared frozen values (a burst allocates no decisions)', () => {
    const first = decide(job(), 'schedule', IDLE);
    assert.equal(decide(job({ name: 'other' }), 'schedule', IDLE), first);
    assert.ok(Object.isFrozen(first));
    const forbid = job({ concurrencyPolicy: 'Forbid' });
    const busy: AdmissionFacts = { ...IDLE, activeInstances: 1 };
    assert.equal(decide(forbid, 'schedule', busy), decide(forbid, 'reboot', busy));
  });
});
