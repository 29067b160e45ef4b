// GET /cluster's lease-shaped rendering: the gossip keys with a single holder's values (size and
// quorum 1, no peers, never a conflict), then `lease` and `fleet`, then node_stats.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderClusterStatus } from './cluster-views.js';

void test('a lease backend renders the lease-shaped view in the reference key order', () => {
  const body = renderClusterStatus(
    {
      backend: 'kubernetes',
      nodeName: 'pod-a',
      jobSetId: 'v1:abc',
      quorate: true,
      leader: 'pod-b',
      isLeader: false,
      lease: {
        name: 'yacron2-leader',
        namespace: 'jobs',
        identity: 'pod-a#0123456789ab',
        holder: 'pod-b',
        expiry: null,
      },
      fleet: false,
    },
    { cpu_percent: 3 },
  );
  assert.equal(
    JSON.stringify(body),
    '{"enabled":true,"backend":"kubernetes","node_name":"pod-a","job_set_id":"v1:abc","cluster_size":1,"quorum":1,"elect_leader":true,"distribution":"single-leader","conflict":false,"conflict_names":[],"size_conflict":false,"conflicting_sizes":[],"policy_conflict":false,"conflicting_policies":[],"quorate":true,"leader":"pod-b","is_leader":false,"peers":[],"lease":{"name":"yacron2-leader","namespace":"jobs","identity":"pod-a#0123456789ab","holder":"pod-b","expiry":null},"fleet":false,"node_stats":{"cpu_percent":3}}',
  );
});
