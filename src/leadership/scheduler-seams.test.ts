// The cluster through the scheduler's seams, on a FakeClock with the real gate, deferral and
// scheduler (the backend's answers set by the test): skips with their reason, retries deferred
// or abandoned, @reboot one-shots held and released, the pass hook.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeJob } from '../config/testing.js';
import type { ResolvedJob } from '../config/index.js';
import type { DurablePort, RetryJournal } from '../scheduler/index.js';
import { createHarness, T0 } from '../scheduler/testing.js';
import { ClusterGate } from './gate.js';
import { DeferredReboots } from './reboot-deferral.js';
import { schedulerSeams } from './scheduler-seams.js';
import { StaticLeadership, StaticLeadershipSource } from './static-leadership.js';

const silent = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
} as never;

/** A scheduler harness whose cluster seams read `backend`; `passes()` counts the pass hook. */
function clustered(
  jobs: readonly ResolvedJob[],
  backend: StaticLeadership | null,
  options: { electLeader?: boolean; durable?: DurablePort } = {},
) {
  const source = new StaticLeadershipSource(options.electLeader ?? true, backend);
  let passes = 0;
  const built = schedulerSeams({
    gate: new ClusterGate(source, silent),
    deferrals: new DeferredReboots(source, silent),
    onPass: () => (passes += 1),
  });
  const h = createHarness(jobs, {
    gate: built.gate,
    cluster: built.cluster,
    ...(options.durable === undefined ? {} : { durable: options.durable }),
  });
  return Object.assign(h, { passes: () => passes });
}

/** A durable port serving `journal` (the rest answers "nothing known"). */
function durableWith(journal: RetryJournal): DurablePort {
  return {
    current: () => ({
      lastDurableOutcome: () => null,
      onStoreUnavailable: 'degrade',
      checkRebootRun: () => Promise.resolve('run'),
      retries: journal,
    }),
  };
}

/**
 * Node a's `flaky` failed at the hour and a quorate, settled view elects b before its retry is
 * due (ownership positively moved); the journal records its calls, and `handsOff` is what its
 * handOff answers.
 */
async function ownershipMovesMidLadder(handsOff: boolean) {
  const backend = new StaticLeadership({ nodeName: 'a' });
  const calls: string[] = [];
  const journal: RetryJournal = {
    armed: () => undefined,
    due: () => Promise.resolve('launched'),
    settled: (name, attempt, reason) => calls.push(`settled ${name} #${attempt} ${reason}`),
    handOff: (job, attempt) => {
      calls.push(`handOff ${job.name} #${attempt}`);
      return handsOff;
    },
  };
  const h = clustered([makeJob({ name: 'flaky', schedule: '0 * * * *', retry })], backend, {
    durable: durableWith(journal),
  });
  h.runner.setDefault({ exitCode: 1 });
  h.scheduler.start();
  await h.clock.advance(3_600_000);
  backend.state.leaderName = 'b';
  backend.state.availableLeaderName = 'b';
  await h.clock.advance(500);
  return { h, calls };
}

const retry = {
  maximumRetries: 3,
  initialDelayMs: 500,
  backoffMultiplier: 2,
  maximumDelayMs: 60_000,
};

void describe('the cluster through the scheduler seams', () => {
  void it('a follower skips a Leader fire with the verdict as the detail; EveryNode and manual starts run', async () => {
    const backend = new StaticLeadership({ nodeName: 'b', leaderName: 'a' });
    const h = clustered(
      [
        makeJob({ name: 'lead', schedule: '* * * * *' }),
        makeJob({ name: 'every', schedule: '* * * * *', clusterPolicy: 'EveryNode' }),
      ],
      backend,
    );
    h.scheduler.start();
    await h.clock.advance(60_000);
    assert.deepEqual(
      h.of('run:started').map((event) => event.job.name),
      ['every'],
    );
    assert.deepEqual(
      h.of('fire:skipped').map((event) => [event.jobName, event.reason]),
      [['lead', 'cluster']],
    );
    assert.deepEqual(h.logged('skipped on this node'), [
      'Job lead skipped on this node: not-leader: the elected leader is a',
    ]);
    assert.equal(h.passes(), 2, 'one pass per wake (the loop wakes at 30 s and at the fire)');
    const manual = await h.scheduler.startJob('lead');
    assert.equal(manual.kind, 'started');
    await h.stop();
  });

  void it('a transiently denied retry is deferred (INFO once, then DEBUG) and runs once the gate allows', async () => {
    const backend = new StaticLeadership({ nodeName: 'a' });
    const h = clustered([makeJob({ name: 'flaky', schedule: '0 * * * *', retry })], backend);
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(3_600_000);
    assert.equal(h.of('run:started').length, 1);
    // Quorum lost before the retry is due: a transient denial.
    backend.state.quorate = false;
    await h.clock.advance(500);
    await h.clock.advance(1000);
    await h.clock.advance(1000);
    const deferred = h.logs.filter((entry) => entry.message.includes('retry (#1) deferred'));
    assert.deepEqual(
      deferred.map((entry) => entry.level),
      ['info', 'debug', 'debug'],
      'INFO the first time, DEBUG after',
    );
    assert.equal(
      deferred[0]?.message,
      'Cron job flaky retry (#1) deferred: the cluster does not currently allow this node to run it and no other node positively owns it (no-quorum: this node sees no quorum); re-checking in 1.0 seconds',
    );
    assert.equal(h.of('run:started').length, 1, 'nothing relaunched while denied');
    assert.equal(h.scheduler.getJobState('flaky').retry?.attempt, 1, 'the ladder is still armed');
    backend.state.quorate = true;
    h.runner.setDefault({ exitCode: 0 });
    await h.clock.advance(1000);
    assert.deepEqual(
      h.of('run:started').map((event) => [event.trigger, event.attempt]),
      [
        ['schedule', 0],
        ['retry', 1],
      ],
    );
    await h.stop();
  });

  void it('an observed ownership move abandons the retry: WARNING, a cancelled record, settled owner-moved', async () => {
    const { h, calls } = await ownershipMovesMidLadder(false);
    assert.equal(h.of('run:started').length, 1, 'the retry did not run here');
    assert.deepEqual(h.logged('abandoned'), [
      'Cron job flaky retry (#1) abandoned: the cluster moved ownership of it to another node; it is not retried here so it cannot run twice (not-leader: the elected leader is b)',
    ]);
    assert.deepEqual(calls, ['handOff flaky #1', 'settled flaky #1 owner-moved']);
    const [abandoned] = h.of('retry:abandoned');
    assert.equal(abandoned?.attempt, 1);
    const last = h.scheduler.getRuns('flaky').at(-1);
    assert.equal(last?.outcome, 'cancelled');
    assert.equal(last?.failReason, 'retry abandoned: cluster ownership moved to another node');
    assert.equal(last?.finishedAtMs, T0 + 3_600_500);
    assert.equal(h.scheduler.getJobState('flaky').retry, null, 'the ladder is gone');
    await h.clock.advance(10_000);
    assert.equal(h.of('run:started').length, 1);
    await h.stop();
  });

  void it('an ownership move the journal can hand off: WARNING, no settle, no cancelled record', async () => {
    const { h, calls } = await ownershipMovesMidLadder(true);
    assert.deepEqual(calls, ['handOff flaky #1']);
    assert.deepEqual(h.logged('handed off'), [
      'Cron job flaky retry (#1) handed off: the cluster moved ownership of it to another node, which resumes the ladder',
    ]);
    assert.deepEqual(h.of('retry:abandoned'), []);
    assert.deepEqual(h.of('retry:discarded'), [{ jobName: 'flaky', reason: 'handed-off' }]);
    assert.deepEqual(
      h.scheduler.getRuns('flaky').map((run) => run.outcome),
      ['failure'],
      'no cancelled record: the attempt moves, it does not die',
    );
    assert.equal(h.scheduler.getJobState('flaky').retry, null);
    await h.clock.advance(10_000);
    assert.equal(h.of('run:started').length, 1);
    await h.stop();
  });

  void it('a Leader @reboot job is held until this node leads, recorded as ran, then run once; EveryNode runs at once', async () => {
    const backend = new StaticLeadership({ nodeName: 'a', quorate: false });
    const h = clustered(
      [
        makeJob({ name: 'boot-lead', schedule: '@reboot' }),
        makeJob({ name: 'boot-every', schedule: '@reboot', clusterPolicy: 'EveryNode' }),
        makeJob({ name: 'tick', schedule: '* * * * *', clusterPolicy: 'EveryNode' }),
      ],
      backend,
    );
    h.scheduler.start();
    await h.clock.advance(0);
    assert.deepEqual(
      h.of('run:started').map((event) => event.job.name),
      ['boot-every'],
    );
    assert.equal(h.scheduler.getJobState('boot-lead').rebootPending, true);
    assert.equal(h.scheduler.getJobState('boot-every').rebootPending, false);
    await h.clock.advance(60_000);
    assert.equal(h.scheduler.getJobState('boot-lead').rebootPending, true, 'no quorum: still held');
    backend.state.quorate = true;
    await h.clock.advance(60_000);
    assert.deepEqual(
      backend.state.marked,
      ['boot-lead'],
      'recorded in the ran-set before the launch',
    );
    assert.deepEqual(
      h.of('run:started').map((event) => [event.job.name, event.trigger]),
      [
        ['boot-every', 'reboot'],
        ['tick', 'schedule'],
        ['boot-lead', 'reboot'],
        ['tick', 'schedule'],
      ],
    );
    assert.equal(h.scheduler.getJobState('boot-lead').rebootPending, false);
    await h.clock.advance(120_000);
    assert.equal(
      h.of('run:started').filter((event) => event.job.name === 'boot-lead').length,
      1,
      'a one-shot',
    );
    await h.stop();
  });

  void it('a released Leader one-shot is not gated by the durable boot marker; EveryNode is', async () => {
    // The boot marker (here: unwritable under fail-closed) is for standalone and EveryNode
    // one-shots; a deferred one is deduplicated by the cluster's reboot-ran record, written before
    // its release, so skipping it on the marker would lose it cluster-wide.
    const backend = new StaticLeadership({ nodeName: 'a', quorate: false });
    const asked: string[] = [];
    const durable: DurablePort = {
      current: () => ({
        lastDurableOutcome: () => null,
        onStoreUnavailable: 'fail-closed',
        checkRebootRun: (job) => {
          asked.push(job.name);
          return Promise.resolve('state-unavailable');
        },
        retries: {
          armed: () => undefined,
          due: () => Promise.resolve('launched'),
          settled: () => undefined,
          handOff: () => false,
        },
      }),
    };
    const h = clustered(
      [
        makeJob({ name: 'boot-lead', schedule: '@reboot' }),
        makeJob({ name: 'boot-every', schedule: '@reboot', clusterPolicy: 'EveryNode' }),
        makeJob({ name: 'tick', schedule: '* * * * *', clusterPolicy: 'EveryNode' }),
      ],
      backend,
      { durable },
    );
    h.scheduler.start();
    await h.clock.advance(0);
    backend.state.quorate = true;
    await h.clock.advance(60_000);
    assert.deepEqual(backend.state.marked, ['boot-lead']);
    assert.deepEqual(asked, ['boot-every'], 'only the EveryNode one-shot asks the marker');
    assert.deepEqual(
      h
        .of('run:started')
        .filter((event) => event.trigger === 'reboot')
        .map((event) => event.job.name),
      ['boot-lead'],
    );
    await h.stop();
  });

  void it('a held one-shot that already ran elsewhere stands down; without election nothing is held', async () => {
    const backend = new StaticLeadership({ nodeName: 'a', rebootRan: new Set(['boot']) });
    const h = clustered(
      [
        makeJob({ name: 'boot', schedule: '@reboot' }),
        makeJob({ name: 'tick', schedule: '* * * * *', clusterPolicy: 'EveryNode' }),
      ],
      backend,
    );
    h.scheduler.start();
    await h.clock.advance(60_000);
    assert.equal(h.scheduler.getJobState('boot').rebootPending, false);
    assert.deepEqual(
      h.of('run:started').map((event) => event.job.name),
      ['tick'],
    );
    await h.stop();

    const plain = clustered([makeJob({ name: 'boot', schedule: '@reboot' })], null, {
      electLeader: false,
    });
    plain.scheduler.start();
    await plain.clock.advance(0);
    assert.deepEqual(
      plain.of('run:started').map((event) => event.job.name),
      ['boot'],
    );
    await plain.stop();
  });
});
