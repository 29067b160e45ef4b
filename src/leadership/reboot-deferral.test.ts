// @reboot one-shots under election: deferred at start-up, run once on the owner the policy
// resolves to, kept across a reload that briefly loses the name, and de-duplicated cluster-wide.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordingLogger } from '../logging/testing.js';
import { DeferredReboots, planPendingReboot, type RebootCandidate } from './reboot-deferral.js';
import { StaticLeadership, StaticLeadershipSource } from './static-leadership.js';
import type { ClusterPolicy } from './types.js';

const reboot = (
  name: string,
  clusterPolicy: ClusterPolicy,
  extra: Partial<RebootCandidate> = {},
): RebootCandidate => ({
  name,
  enabled: true,
  isReboot: true,
  clusterPolicy,
  ...extra,
});

void test('start-up: Leader and PreferLeader @reboot jobs are deferred under election, EveryNode runs', () => {
  const logger = recordingLogger();
  const deferrals = new DeferredReboots(new StaticLeadershipSource(true, null), logger);
  const runNow = deferrals.deferAtStartup([
    reboot('l', 'Leader'),
    reboot('p', 'PreferLeader'),
    reboot('e', 'EveryNode'),
    reboot('off', 'Leader', { enabled: false }),
    reboot('cron', 'Leader', { isReboot: false }),
  ]);
  assert.deepEqual(
    runNow.map((job) => job.name),
    ['e'],
  );
  assert.deepEqual([...deferrals.pending], ['l', 'p']);
  assert.deepEqual(
    logger.at('info').map((line) => line.message),
    [
      'cluster: deferring @reboot job l until the cluster elects an owner',
      'cluster: deferring @reboot job p until the cluster elects an owner',
    ],
  );
});

void test('start-up without election: every enabled @reboot job runs at once', () => {
  const deferrals = new DeferredReboots(new StaticLeadershipSource(false, null), recordingLogger());
  assert.deepEqual(
    deferrals.deferAtStartup([reboot('l', 'Leader'), reboot('p', 'PreferLeader')]).length,
    2,
  );
  assert.equal(deferrals.pending.size, 0);
});

void test('the owner marks the ran-set before it launches; a follower keeps waiting', async () => {
  const backend = new StaticLeadership({ leaderName: 'a', availableLeaderName: 'a' });
  const source = new StaticLeadershipSource(true, backend);
  const logger = recordingLogger();
  const deferrals = new DeferredReboots(source, logger);
  deferrals.deferAtStartup([reboot('l', 'Leader')]);
  const launched: string[] = [];
  const lookup = (name: string): RebootCandidate | undefined =>
    name === 'l' ? reboot('l', 'Leader') : undefined;
  await deferrals.pass(lookup, (job) => launched.push(job.name));
  assert.equal(launched.length, 0, 'not the leader yet');
  backend.state.leaderName = 'me';
  await deferrals.pass(lookup, (job) => {
    assert.deepEqual(backend.state.marked, ['l'], 'marked before the launch');
    launched.push(job.name);
  });
  assert.deepEqual(launched, ['l']);
  assert.equal(deferrals.pending.size, 0);
  assert.ok(
    logger
      .at('info')
      .some(
        (line) =>
          line.message ===
          'cluster: running deferred @reboot job l (this node is the elected owner)',
      ),
  );
});

void test('a one-shot another node already ran stands down here', async () => {
  const backend = new StaticLeadership({ rebootRan: new Set(['l']) });
  const logger = recordingLogger();
  const deferrals = new DeferredReboots(new StaticLeadershipSource(true, backend), logger);
  deferrals.deferAtStartup([reboot('l', 'Leader')]);
  const launched: string[] = [];
  await deferrals.pass(
    () => reboot('l', 'Leader'),
    (job) => launched.push(job.name),
  );
  assert.deepEqual(launched, []);
  assert.equal(deferrals.pending.size, 0);
  assert.deepEqual(
    logger.at('info').at(-1)?.message,
    'cluster: deferred @reboot job l already ran in the cluster; standing down here',
  );
});

void test('a leader whose quorum no peer confirms yet keeps a Leader one-shot waiting; PreferLeader runs', () => {
  const backend = new StaticLeadership({ quorumConfirmed: false });
  const source = new StaticLeadershipSource(true, backend);
  assert.equal(backend.isLeader(), true);
  assert.deepEqual(planPendingReboot(reboot('l', 'Leader'), source), { kind: 'keep' });
  assert.deepEqual(planPendingReboot(reboot('p', 'PreferLeader'), source), {
    kind: 'run',
    markFirst: true,
  });
  backend.state.quorumConfirmed = true;
  assert.deepEqual(planPendingReboot(reboot('l', 'Leader'), source), {
    kind: 'run',
    markFirst: true,
  });
});

void test('no manager: PreferLeader runs (never-skip), Leader keeps waiting', async () => {
  const source = new StaticLeadershipSource(true, null);
  const deferrals = new DeferredReboots(source, recordingLogger());
  deferrals.deferAtStartup([reboot('l', 'Leader'), reboot('p', 'PreferLeader')]);
  const launched: string[] = [];
  const jobs = new Map([
    ['l', reboot('l', 'Leader')],
    ['p', reboot('p', 'PreferLeader')],
  ]);
  await deferrals.pass(
    (name) => jobs.get(name),
    (job) => launched.push(job.name),
  );
  assert.deepEqual(launched, ['p']);
  assert.deepEqual([...deferrals.pending], ['l']);
});

void test('a name missing from a reload is kept; a reused name runs the current definition only if still deferrable', () => {
  const source = new StaticLeadershipSource(true, new StaticLeadership());
  assert.deepEqual(planPendingReboot(undefined, source), { kind: 'keep' });
  assert.deepEqual(planPendingReboot(reboot('x', 'EveryNode'), source), {
    kind: 'drop',
    why: 'not-deferrable',
  });
  assert.deepEqual(planPendingReboot(reboot('x', 'Leader', { isReboot: false }), source), {
    kind: 'drop',
    why: 'not-deferrable',
  });
  assert.deepEqual(planPendingReboot(reboot('x', 'Leader', { enabled: false }), source), {
    kind: 'drop',
    why: 'not-deferrable',
  });
  assert.deepEqual(planPendingReboot(reboot('x', 'PreferLeader'), source), {
    kind: 'run',
    markFirst: true,
  });
  source.backend = null;
  assert.deepEqual(
    planPendingReboot(undefined, source),
    { kind: 'keep' },
    'also without a manager',
  );
});

void test('election removed by a reload: a still-@reboot job runs, a changed one is dropped, a missing one kept', () => {
  const source = new StaticLeadershipSource(false, null);
  assert.deepEqual(planPendingReboot(reboot('x', 'Leader'), source), {
    kind: 'run',
    markFirst: false,
  });
  assert.deepEqual(planPendingReboot(reboot('x', 'Leader', { isReboot: false }), source), {
    kind: 'drop',
    why: 'not-deferrable',
  });
  assert.deepEqual(planPendingReboot(undefined, source), { kind: 'keep' });
});

void test('a throwing ran-set read keeps the one-shot pending and says why', async () => {
  const backend = new StaticLeadership();
  backend.rebootRan = () => {
    throw new Error('store unsynced');
  };
  const logger = recordingLogger();
  const deferrals = new DeferredReboots(new StaticLeadershipSource(true, backend), logger);
  deferrals.deferAtStartup([reboot('l', 'Leader')]);
  await deferrals.pass(
    () => reboot('l', 'Leader'),
    () => assert.fail('must not launch'),
  );
  assert.deepEqual([...deferrals.pending], ['l']);
  assert.match(logger.at('error')[0]?.message ?? '', /keeping it pending: store unsynced/);
  await deferrals.pass(
    () => reboot('l', 'Leader'),
    () => assert.fail('must not launch'),
  );
  assert.equal(logger.at('error').length, 1, 'the same cause is logged once, not every pass');
  let launched = 0;
  backend.rebootRan = () => false;
  await deferrals.pass(
    () => reboot('l', 'Leader'),
    () => (launched += 1),
  );
  assert.equal(launched, 1, 'decided once the read answers');
});
