// The retry protocol as retries.ts drives its RetryJournal port, pinned call by call against a
// recording journal (the store side is durable/retry-journal.ts, covered by the durable tests).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { createDeferred, Swappable, type Deferred } from '../common/index.js';
import { type ResolvedJob } from '../config/index.js';
import { makeConfig, makeJob } from '../config/testing.js';
import type {
  DurableCollaborator,
  RetryDueVerdict,
  RetryJournal,
  RetrySettleReason,
} from './ports.js';
import { createHarness, T0 } from './test-harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const retry = { initialDelayMs: 1000, backoffMultiplier: 2, maximumDelayMs: 30_000 };

class RecordingJournal implements RetryJournal {
  readonly calls: string[] = [];
  /** The answer of the next due() calls (a deferred one waits for the test). */
  answer: RetryDueVerdict | Deferred<RetryDueVerdict> = 'launched';
  /** What handOff() answers (true: cross-node resume is active for the job). */
  handsOff = false;

  armed(job: ResolvedJob, attempt: number, notBeforeMs: number): void {
    this.calls.push(`armed ${job.name} #${attempt} at T0+${(notBeforeMs - T0) / 1000}s`);
  }

  async due(job: ResolvedJob, attempt: number): Promise<RetryDueVerdict> {
    this.calls.push(`due ${job.name} #${attempt}`);
    return typeof this.answer === 'string' ? this.answer : this.answer.promise;
  }

  settled(jobName: string, attempt: number, reason: RetrySettleReason): void {
    this.calls.push(`settled ${jobName} #${attempt} ${reason}`);
  }

  handOff(job: ResolvedJob, attempt: number): boolean {
    this.calls.push(`handOff ${job.name} #${attempt} ${this.handsOff}`);
    return this.handsOff;
  }
}

function durableWith(
  journal: RetryJournal,
  onStoreUnavailable: 'degrade' | 'fail-closed' = 'degrade',
): Swappable<DurableCollaborator> {
  return new Swappable<DurableCollaborator>({
    lastDurableOutcome: () => null,
    onStoreUnavailable,
    checkRebootRun: () => Promise.resolve('run'),
    retries: journal,
  });
}

const flaky = (maximumRetries: number) =>
  makeJob({ name: 'flaky', schedule: '0 * * * *', retry: { ...retry, maximumRetries } });

void describe('the retry protocol over the journal port', () => {
  void it('arms a pending record and settles it launched before each relaunch; the exhausted end has none left', async () => {
    const journal = new RecordingJournal();
    const h = createHarness([flaky(2)], { durable: durableWith(journal) });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR + MINUTE);
    assert.deepEqual(journal.calls, [
      'armed flaky #1 at T0+3601s',
      'due flaky #1',
      'armed flaky #2 at T0+3603s',
      'due flaky #2',
    ]);
    // The exhausted failure had no pending record left to settle (the launch settled it).
    assert.equal(h.of('report:permanently-failed').length, 1);
    await h.stop();
  });

  void it('the launch waits for the settle (record-before-run)', async () => {
    const journal = new RecordingJournal();
    const answer = createDeferred<RetryDueVerdict>();
    journal.answer = answer;
    const h = createHarness([flaky(1)], { durable: durableWith(journal) });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR + 5000);
    assert.deepEqual(journal.calls, ['armed flaky #1 at T0+3601s', 'due flaky #1']);
    assert.equal(h.of('run:started').length, 1, 'no relaunch before the settle landed');
    answer.resolve('launched');
    await h.clock.advance(0);
    assert.deepEqual(
      h.of('run:started').map((event) => event.trigger),
      ['schedule', 'retry'],
    );
    await h.stop();
  });

  void it('degrade: an unrecorded settle still relaunches, and the ladder end settles the record', async () => {
    const journal = new RecordingJournal();
    journal.answer = 'unrecorded';
    const h = createHarness([flaky(3)], { durable: durableWith(journal) });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.runner.setDefault({ exitCode: 0 });
    await h.clock.advance(MINUTE);
    assert.deepEqual(journal.calls, [
      'armed flaky #1 at T0+3601s',
      'due flaky #1',
      'settled flaky #1 succeeded',
    ]);
    await h.stop();
  });

  void it('fail-closed: a deferred settle re-arms the timer and relaunches nothing meanwhile', async () => {
    const journal = new RecordingJournal();
    journal.answer = 'defer';
    const h = createHarness([flaky(3)], { durable: durableWith(journal, 'fail-closed') });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR + 2500);
    assert.deepEqual(journal.calls, ['armed flaky #1 at T0+3601s', 'due flaky #1', 'due flaky #1']);
    assert.equal(h.of('run:started').length, 1);
    assert.equal(h.logged('re-checking in 1.000 seconds').length, 2);
    await h.stop();
  });

  void it('contended: another holder claims the ladder now, so the retry re-checks in a second', async () => {
    const journal = new RecordingJournal();
    journal.answer = 'contended';
    const h = createHarness([flaky(3)], { durable: durableWith(journal) });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR + 1000);
    assert.deepEqual(journal.calls, ['armed flaky #1 at T0+3601s', 'due flaky #1']);
    journal.answer = 'launched';
    await h.clock.advance(1000);
    assert.deepEqual(journal.calls.slice(2), ['due flaky #1', 'armed flaky #2 at T0+3604s']);
    assert.deepEqual(
      h.of('run:started').map((event) => [event.trigger, event.attempt]),
      [
        ['schedule', 0],
        ['retry', 1],
      ],
    );
    await h.stop();
  });

  void it('foreign: another node claimed the ladder, so it ends silently (no settle, no run, no record)', async () => {
    const journal = new RecordingJournal();
    journal.answer = 'foreign';
    const h = createHarness([flaky(3)], { durable: durableWith(journal) });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR + MINUTE);
    assert.deepEqual(journal.calls, ['armed flaky #1 at T0+3601s', 'due flaky #1']);
    assert.equal(h.of('run:started').length, 1, 'only the scheduled run');
    assert.deepEqual(h.of('retry:discarded'), [{ jobName: 'flaky', reason: 'claimed-elsewhere' }]);
    assert.equal(h.scheduler.getJobState('flaky').retry, null, 'the ladder is gone');
    assert.equal(h.scheduler.getRuns('flaky').length, 1, 'no cancelled record');
    assert.deepEqual(h.logged('another node claimed'), [
      'Cron job flaky retry (#1) not run here: another node claimed the ladder',
    ]);
    await h.stop();
  });

  void it('a scheduled fire settles the pending retry it supersedes', async () => {
    const journal = new RecordingJournal();
    const job = makeJob({
      name: 'flaky',
      schedule: '* * * * *',
      retry: { ...retry, initialDelayMs: 90_000, maximumRetries: 3 },
    });
    const h = createHarness([job], { durable: durableWith(journal) });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(2 * MINUTE);
    assert.deepEqual(journal.calls, [
      'armed flaky #1 at T0+150s',
      'settled flaky #1 superseded',
      'armed flaky #1 at T0+210s',
    ]);
    await h.stop();
  });

  void it('a manual cancel settles the pending retry of the job', async () => {
    const journal = new RecordingJournal();
    const h = createHarness([flaky(3)], { durable: durableWith(journal) });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.runner.setDefault('manual');
    await h.scheduler.startJob('flaky');
    await h.scheduler.cancelJob('flaky');
    assert.deepEqual(journal.calls, ['armed flaky #1 at T0+3601s', 'settled flaky #1 cancelled']);
    await h.clock.advance(MINUTE);
    assert.equal(journal.calls.length, 2, 'the cancelled retry never comes due');
    await h.stop();
  });

  void it('a retry due for a job a reload disabled is settled job-disabled, not launched', async () => {
    const journal = new RecordingJournal();
    const job = flaky(3);
    const h = createHarness([job], { durable: durableWith(journal) });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.scheduler.applyConfig(makeConfig([{ ...job, enabled: false }]));
    await h.clock.advance(MINUTE);
    assert.deepEqual(journal.calls, [
      'armed flaky #1 at T0+3601s',
      'settled flaky #1 job-disabled',
    ]);
    assert.deepEqual(h.of('retry:discarded'), [{ jobName: 'flaky', reason: 'job-disabled' }]);
    await h.stop();
  });

  void it('shutdown aborts the timer and leaves the pending record', async () => {
    const journal = new RecordingJournal();
    const h = createHarness(
      [
        makeJob({
          name: 'flaky',
          schedule: '0 * * * *',
          retry: { ...retry, initialDelayMs: 30_000, maximumRetries: 3 },
        }),
      ],
      { durable: durableWith(journal) },
    );
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR + 1000);
    await h.stop();
    assert.deepEqual(journal.calls, ['armed flaky #1 at T0+3630s']);
  });

  void it('resumeRetry re-arms at the persisted instant and settles it launched before the relaunch', async () => {
    const journal = new RecordingJournal();
    const h = createHarness([flaky(5)], { durable: durableWith(journal) });
    h.scheduler.start();
    assert.equal(h.scheduler.resumeRetry('flaky', 2, T0 + 10_000), true);
    assert.equal(h.scheduler.resumeRetry('flaky', 2, T0 + 10_000), false, 'a live ladder is newer');
    assert.equal(h.scheduler.resumeRetry('missing', 1, T0), false);
    h.runner.setDefault({ exitCode: 0 });
    await h.clock.advance(10_000);
    assert.deepEqual(journal.calls, ['due flaky #2']);
    assert.deepEqual(
      h.of('run:started').map((event) => [event.trigger, event.attempt, event.startedAtMs - T0]),
      [['retry', 2, 10_000]],
    );
    await h.stop();
  });
});
