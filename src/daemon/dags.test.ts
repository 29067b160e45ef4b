// clusterPolicy for a DAG's scheduled runs: who creates them with and without leader election.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ClusterStatus } from '../cluster/index.js';
import type { ResolvedConfig } from '../config/index.js';
import { makeConfig } from '../config/testing.js';
import { makeDag } from '../dags/testing.js';
import { mayCreateScheduledRuns } from './dags.js';

void test('scheduled runs: every node without election; Leader, PreferLeader and EveryNode with it', () => {
  const plain = makeConfig([]);
  const elected = { ...plain, cluster: { electLeader: true } } as unknown as ResolvedConfig;
  const status = (isLeader: boolean, quorate: boolean) => ({ isLeader, quorate }) as ClusterStatus;
  const rows: [string, ResolvedConfig, ClusterStatus | null, boolean][] = [
    ['Leader', plain, null, true],
    ['Leader', elected, null, false],
    ['Leader', elected, status(true, true), true],
    ['Leader', elected, status(false, true), false],
    ['Leader', elected, status(false, false), false],
    ['PreferLeader', elected, null, true],
    ['PreferLeader', elected, status(false, false), true],
    ['PreferLeader', elected, status(false, true), false],
    ['EveryNode', elected, status(false, true), true],
  ];
  for (const [policy, config, clusterStatus, expected] of rows) {
    const dag = makeDag('d', [{ id: 't' }], { clusterPolicy: policy as 'Leader' });
    assert.equal(
      mayCreateScheduledRuns(dag, config, clusterStatus),
      expected,
      `${policy} ${JSON.stringify(clusterStatus)}`,
    );
  }
});
