import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../common/index.js';
import {
  clusterOutcome,
  daemonOutcome,
  jobSetOutcome,
  jobsOutcome,
  parseShownAt,
  runSelfTest,
  SELF_TEST_COOLDOWN_MS,
  selfTestDue,
  tokenOutcome,
  versionOutcome,
  type RunnableStep,
  type SelfTestVerdict,
  type StepOutcome,
} from './self-test.js';

describe('self-test outcomes', () => {
  it('reads a /version answer as the daemon, token and version lines', () => {
    const answer = { kind: 'answer', value: '1.4.0\n' } as const;
    assert.deepEqual(daemonOutcome(answer), { kind: 'ok', detail: 'answering' });
    assert.deepEqual(tokenOutcome(answer, true), { kind: 'ok', detail: 'accepted' });
    assert.deepEqual(tokenOutcome(answer, false), { kind: 'ok', detail: 'not needed' });
    assert.deepEqual(versionOutcome(answer), { kind: 'ok', detail: '1.4.0' });
  });

  it('a 401 answers, but the token line fails and halts', () => {
    const refused = { kind: 'status', status: 401 } as const;
    assert.equal(daemonOutcome(refused).kind, 'ok');
    const token = tokenOutcome(refused, true);
    assert.equal(token.kind, 'fail');
    assert.ok(token.kind === 'fail' && token.halts && /refused/.test(token.detail));
    assert.match(JSON.stringify(tokenOutcome(refused, false)), /needed/);
    assert.deepEqual(versionOutcome(refused), { kind: 'fail', detail: 'HTTP 401', halts: false });
  });

  it('no answer fails the daemon line and halts', () => {
    const silent = { kind: 'no-answer', message: 'Failed to fetch' } as const;
    assert.deepEqual(daemonOutcome(silent), {
      kind: 'fail',
      detail: 'no answer: Failed to fetch',
      halts: true,
    });
  });

  it('reads the job set, the cluster and the first poll', () => {
    assert.deepEqual(
      jobSetOutcome({ kind: 'answer', value: { job_set_id: 'v1:0123456789abcdef', jobs: 1 } }),
      { kind: 'ok', detail: 'v1:01234567… · 1 job' },
    );
    assert.deepEqual(clusterOutcome({ kind: 'answer', value: null }), {
      kind: 'ok',
      detail: 'standalone (no cluster)',
    });
    assert.deepEqual(clusterOutcome({ kind: 'answer', value: { enabled: false, peers: [] } }), {
      kind: 'ok',
      detail: 'standalone (no cluster)',
    });
    assert.deepEqual(jobsOutcome({ kind: 'jobs', total: 7, failing: 2 }), {
      kind: 'ok',
      detail: '7 jobs loaded, 2 failing',
    });
    assert.equal(jobsOutcome({ kind: 'unauthorized' }).kind, 'fail');
    assert.deepEqual(jobsOutcome({ kind: 'error', message: 'Cannot GET /jobs: no answer' }), {
      kind: 'fail',
      detail: 'Cannot GET /jobs: no answer',
      halts: false,
    });
  });
});

function step(
  id: RunnableStep['id'],
  run: (signal: AbortSignal) => Promise<StepOutcome>,
  onTimeout?: StepOutcome,
): RunnableStep {
  return { id, label: id, run, ...(onTimeout === undefined ? {} : { onTimeout }) };
}

const ok = (detail: string) => () => Promise.resolve<StepOutcome>({ kind: 'ok', detail });

function harness(skip = new AbortController()) {
  const clock = new FakeClock();
  const lines: string[] = [];
  const options = {
    clock,
    stepTimeoutMs: 3000,
    paceMs: 100,
    deadlineMs: 12_000,
    skip: skip.signal,
    onStart: (s: RunnableStep) => lines.push(`start ${s.id}`),
    onResult: (s: RunnableStep, outcome: StepOutcome) =>
      lines.push(`${s.id} ${outcome.kind} ${outcome.detail}`),
  };
  return { clock, lines, options, skip };
}

describe('runSelfTest', () => {
  it('runs every step in order and is READY when all pass', async () => {
    const { clock, lines, options } = harness();
    const done = runSelfTest([step('daemon', ok('a')), step('version', ok('1.0'))], options);
    await clock.advance(1000);
    assert.deepEqual(await done, { kind: 'ready' });
    assert.deepEqual(lines, ['start daemon', 'daemon ok a', 'start version', 'version ok 1.0']);
  });

  it('a failure shows and the next step runs; a halting one skips the rest', async () => {
    const { clock, lines, options } = harness();
    const fail = (halts: boolean) => () =>
      Promise.resolve<StepOutcome>({ kind: 'fail', detail: 'x', halts });
    const degraded = runSelfTest([step('daemon', fail(false)), step('version', ok('v'))], options);
    await clock.advance(1000);
    assert.deepEqual(await degraded, { kind: 'degraded', failed: 1 });
    lines.length = 0;
    const halted = runSelfTest(
      [step('token', fail(true)), step('version', ok('v')), step('jobs', ok('j'))],
      options,
    );
    await clock.advance(1000);
    const verdict: SelfTestVerdict = await halted;
    assert.deepEqual(verdict, { kind: 'halted', label: 'token', detail: 'x' });
    assert.deepEqual(lines, [
      'start token',
      'token fail x',
      'version skipped not checked after the failure above',
      'jobs skipped not checked after the failure above',
    ]);
  });

  it('a step that never answers fails at its time limit, its request aborted', async () => {
    const { clock, lines, options } = harness();
    let aborted = false;
    const hang = (signal: AbortSignal) =>
      new Promise<StepOutcome>(() => signal.addEventListener('abort', () => (aborted = true)));
    const done = runSelfTest(
      [
        step('cluster', hang),
        step('daemon', hang, { kind: 'fail', detail: 'silent', halts: true }),
        step('jobs', ok('j')),
      ],
      options,
    );
    await clock.advance(2999);
    assert.deepEqual(lines, ['start cluster']);
    await clock.advance(10_000);
    assert.equal(aborted, true);
    assert.deepEqual(await done, { kind: 'halted', label: 'daemon', detail: 'silent' });
    assert.deepEqual(lines.slice(0, 2), ['start cluster', 'cluster fail no answer in 3 s']);
  });

  it('a throwing step is a FAIL, not a crash', async () => {
    const { clock, options } = harness();
    const done = runSelfTest(
      [step('version', () => Promise.reject(new Error('boom'))), step('jobs', ok('j'))],
      options,
    );
    await clock.advance(1000);
    assert.deepEqual(await done, { kind: 'degraded', failed: 1 });
  });

  it('stops at once on a skip', async () => {
    const { clock, lines, options, skip } = harness();
    const never = () => new Promise<StepOutcome>(() => undefined);
    const done = runSelfTest([step('daemon', never), step('jobs', ok('j'))], options);
    await clock.advance(10);
    skip.abort();
    assert.deepEqual(await done, { kind: 'skipped' });
    assert.deepEqual(lines, ['start daemon']);
  });

  it('skips the steps not begun by the deadline', async () => {
    const { clock, lines, options } = harness();
    const slow = (signal: AbortSignal) =>
      new Promise<StepOutcome>((resolve) => {
        const timer = clock.setTimer(() => resolve({ kind: 'ok', detail: 'slow' }), 2900);
        signal.addEventListener('abort', () => timer.cancel());
      });
    const steps = (['daemon', 'token', 'version', 'job-set', 'cluster', 'jobs'] as const).map(
      (id) => step(id, slow),
    );
    const done = runSelfTest(steps, options);
    await clock.advance(60_000);
    assert.deepEqual(await done, { kind: 'ready' });
    assert.equal(lines.filter((line) => line.endsWith('out of time')).length, 2);
  });
});

describe('selfTestDue', () => {
  const now = 1_000_000_000_000;
  it('runs when on, motion allowed and not shown within the cooldown', () => {
    const base = { enabled: true, reducedMotion: false, nowMs: now, shownAtMs: null };
    assert.equal(selfTestDue(base), true);
    assert.equal(selfTestDue({ ...base, enabled: false }), false);
    assert.equal(selfTestDue({ ...base, reducedMotion: true }), false);
    assert.equal(selfTestDue({ ...base, shownAtMs: now - 1000 }), false);
    assert.equal(selfTestDue({ ...base, shownAtMs: now - SELF_TEST_COOLDOWN_MS }), true);
    assert.equal(selfTestDue({ ...base, shownAtMs: now + 60_000 }), true);
  });

  it('reads a stored stamp, or nothing from a bad one', () => {
    assert.equal(parseShownAt('1700000000000'), 1_700_000_000_000);
    for (const bad of [null, '', 'soon', '-5', '1e12', '99999999999999999'])
      assert.equal(parseShownAt(bad), null, String(bad));
  });
});
