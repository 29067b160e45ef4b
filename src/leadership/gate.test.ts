// The per-job decision table, row by row, and the retry defer-vs-abandon rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../logging/index.js';
import { recordingLogger } from '../logging/testing.js';
import { ClusterGate, decideClusterGate } from './gate.js';
import { StaticLeadership, StaticLeadershipSource } from './static-leadership.js';
import type { ClusterPolicy, GatedJob } from './types.js';

const job = (clusterPolicy: ClusterPolicy, name = 'job'): GatedJob => ({ name, clusterPolicy });
const kinds = (backend: StaticLeadership | null, electLeader = true) =>
  (['Leader', 'PreferLeader', 'EveryNode'] as const).map(
    (policy) => decideClusterGate(job(policy), 'schedule', electLeader, backend).kind,
  );

void test('election off: every policy runs, with or without a backend', () => {
  assert.deepEqual(kinds(null, false), ['allow', 'allow', 'allow']);
  assert.deepEqual(kinds(new StaticLeadership({ quorate: false }), false), [
    'allow',
    'allow',
    'allow',
  ]);
});

void test('no manager: Leader fails closed, PreferLeader never skips, EveryNode runs', () => {
  assert.deepEqual(kinds(null), ['deny', 'allow', 'allow']);
  const verdict = decideClusterGate(job('Leader'), 'schedule', true, null);
  assert.equal(verdict.kind === 'deny' && verdict.reason, 'no-manager');
  assert.deepEqual(decideClusterGate(job('PreferLeader'), 'schedule', true, null), {
    kind: 'allow',
    basis: 'no-manager-never-skip',
  });
});

void test('single-leader: the leader runs Leader and PreferLeader; a follower runs neither', () => {
  assert.deepEqual(kinds(new StaticLeadership()), ['allow', 'allow', 'allow']);
  const follower = new StaticLeadership({ leaderName: 'a', availableLeaderName: 'a' });
  assert.deepEqual(kinds(follower), ['deny', 'deny', 'allow']);
  const verdict = decideClusterGate(job('Leader'), 'schedule', true, follower);
  assert.deepEqual(verdict, {
    kind: 'deny',
    reason: 'not-leader',
    detail: 'the elected leader is a',
  });
});

void test('no quorum: Leader skips, PreferLeader runs on the lowest reachable node', () => {
  const alone = new StaticLeadership({ quorate: false });
  assert.deepEqual(kinds(alone), ['deny', 'allow', 'allow']);
  const verdict = decideClusterGate(job('Leader'), 'schedule', true, alone);
  assert.equal(verdict.kind === 'deny' && verdict.reason, 'no-quorum');
});

void test('a leader no peer has vouched for yet skips Leader jobs (single-leader and spread); PreferLeader runs', () => {
  for (const distribution of ['single-leader', 'spread'] as const) {
    const newcomer = new StaticLeadership({ distribution, quorumConfirmed: false });
    assert.deepEqual(kinds(newcomer), ['deny', 'allow', 'allow'], distribution);
    assert.deepEqual(decideClusterGate(job('Leader'), 'schedule', true, newcomer), {
      kind: 'deny',
      reason: 'unconfirmed',
      detail: 'no peer has confirmed this node quorate yet',
    });
    newcomer.state.quorumConfirmed = true;
    assert.deepEqual(kinds(newcomer), ['allow', 'allow', 'allow'], distribution);
  }
});

void test('a conflict stands Leader down only; PreferLeader and EveryNode are not gated on it', () => {
  for (const conflicts of [
    { names: ['me'], sizes: [], policies: [] },
    { names: [], sizes: [5], policies: [] },
    { names: [], sizes: [], policies: ["distribution 'spread' != 'single-leader'"] },
  ]) {
    const backend = new StaticLeadership({ conflicts });
    assert.deepEqual(kinds(backend), ['deny', 'allow', 'allow']);
    const verdict = decideClusterGate(job('Leader'), 'schedule', true, backend);
    assert.equal(verdict.kind === 'deny' && verdict.reason, 'conflict');
  }
});

void test('the convergence hold closes PreferLeader only (the quorum-gated read never consults it)', () => {
  const converging = new StaticLeadership({ viewSettled: false });
  assert.deepEqual(kinds(converging), ['allow', 'deny', 'allow']);
  const verdict = decideClusterGate(job('PreferLeader'), 'schedule', true, converging);
  assert.equal(verdict.kind === 'deny' && verdict.reason, 'converging');
});

void test('spread: the quorum-gated owner runs Leader, the reachable owner runs PreferLeader', () => {
  const backend = new StaticLeadership({
    distribution: 'spread',
    leaderName: 'a',
    jobOwners: new Map([
      ['mine', 'me'],
      ['theirs', 'b'],
    ]),
    availableJobOwners: new Map([
      ['mine', 'me'],
      ['theirs', 'b'],
    ]),
  });
  assert.equal(decideClusterGate(job('Leader', 'mine'), 'schedule', true, backend).kind, 'allow');
  assert.deepEqual(decideClusterGate(job('Leader', 'theirs'), 'schedule', true, backend), {
    kind: 'deny',
    reason: 'not-owner',
    detail: 'the owner of this job is b',
  });
  assert.equal(
    decideClusterGate(job('PreferLeader', 'mine'), 'schedule', true, backend).kind,
    'allow',
  );
  assert.equal(
    decideClusterGate(job('PreferLeader', 'theirs'), 'schedule', true, backend).kind,
    'deny',
  );
  backend.state.conflicts = { names: [], sizes: [4], policies: [] };
  assert.equal(decideClusterGate(job('Leader', 'mine'), 'schedule', true, backend).kind, 'deny');
  assert.equal(
    decideClusterGate(job('PreferLeader', 'mine'), 'schedule', true, backend).kind,
    'allow',
  );
});

void test('manual starts are never gated', () => {
  assert.deepEqual(decideClusterGate(job('Leader'), 'manual', true, null), {
    kind: 'allow',
    basis: 'manual',
  });
});

void test('a throwing read fails closed with the reference error line', () => {
  const backend = new StaticLeadership();
  backend.hasConflict = () => {
    throw new Error('view unreadable');
  };
  const logger = recordingLogger();
  const gate = new ClusterGate(new StaticLeadershipSource(true, backend), logger);
  assert.deepEqual(gate.verdict(job('Leader', 'billing'), 'schedule'), {
    kind: 'deny',
    reason: 'error',
    detail: 'view unreadable',
  });
  assert.deepEqual(
    logger.at('error').map((line) => line.message),
    ['cluster: error evaluating the leader gate for job billing; failing closed: view unreadable'],
  );
});

void test('retry: an allowed retry launches; a transient denial defers', () => {
  const source = new StaticLeadershipSource(true, new StaticLeadership());
  const gate = new ClusterGate(source, silentLogger());
  assert.deepEqual(gate.retryDecision(job('Leader')), { kind: 'launch' });
  source.backend = null;
  assert.equal(gate.retryDecision(job('Leader')).kind, 'defer', 'no manager is transient');
  source.backend = new StaticLeadership({ quorate: false, availableLeaderName: 'a' });
  assert.equal(gate.retryDecision(job('Leader')).kind, 'defer', 'no quorum is transient');
  source.backend = new StaticLeadership({
    conflicts: { names: ['me'], sizes: [], policies: [] },
    availableLeaderName: 'a',
  });
  assert.equal(gate.retryDecision(job('Leader')).kind, 'defer', 'a conflict is transient');
  source.backend = new StaticLeadership({
    viewSettled: false,
    leaderName: 'a',
    availableLeaderName: 'a',
  });
  assert.equal(
    gate.retryDecision(job('PreferLeader')).kind,
    'defer',
    'the convergence hold is transient',
  );
});

void test('retry: a positively observed ownership move abandons', () => {
  const source = new StaticLeadershipSource(
    true,
    new StaticLeadership({ leaderName: 'a', availableLeaderName: 'a' }),
  );
  const gate = new ClusterGate(source, silentLogger());
  const decision = gate.retryDecision(job('Leader'));
  assert.equal(decision.kind, 'abandon');
  assert.equal(decision.kind === 'abandon' && decision.verdict.reason, 'not-leader');
  assert.ok(gate.observedOwnershipMove(job('Leader')));
  const spread = new StaticLeadership({
    distribution: 'spread',
    jobOwners: new Map([['j', 'b']]),
    availableJobOwners: new Map([['j', 'b']]),
  });
  source.backend = spread;
  assert.equal(gate.retryDecision(job('Leader', 'j')).kind, 'abandon');
  spread.isAvailableJobOwner = () => {
    throw new Error('boom');
  };
  assert.equal(gate.observedOwnershipMove(job('Leader', 'j')), false, 'a read error is not a move');
});
