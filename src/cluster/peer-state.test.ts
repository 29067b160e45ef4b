// The per-peer state machine against the reference's recorded status sequences, plus the rules
// the sequences exercise spelled out one by one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterGolden, label } from './golden-fixture.test.js';
import {
  applyPeerFailure,
  applyPeerSuccess,
  newPeerRecord,
  type LocalIdentity,
} from './peer-state.js';
import type { PeerObservation, PeerRecord } from './types.js';

function observation(fields: Partial<PeerObservation>): PeerObservation {
  return {
    nodeName: null,
    jobSetId: null,
    schemeVersion: null,
    instanceId: null,
    declaredSize: null,
    declaredDistribution: null,
    declaredElectLeader: null,
    members: [],
    reportsMembers: true,
    ranRebootJobs: new Set(),
    mutualAgreeing: new Set(),
    quorateVouched: new Set(),
    summaries: null,
    ...fields,
  };
}

const ID_A = `v1:${'a'.repeat(64)}`;
const ID_B = `v1:${'b'.repeat(64)}`;
const ME: LocalIdentity = {
  nodeName: 'me',
  instanceId: '0'.repeat(32),
  jobSetId: ID_A,
  driftAfter: 3,
};

function snapshot(peer: PeerRecord): Record<string, unknown> {
  return {
    status: peer.status,
    mismatch_streak: peer.mismatchStreak,
    self_confirmed: peer.selfConfirmed,
    last_error: peer.lastError,
  };
}

void test('every recorded status sequence', () => {
  const sequences = clusterGolden().view_sequences;
  assert.ok(sequences.length >= 40);
  for (const [index, sequence] of sequences.entries()) {
    const peer = newPeerRecord('peer:8443');
    sequence.events.forEach((event, step) => {
      const me: LocalIdentity = {
        nodeName: sequence.my_name,
        instanceId: sequence.my_instance,
        jobSetId: event.my_id,
        driftAfter: sequence.drift_after,
      };
      if (event.op === 'success') {
        applyPeerSuccess(
          peer,
          observation({
            nodeName: event.peer_name,
            jobSetId: event.peer_id,
            schemeVersion: event.peer_scheme,
            instanceId: event.peer_instance,
          }),
          me,
          1000 * step,
          null,
        );
      } else {
        applyPeerFailure(peer, 'boom', event.untrusted);
      }
      assert.deepEqual(
        snapshot(peer),
        sequence.expect[step],
        `sequence ${index} step ${step}: ${label(event)}`,
      );
    });
  }
});

void test('a mismatch is syncing until it has lasted driftAfter rounds, then drifted', () => {
  const peer = newPeerRecord('p');
  const other = observation({ nodeName: 'p', jobSetId: ID_B, instanceId: '1'.repeat(32) });
  const statuses: string[] = [];
  for (let round = 0; round < 4; round++) {
    applyPeerSuccess(peer, other, ME, round, null);
    statuses.push(peer.status);
  }
  assert.deepEqual(statuses, ['syncing', 'syncing', 'drifted', 'drifted']);
  assert.equal(peer.mismatchStreak, 4);
});

void test('a failed round neither advances nor resets the streak; only agreement clears it', () => {
  const peer = newPeerRecord('p');
  const other = observation({ nodeName: 'p', jobSetId: ID_B, instanceId: '1'.repeat(32) });
  applyPeerSuccess(peer, other, ME, 0, null);
  applyPeerSuccess(peer, other, ME, 1, null);
  applyPeerFailure(peer, 'Cannot connect', false);
  assert.equal(peer.status, 'unreachable');
  assert.equal(peer.mismatchStreak, 2);
  applyPeerSuccess(peer, other, ME, 2, null);
  assert.equal(peer.status, 'drifted', 'the flap did not postpone drifted');
  applyPeerSuccess(peer, { ...other, jobSetId: ID_A }, ME, 3, null);
  assert.deepEqual([peer.status, peer.mismatchStreak], ['agreed', 0]);
});

void test('a different fingerprint scheme is drifted at once and does not touch the streak', () => {
  const peer = newPeerRecord('p');
  applyPeerSuccess(
    peer,
    observation({ nodeName: 'p', jobSetId: 'v2:x', schemeVersion: 'v2' }),
    ME,
    0,
    null,
  );
  assert.deepEqual([peer.status, peer.mismatchStreak], ['drifted', 0]);
  assert.equal(peer.lastError, "fingerprint scheme mismatch: 'v2' != 'v1'");
});

void test('my name with another instance is a conflict; with mine (or none) it is a self-listing', () => {
  const peer = newPeerRecord('p');
  applyPeerSuccess(
    peer,
    observation({ nodeName: 'me', jobSetId: ID_A, instanceId: 'f'.repeat(32) }),
    ME,
    0,
    null,
  );
  assert.equal(peer.status, 'conflict');
  assert.equal(peer.lastError, "duplicate nodeName 'me': peer is a different instance");
  applyPeerSuccess(
    peer,
    observation({ nodeName: 'me', jobSetId: ID_A, instanceId: null }),
    ME,
    1,
    null,
  );
  assert.deepEqual([peer.status, peer.selfConfirmed], ['self', true]);
  applyPeerFailure(peer, 'TLS', true);
  assert.equal(peer.status, 'self', 'a confirmed self-listing stays self while unreachable');
});

void test('a failure forgets the gossip sets but keeps identity, declared fields and summaries', () => {
  const peer = newPeerRecord('p');
  const summaries = { jobs: new Map(), truncated: false, receivedAtMs: 5 };
  applyPeerSuccess(
    peer,
    observation({
      nodeName: 'p',
      jobSetId: ID_A,
      instanceId: '1'.repeat(32),
      declaredSize: 3,
      members: [{ nodeName: 'p', instanceId: '1'.repeat(32), agreed: true }],
      mutualAgreeing: new Set(['me']),
      summaries,
    }),
    ME,
    5,
    { cpu_percent: 3 },
  );
  applyPeerFailure(peer, 'HTTP 503', false);
  assert.equal(peer.members, null);
  assert.equal(peer.mutualAgreeing, null);
  assert.equal(peer.reportsMembers, false);
  assert.deepEqual([peer.nodeName, peer.instanceId, peer.declaredSize], ['p', '1'.repeat(32), 3]);
  assert.equal(peer.summaries, summaries);
  assert.deepEqual(peer.nodeStats, { cpu_percent: 3 });
  assert.equal(peer.lastSeenMs, 5);
});
