import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDeferred } from '../common/index.js';
import { makeJob } from '../config/testing.js';
import type { RunOutcome } from '../runner/index.js';
import type { RunEnvironment } from './ports.js';
import { MIN_VALUE_LINE_CHARS, runScrubOf } from './run-scrub.js';
import { createHarness } from './test-harness.js';

const TOKEN = 'ab'.repeat(32);
const SECRET = 's3cr3t-staged-value';
const HOUR = 3_600_000;

function environmentOf(staged: Promise<readonly string[]> | null): RunEnvironment {
  return {
    variables: { YACRON2_STATE_TOKEN: TOKEN, YACRON2_RUN_ID: 'r' },
    secretValues: [TOKEN],
    stagedSecretValues: staged,
  };
}

function outcomeWith(stdout: string, environment: Record<string, string> | null): RunOutcome {
  return {
    kind: 'failed',
    exitCode: 1,
    failReason: 'failsWhen=nonzeroReturn and retcode=1',
    cancelReason: null,
    pid: 1,
    startedAtMs: 0,
    finishedAtMs: 1,
    durationMs: 1,
    stdout: { text: stdout, discardedLines: 0, truncated: false },
    stderr: null,
    environment,
    spawnError: null,
  };
}

void describe('run scrub (docs/security.md "Secrets")', () => {
  void it('is not built for a run with nothing to scrub (no per-line work)', () => {
    assert.equal(runScrubOf(undefined), null);
    assert.equal(
      runScrubOf({ variables: { A: 'b' }, secretValues: [], stagedSecretValues: null }),
      null,
    );
  });

  void it('scrubs the token from the launch on, staged values once they resolve', async () => {
    const staged = createDeferred<readonly string[]>();
    const scrub = runScrubOf(environmentOf(staged.promise));
    assert.ok(scrub);
    assert.equal(scrub.line(`t=${TOKEN} s=${SECRET}\n`), `t=[REDACTED] s=${SECRET}\n`);
    staged.resolve([SECRET, '']);
    await staged.promise;
    await Promise.resolve();
    assert.equal(scrub.line(`t=${TOKEN} s=${SECRET}\n`), 't=[REDACTED] s=[REDACTED]\n');
  });

  void it('a multi-line value goes whole from texts, by its long lines from single lines', async () => {
    const longLine = 'k'.repeat(MIN_VALUE_LINE_CHARS);
    const key = `BEGIN\n${longLine}\nshort\nEND`;
    const scrub = runScrubOf(environmentOf(Promise.resolve([key])));
    assert.ok(scrub);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(scrub.line(`${longLine}\n`), '[REDACTED]\n');
    assert.equal(scrub.line('short\n'), 'short\n', 'a short line of a value is left alone');
    const scrubbed = scrub.outcome(outcomeWith(`before\n${key}\nafter\n`, null));
    assert.equal(scrubbed.stdout?.text, 'before\n[REDACTED]\nafter\n');
  });

  void it('scrubs the outcome texts and the environment, and keeps a clean outcome as is', () => {
    const scrub = runScrubOf(environmentOf(null));
    assert.ok(scrub);
    const outcome = outcomeWith(`token ${TOKEN}\n`, { YACRON2_STATE_TOKEN: TOKEN, HOME: '/h' });
    const scrubbed = scrub.outcome(outcome);
    assert.equal(scrubbed.stdout?.text, 'token [REDACTED]\n');
    assert.deepEqual(scrubbed.environment, { YACRON2_STATE_TOKEN: '[REDACTED]', HOME: '/h' });
    assert.equal(outcome.stdout?.text, `token ${TOKEN}\n`, 'the original is not changed');
    const clean = outcomeWith('nothing here\n', null);
    assert.equal(scrub.outcome(clean).stdout, clean.stdout);
  });

  void it('the live lines, the failure log, the finished and report events carry no value', async () => {
    const h = createHarness(
      [makeJob({ name: 'leaky', schedule: '0 * * * *', captureStdout: true, captureStderr: true })],
      { runEnvironment: () => environmentOf(Promise.resolve([SECRET])) },
    );
    h.scheduler.start();
    await h.clock.advance(HOUR);
    const run = h.runner.last('leaky');
    run.emitOutput('stdout', `token=${TOKEN}\n`);
    run.emitOutput('stderr', `secret=${SECRET}\n`);
    run.complete({ exitCode: 1, stdout: `token=${TOKEN}\n`, stderr: `secret=${SECRET}\n` });
    await h.clock.advance(1);
    const leaks = (text: string): boolean => text.includes(TOKEN) || text.includes(SECRET);
    assert.deepEqual(
      h.of('run:output').map((event) => event.line),
      ['token=[REDACTED]\n', 'secret=[REDACTED]\n'],
    );
    assert.deepEqual(h.logged('STDOUT:'), ['Job leaky STDOUT:\ntoken=[REDACTED]']);
    assert.deepEqual(h.logged('STDERR:'), ['Job leaky STDERR:\nsecret=[REDACTED]']);
    assert.equal(h.logs.filter((entry) => leaks(JSON.stringify(entry))).length, 0, 'no log line');
    const [finished] = h.of('run:finished');
    const [failed] = h.of('report:failed');
    for (const outcome of [finished?.outcome, failed?.outcome]) {
      assert.equal(outcome?.stdout?.text, 'token=[REDACTED]\n');
      assert.equal(outcome?.stderr?.text, 'secret=[REDACTED]\n');
      assert.equal(outcome?.environment?.['YACRON2_STATE_TOKEN'], '[REDACTED]');
    }
    assert.equal(run.request.extraEnv?.['YACRON2_STATE_TOKEN'], TOKEN, 'the job gets the token');
  });
});
