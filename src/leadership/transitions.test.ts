// Transition lines and counters: once per change, never per pass, and the manager-stopped case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordingLogger } from '../logging/testing.js';
import { StaticLeadership } from './static-leadership.js';
import { LeadershipTransitions } from './transitions.js';

void test('joining quorum and acquiring leadership are logged and counted once', () => {
  const logger = recordingLogger();
  const transitions = new LeadershipTransitions(logger);
  const events: unknown[] = [];
  transitions.events.on('leader:changed', (event) => events.push(event));
  const backend = new StaticLeadership();
  transitions.evaluate(true, backend);
  transitions.evaluate(true, backend);
  assert.deepEqual(
    logger.lines.map((line) => line.message),
    ['cluster: this node joined quorum', 'cluster: this node acquired scheduled-job leadership'],
  );
  assert.deepEqual([transitions.leaderTransitions, transitions.quorumTransitions], [1, 1]);
  assert.deepEqual(events, [{ isLeader: true, leaderName: 'me' }]);
  backend.state.quorate = false;
  transitions.evaluate(true, backend);
  assert.deepEqual(
    logger.lines.slice(2).map((line) => line.message),
    [
      'cluster: this node left quorum; no majority reachable, so Leader jobs cannot run until one is',
      'cluster: this node lost scheduled-job leadership',
    ],
  );
  assert.deepEqual([transitions.leaderTransitions, transitions.quorumTransitions], [2, 2]);
});

void test('spread: quorum lines speak of per-job ownership; there is no leadership to count', () => {
  const logger = recordingLogger();
  const transitions = new LeadershipTransitions(logger);
  const backend = new StaticLeadership({ distribution: 'spread' });
  transitions.evaluate(true, backend);
  backend.state.quorate = false;
  transitions.evaluate(true, backend);
  assert.deepEqual(
    logger.lines.map((line) => line.message),
    [
      'cluster: this node joined quorum; per-job ownership active',
      'cluster: this node left quorum; per-job ownership suspended',
    ],
  );
  assert.equal(transitions.leaderTransitions, 0);
});

void test('each conflict kind: ERROR on onset, INFO on clear', () => {
  const logger = recordingLogger();
  const transitions = new LeadershipTransitions(logger);
  const backend = new StaticLeadership({ quorate: false });
  transitions.evaluate(true, backend);
  backend.state.conflicts = {
    names: ['a', 'b'],
    sizes: [4, 5],
    policies: ["distribution 'spread' != 'single-leader'", 'electLeader False != True'],
  };
  transitions.evaluate(true, backend);
  transitions.evaluate(true, backend);
  assert.deepEqual(
    logger.at('error').map((line) => line.message),
    [
      'cluster: duplicate nodeName detected (a, b) -- Leader jobs will stand down until every node has a unique cluster.nodeName',
      "cluster: cluster-size disagreement -- agreeing peers declare 4, 5 but we declare 3; Leader jobs will stand down until every node's cluster.peers agree on the member set",
      "cluster: coordination-policy divergence -- agreeing peers declare distribution 'spread' != 'single-leader'; electLeader False != True; Leader jobs will stand down until every node's cluster.distribution and cluster.electLeader agree",
    ],
  );
  backend.state.conflicts = { names: [], sizes: [], policies: [] };
  transitions.evaluate(true, backend);
  assert.deepEqual(
    logger.at('info').map((line) => line.message),
    [
      'cluster: nodeName conflict resolved; Leader jobs may run again',
      'cluster: cluster-size disagreement resolved; Leader jobs may run again',
      'cluster: coordination-policy divergence resolved; Leader jobs may run again',
    ],
  );
});

void test('a manager stopped for a rebuild drops held leadership and quorum, with that reason', () => {
  const logger = recordingLogger();
  const transitions = new LeadershipTransitions(logger);
  transitions.evaluate(true, new StaticLeadership());
  transitions.managerStopping();
  transitions.evaluate(true, null);
  assert.deepEqual(
    logger.lines.slice(2).map((line) => line.message),
    [
      'cluster: this node lost scheduled-job leadership (leadership manager stopped for reload)',
      'cluster: this node left quorum (leadership manager stopped for reload); Leader jobs stand down until the new manager sees a majority',
    ],
  );
  assert.deepEqual([transitions.leaderTransitions, transitions.quorumTransitions], [2, 2]);
});

void test('without election configured nothing is logged or counted', () => {
  const logger = recordingLogger();
  const transitions = new LeadershipTransitions(logger);
  transitions.evaluate(false, new StaticLeadership());
  assert.equal(logger.lines.length, 0);
  assert.equal(transitions.leaderTransitions, 0);
});
