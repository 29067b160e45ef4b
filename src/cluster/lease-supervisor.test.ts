// The supervisor on a lease backend (memory lease clients on one FakeClock): it builds the elector
// the gate reads, renders the lease-shaped /cluster view and the metrics view from it, keeps it
// across an unchanged reload, rebuilds it on a changed one, releases the lease at shutdown, and
// runs the observability overlay (an election-inert gossip mesh) that serves /fleet but is never
// consulted by the gate.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { FakeClock, flushMicrotasks } from '../common/index.js';
import { recordingLogger } from '../logging/testing.js';
import type { ResolvedCluster, ResolvedEtcdCluster } from '../config/index.js';
import { ClusterGate, MemoryLeaseClient, MemoryLeaseStore } from '../leadership/index.js';
import { gossipConfig } from './cluster-fixture.test.js';
import { MemoryNetwork } from './memory-transport.js';
import { ClusterSupervisor } from './supervisor.js';

const JOB_SET_ID = `v1:${'2'.repeat(64)}`;

function leaseConfig(
  name: string,
  overrides: Partial<ResolvedEtcdCluster> = {},
): ResolvedEtcdCluster {
  return {
    backend: 'etcd',
    nodeName: name,
    connectTimeoutMs: 10_000,
    electLeader: true,
    distribution: 'single-leader',
    advisories: [
      "cluster.electLeader: false is ignored by the 'etcd' backend; a lease backend always enables leader election",
    ],
    shareNodeStats: true,
    source: { file: 'x.yaml', line: 1 },
    observabilityMesh: null,
    etcd: {
      endpoints: ['http://127.0.0.1:2379'],
      electionName: 'yacron2/leader',
      ttlSeconds: 9,
      username: null,
      password: null,
      passwordEnvVar: null,
      tls: { ca: null, cert: null, key: null },
    },
    ...overrides,
  };
}

function supervisorFor(
  name: string,
  clock: FakeClock,
  store: MemoryLeaseStore,
  network: MemoryNetwork,
  index: number,
  tracked: readonly string[] = [],
) {
  const logger = recordingLogger();
  const built: string[] = [];
  const supervisor = new ClusterSupervisor({
    clock,
    logger,
    jobSetId: () => JOB_SET_ID,
    jobSummaries: () => ({ jobs: new Map(), truncated: false }),
    nodeStats: () => ({ cpu_percent: 1 }),
    loadTls: () =>
      Promise.resolve({ ca: Buffer.from('ca'), cert: Buffer.from('c'), key: Buffer.from('k') }),
    snapshotTls: () => Promise.resolve({ ca: 'ca@1', cert: 'cert@1', key: 'key@1' }),
    createTransport: () => network.transportFor(String(index), [`n${index}:9443`]),
    createLeaseClient: (cluster) => {
      built.push(cluster.nodeName);
      const client = new MemoryLeaseClient(store, { identity: cluster.nodeName, ttlMs: 9000 });
      return {
        client: Object.assign(client, { trackedFiles: () => tracked }),
        options: { nodeName: cluster.nodeName, releaseTimeoutMs: 1000 },
      };
    },
  });
  return { supervisor, logger, built, gate: new ClusterGate(supervisor, logger) };
}

void test('a lease backend: the gate reads the elector; /cluster and metrics are lease-shaped', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  const network = new MemoryNetwork();
  const a = supervisorFor('a', clock, store, network, 0);
  const b = supervisorFor('b', clock, store, network, 1);
  await a.supervisor.reconcile(leaseConfig('a'));
  await b.supervisor.reconcile(leaseConfig('b'));
  assert.equal(a.gate.verdict({ name: 'j', clusterPolicy: 'Leader' }, 'schedule').kind, 'deny');
  await clock.advance(1000); // the new holder's handover hold (docs/clustering.md "Clock skew")
  assert.equal(a.gate.verdict({ name: 'j', clusterPolicy: 'Leader' }, 'schedule').kind, 'allow');
  assert.deepEqual(b.gate.verdict({ name: 'j', clusterPolicy: 'Leader' }, 'schedule'), {
    kind: 'deny',
    reason: 'not-leader',
    detail: 'the elected leader is a',
  });
  assert.equal(
    b.gate.verdict({ name: 'j', clusterPolicy: 'PreferLeader' }, 'schedule').kind,
    'deny',
  );
  assert.match(a.logger.at('warn')[0]?.message ?? '', /^cluster.electLeader: false is ignored/);
  const status = b.supervisor.describe();
  assert.equal(status?.backend, 'etcd');
  assert.deepEqual(
    { ...status, lease: undefined },
    {
      backend: 'etcd',
      nodeName: 'b',
      jobSetId: JOB_SET_ID,
      quorate: true,
      leader: 'a',
      isLeader: false,
      lease: undefined,
      fleet: false,
    },
  );
  assert.deepEqual(a.supervisor.view(), {
    backend: 'etcd',
    nodeName: 'a',
    distribution: 'single-leader',
    clusterSize: 1,
    quorum: 1,
    quorate: true,
    isLeader: true,
    leaderName: 'a',
    conflicts: { nodename: false, size: false, policy: false },
    peerStatuses: null,
  });
  assert.equal(a.supervisor.fleet(), null, 'no overlay: /fleet is disabled');
  a.supervisor.onSchedulerPass();
  assert.equal(a.supervisor.leaderTransitions(), 1);

  await a.supervisor.reconcile({
    ...leaseConfig('a'),
    shareNodeStats: false,
    source: { file: 'y.yaml', line: 3 },
  });
  assert.deepEqual(a.built, ['a'], 'an unchanged lease config keeps the elector');
  await a.supervisor.reconcile(leaseConfig('a', { connectTimeoutMs: 5000 }));
  assert.deepEqual(a.built, ['a', 'a'], 'a changed one rebuilds it');
  assert.ok(
    a.logger.at('info').some((line) => line.message === 'cluster: configuration changed, stopping'),
  );

  await a.supervisor.stop();
  assert.notEqual(store.holder, 'a', 'released at shutdown');
  await clock.advance(3000);
  await flushMicrotasks(100);
  assert.equal(b.supervisor.current()?.isLeader(), true, 'b takes over at its next round');
  await b.supervisor.stop();
});

void test('the observability overlay serves /fleet on a lease backend and never answers the gate', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  const network = new MemoryNetwork();
  const mesh = (name: string, peer: string) =>
    gossipConfig(name, [peer], {
      electLeader: false,
      listen: { text: `${name}:9443`, host: name, port: 9443 },
    });
  const configs: ResolvedCluster[] = [
    leaseConfig('a', { observabilityMesh: mesh('a', 'n1:9443') }),
    leaseConfig('b', { observabilityMesh: mesh('b', 'n0:9443') }),
  ];
  const nodes = [
    supervisorFor('a', clock, store, network, 0),
    supervisorFor('b', clock, store, network, 1),
  ];
  await nodes[0]!.supervisor.reconcile(configs[0]!);
  await nodes[1]!.supervisor.reconcile(configs[1]!);
  await clock.advance(1000);
  await flushMicrotasks(200);
  const fleet = nodes[0]!.supervisor.fleet();
  assert.equal(fleet?.backend, 'gossip');
  assert.deepEqual(
    fleet?.nodes.map((node) => [node.nodeName, node.self, node.status]),
    [
      ['a', true, 'self'],
      ['b', false, 'agreed'],
    ],
  );
  const status = nodes[0]!.supervisor.describe();
  assert.equal(status?.backend === 'etcd' && status.fleet, true);
  assert.equal(nodes[0]!.supervisor.current()?.backend, 'etcd', 'the gate reads the elector');
  assert.equal(
    nodes[0]!.supervisor.view()?.peerStatuses,
    null,
    'metrics come from the election backend',
  );
  await nodes[0]!.supervisor.reconcile(leaseConfig('a'));
  assert.equal(nodes[0]!.supervisor.fleet(), null, 'overlay removed');
  assert.ok(
    nodes[0]!.logger
      .at('info')
      .some((line) => line.message === 'cluster.observability: configuration changed, stopping'),
  );
  await nodes[0]!.supervisor.stop();
  await nodes[1]!.supervisor.stop();
});

void test('switching from gossip to a lease backend stops the mesh and builds the elector', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  const network = new MemoryNetwork();
  const a = supervisorFor('a', clock, store, network, 0);
  await a.supervisor.reconcile(gossipConfig('a', []));
  assert.equal(a.supervisor.current()?.backend, 'gossip');
  await a.supervisor.reconcile(leaseConfig('a'));
  assert.equal(a.supervisor.current()?.backend, 'etcd');
  assert.equal(a.supervisor.node(), null);
  await a.supervisor.reconcile(gossipConfig('a', []));
  assert.equal(a.supervisor.current()?.backend, 'gossip');
  assert.equal(a.supervisor.elector(), null);
  await a.supervisor.reconcile(null);
  assert.equal(a.supervisor.current(), null);
  await a.supervisor.stop();
});

void test('a client certificate renewed in place rebuilds the lease backend; unchanged files do not', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  const dir = mkdtempSync(path.join(tmpdir(), 'lease-files-'));
  const ca = path.join(dir, 'ca.pem');
  writeFileSync(ca, 'one');
  const a = supervisorFor('a', clock, store, new MemoryNetwork(), 0, [ca]);
  await a.supervisor.reconcile(leaseConfig('a'));
  await a.supervisor.reconcile(leaseConfig('a'));
  assert.deepEqual(a.built, ['a'], 'unchanged files keep the elector');
  writeFileSync(ca, 'renewed, longer');
  await a.supervisor.reconcile(leaseConfig('a'));
  assert.deepEqual(a.built, ['a', 'a']);
  assert.ok(
    a.logger
      .at('info')
      .some((line) => line.message === 'cluster: TLS certificate files changed, stopping'),
  );
  await a.supervisor.stop();
});
