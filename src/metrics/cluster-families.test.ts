// The yacron2_cluster_* families: names, types and labels in both exposition formats, emission
// rules (counters only with election or a non-zero count; view families only with a backend;
// leader_info only with a leader; peers zero-filled), and a view that cannot be read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { FakeClock } from '../common/index.js';
import { makeConfig } from '../config/testing.js';
import { recordingLogger } from '../logging/testing.js';
import {
  createClusterFamilies,
  type ClusterMetricsSource,
  type ClusterMetricsView,
} from './cluster-families.js';
import { createMetrics } from './create-metrics.js';
import { parseExposition } from './exposition-parser.js';
import { registerFamily } from './family.js';

const VIEW: ClusterMetricsView = {
  backend: 'gossip',
  nodeName: 'node-a',
  distribution: 'single-leader',
  clusterSize: 3,
  quorum: 2,
  quorate: true,
  isLeader: true,
  leaderName: 'node-a',
  conflicts: { nodename: false, size: true, policy: false },
  peerStatuses: [
    ['unknown', 0],
    ['self', 0],
    ['agreed', 1],
    ['syncing', 0],
    ['drifted', 0],
    ['unreachable', 1],
    ['untrusted', 0],
    ['conflict', 0],
  ],
};

class Source implements ClusterMetricsSource {
  electLeader = true;
  leader = 3;
  quorum = 2;
  current: ClusterMetricsView | null | 'throw' = VIEW;
  electLeaderConfigured(): boolean {
    return this.electLeader;
  }
  leaderTransitions(): number {
    return this.leader;
  }
  quorumTransitions(): number {
    return this.quorum;
  }
  view(): ClusterMetricsView | null {
    if (this.current === 'throw') throw new Error('view unreadable');
    return this.current;
  }
}

async function scrape(source: Source, format: 'text' | 'openmetrics' = 'text') {
  const registry = new Registry();
  const logger = recordingLogger();
  const metrics = createMetrics({
    clock: new FakeClock(),
    registry,
    config: makeConfig([]),
    version: 'x',
    logger,
    isClusterEnabled: () => source.current !== null,
  });
  for (const family of createClusterFamilies(source)) registerFamily(registry, family);
  const { body } = await metrics.render(
    format === 'openmetrics' ? 'application/openmetrics-text' : undefined,
  );
  const families = parseExposition(body, format).filter((family) =>
    family.name.startsWith('yacron2_cluster'),
  );
  return { body, families, logger };
}

void test('every family with its type and labels, in the documented order (text format)', async () => {
  const { families } = await scrape(new Source());
  assert.deepEqual(
    families.map((family) => [family.name, family.type]),
    [
      ['yacron2_cluster_enabled', 'gauge'],
      ['yacron2_cluster_leader_transitions_total', 'counter'],
      ['yacron2_cluster_quorum_transitions_total', 'counter'],
      ['yacron2_cluster_info', 'gauge'],
      ['yacron2_cluster_size', 'gauge'],
      ['yacron2_cluster_quorum', 'gauge'],
      ['yacron2_cluster_quorate', 'gauge'],
      ['yacron2_cluster_is_leader', 'gauge'],
      ['yacron2_cluster_leader_info', 'gauge'],
      ['yacron2_cluster_conflict', 'gauge'],
      ['yacron2_cluster_peers', 'gauge'],
    ],
  );
  const samples = new Map(
    families.flatMap((family) =>
      family.samples.map((sample) => [
        `${sample.name}${JSON.stringify(sample.labels)}`,
        sample.value,
      ]),
    ),
  );
  assert.equal(samples.get('yacron2_cluster_leader_transitions_total{}'), 3);
  assert.equal(
    samples.get(
      'yacron2_cluster_info{"backend":"gossip","node_name":"node-a","distribution":"single-leader"}',
    ),
    1,
  );
  assert.equal(samples.get('yacron2_cluster_leader_info{"leader":"node-a"}'), 1);
  assert.equal(samples.get('yacron2_cluster_conflict{"kind":"size"}'), 1);
  assert.equal(samples.get('yacron2_cluster_conflict{"kind":"policy"}'), 0);
  assert.equal(samples.get('yacron2_cluster_peers{"status":"unreachable"}'), 1);
  assert.equal(samples.get('yacron2_cluster_peers{"status":"conflict"}'), 0);
  assert.equal(
    families.find((family) => family.name === 'yacron2_cluster_peers')?.samples.length,
    8,
  );
});

void test('OpenMetrics: counters and info families take their family names', async () => {
  const { families } = await scrape(new Source(), 'openmetrics');
  const types = new Map(families.map((family) => [family.name, family.type]));
  assert.equal(types.get('yacron2_cluster_leader_transitions'), 'counter');
  assert.equal(types.get('yacron2_cluster'), 'info');
  assert.equal(types.get('yacron2_cluster_leader'), 'info');
});

void test('no backend: only enabled 0 and the counters (while election is configured)', async () => {
  const source = new Source();
  source.current = null;
  const { families } = await scrape(source);
  assert.deepEqual(
    families.map((family) => family.name),
    [
      'yacron2_cluster_enabled',
      'yacron2_cluster_leader_transitions_total',
      'yacron2_cluster_quorum_transitions_total',
    ],
  );
  source.electLeader = false;
  source.leader = 0;
  source.quorum = 0;
  assert.deepEqual(
    (await scrape(source)).families.map((family) => family.name),
    ['yacron2_cluster_enabled'],
  );
});

void test('spread (no leader) has no leader_info; a node without peers has no peers family', async () => {
  const source = new Source();
  source.current = {
    ...VIEW,
    distribution: 'spread',
    isLeader: false,
    leaderName: null,
    peerStatuses: null,
  };
  const names = (await scrape(source)).families.map((family) => family.name);
  assert.ok(!names.includes('yacron2_cluster_leader_info'));
  assert.ok(!names.includes('yacron2_cluster_peers'));
  assert.ok(names.includes('yacron2_cluster_is_leader'));
});

void test('a view that cannot be read drops the view families, keeps the counters, and is logged', async () => {
  const source = new Source();
  source.current = 'throw';
  const { families, logger } = await scrape(source);
  assert.deepEqual(
    families.map((family) => family.name),
    [
      'yacron2_cluster_enabled',
      'yacron2_cluster_leader_transitions_total',
      'yacron2_cluster_quorum_transitions_total',
    ],
  );
  assert.ok(
    logger
      .at('error')
      .some(
        (line) => line.message === 'Cannot collect metric yacron2_cluster_info: view unreadable',
      ),
  );
});

void test('createMetrics with a cluster source registers the families and feeds yacron2_cluster_enabled from it', async () => {
  const source = new Source();
  const registry = new Registry();
  const metrics = createMetrics({
    clock: new FakeClock(),
    registry,
    config: makeConfig([]),
    version: 'x',
    cluster: source,
  });
  const families = parseExposition((await metrics.render()).body, 'text');
  const enabled = families.find((family) => family.name === 'yacron2_cluster_enabled');
  assert.equal(enabled?.samples[0]?.value, 1);
  assert.ok(families.some((family) => family.name === 'yacron2_cluster_peers'));
  source.current = null;
  const off = parseExposition((await metrics.render()).body, 'text');
  assert.equal(
    off.find((family) => family.name === 'yacron2_cluster_enabled')?.samples[0]?.value,
    0,
  );
});
