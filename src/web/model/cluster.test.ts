import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  countOwners,
  peerDot,
  summarizeCluster,
  type ClusterWire,
  type PeerWire,
} from './cluster.js';

const ID_A = `v1:${'a'.repeat(64)}`;

function peer(overrides: Partial<PeerWire> = {}): PeerWire {
  return {
    host: '10.0.0.2:7946',
    status: 'agreed',
    node_name: 'b',
    job_set_id: ID_A,
    last_seen: '2026-06-21T12:00:00+00:00',
    last_error: null,
    mismatch_streak: 0,
    node_stats: null,
    ...overrides,
  };
}

function gossip(overrides: Record<string, unknown> = {}): ClusterWire {
  return {
    enabled: true,
    backend: 'gossip',
    node_name: 'a',
    job_set_id: ID_A,
    cluster_size: 3,
    quorum: 2,
    elect_leader: true,
    distribution: 'single-leader',
    conflict: false,
    conflict_names: [],
    size_conflict: false,
    conflicting_sizes: [],
    policy_conflict: false,
    conflicting_policies: [],
    quorate: true,
    leader: 'a',
    is_leader: true,
    peers: [
      peer(),
      peer({ host: '10.0.0.3:7946', node_name: 'c', status: 'unreachable', last_seen: null }),
      peer({ host: '10.0.0.1:7946', node_name: 'a', status: 'self' }),
    ],
    node_stats: null,
    ...overrides,
  };
}

describe('summarizeCluster', () => {
  it('is null when clustering is off', () => {
    assert.equal(summarizeCluster({ enabled: false, peers: [] }), null);
  });

  it('reads a gossip leader: tally without self-listings, quorum, peer dots', () => {
    const summary = summarizeCluster(gossip())!;
    assert.equal(summary.roleText, 'leader');
    assert.deepEqual(summary.tally, { agreed: 1, of: 2 });
    assert.equal(summary.quorumText, 'quorum 2 of 3');
    assert.deepEqual(
      summary.peers.map((p) => [p.node, p.dot, p.jobSet, p.lastSeenMs]),
      [
        ['b', 'agreed', 'v1:aaaaaaaa…', Date.UTC(2026, 5, 21, 12)],
        ['c', 'gone', 'v1:aaaaaaaa…', null],
        ['a', 'self', 'v1:aaaaaaaa…', Date.UTC(2026, 5, 21, 12)],
      ],
    );
    assert.deepEqual(summary.alerts, []);
    assert.equal(summary.lease, null);
    assert.equal(summary.fleet, true);
    assert.equal(summary.owns, null);
  });

  it('names the leader of a follower and raises the alert without quorum', () => {
    assert.equal(
      summarizeCluster(gossip({ leader: 'b', is_leader: false }))!.roleText,
      'follower (leader b)',
    );
    const lost = summarizeCluster(gossip({ quorate: false, leader: null, is_leader: false }))!;
    assert.equal(lost.role.kind, 'no-quorum');
    assert.deepEqual(lost.alerts, [
      'No quorum: fewer than 2 of 3 nodes agree; Leader jobs stand down',
    ]);
  });

  it('explains each conflict kind and stands down', () => {
    const summary = summarizeCluster(
      gossip({
        conflict: true,
        conflict_names: ['b'],
        size_conflict: true,
        conflicting_sizes: [5],
        policy_conflict: true,
        conflicting_policies: ['spread'],
      }),
    )!;
    assert.equal(summary.roleText, 'standing down (conflict)');
    assert.deepEqual(summary.alerts, [
      'Duplicate nodeName: b — two nodes claim the same name; this node stands down',
      'Cluster size mismatch: this node says 3, peers say 5',
      'Policy mismatch: peers run another distribution or electLeader (spread)',
    ]);
    assert.deepEqual(summarizeCluster(gossip({ conflict: true }))!.alerts, [
      'Cluster conflict: this node stands down',
    ]);
  });

  it('counts owned jobs per node under spread', () => {
    const owners = countOwners(['a', 'b', 'a', null, undefined]);
    const summary = summarizeCluster(
      gossip({ distribution: 'spread', leader: null, is_leader: false }),
      owners,
    )!;
    assert.equal(summary.roleText, 'spread (per-job owner)');
    assert.equal(summary.owns, 2);
    assert.deepEqual(
      summary.peers.map((p) => p.owns),
      [1, 0, 2],
    );
    assert.equal(
      summarizeCluster(gossip({ distribution: 'spread', quorate: false }))!.roleText,
      'spread (no quorum)',
    );
  });

  it('shows shared node stats as the load', () => {
    const summary = summarizeCluster(
      gossip({ peers: [peer({ node_stats: { cpu_percent: 12.4, mem_percent: 40.6 } })] }),
    )!;
    assert.equal(summary.peers[0]!.load, 'CPU 12% · MEM 41%');
    assert.equal(summary.peers.length, 1);
  });

  it('reads the lease shape: no tally, the non-null lease fields, store wording', () => {
    const wire = {
      ...gossip({ cluster_size: 1, quorum: 1, peers: [], leader: 'pod-b', is_leader: false }),
      backend: 'kubernetes',
      lease: {
        name: 'yacron2',
        namespace: 'jobs',
        identity: 'pod-a#01',
        holder: 'pod-b',
        expiry: null,
      },
      fleet: false,
    } as ClusterWire;
    const summary = summarizeCluster(wire)!;
    assert.equal(summary.backend, 'kubernetes');
    assert.equal(summary.roleText, 'follower (leader pod-b)');
    assert.equal(summary.tally, null);
    assert.equal(summary.quorumText, 'lease store answering');
    assert.deepEqual(summary.lease, [
      ['name', 'yacron2'],
      ['namespace', 'jobs'],
      ['identity', 'pod-a#01'],
      ['holder', 'pod-b'],
    ]);
    assert.equal(summary.fleet, false);
    const down = summarizeCluster({ ...wire, quorate: false, leader: null } as ClusterWire)!;
    assert.equal(down.roleText, 'no quorum (lease store unreachable)');
    assert.equal(down.quorumText, 'lease store unreachable');
    assert.deepEqual(down.alerts, [
      'No quorum: the kubernetes lease store did not answer; Leader jobs stand down',
    ]);
  });

  it('maps every peer status to a dot', () => {
    const statuses = [
      'unknown',
      'self',
      'agreed',
      'syncing',
      'drifted',
      'unreachable',
      'untrusted',
      'conflict',
    ] as const;
    assert.deepEqual(
      statuses.map((status) => peerDot(status)),
      ['unknown', 'self', 'agreed', 'syncing', 'bad', 'gone', 'bad', 'bad'],
    );
  });
});
