// The supervisor across housekeeping passes: certificate rotation (a half-written one is retried,
// a loadable one rebuilds the manager), config changes, a failing start that does not stop the
// daemon (and is not re-logged every minute), the election flag set before any build.
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { systemClock } from '../common/index.js';
import type { ResolvedCluster } from '../config/index.js';
import { recordingLogger } from '../logging/testing.js';
import { gossipConfig, TestCluster } from './cluster-fixture.test.js';
import { ClusterSupervisor } from './supervisor.js';
import { makeTestCa } from './test-tls-fixture.js';

const THREE = [{ name: 'node-a' }, { name: 'node-b' }, { name: 'node-c' }];

function instanceOf(supervisor: ClusterSupervisor): string | undefined {
  return supervisor.node()?.instanceId;
}

void test('an unchanged config and unchanged certificate files keep the running manager', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  const a = cluster.node('node-a');
  const before = instanceOf(a.supervisor);
  await a.supervisor.reconcile({
    ...a.config,
    source: { file: 'other.yaml', line: 9 },
    shareNodeStats: true,
  });
  assert.equal(instanceOf(a.supervisor), before, 'the location and the stats flag do not rebuild');
  await cluster.stop();
});

void test('a half-written certificate rotation is retried; a loadable one rebuilds the manager', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  const a = cluster.node('node-a');
  const before = instanceOf(a.supervisor);
  a.files = { ...a.files, cert: 'cert@2' };
  a.tlsLoadable = false;
  await a.supervisor.reconcile(a.config);
  assert.equal(instanceOf(a.supervisor), before, 'kept running');
  assert.match(
    a.logger.at('warn').at(-1)?.message ?? '',
    /^cluster: TLS certificate files changed but the new material is not yet loadable \(a partial\/half-written rotation\?\); keeping the running manager and retrying next reload: PEM routines::bad end line$/,
  );
  a.tlsLoadable = true;
  await a.supervisor.reconcile(a.config);
  const after = instanceOf(a.supervisor);
  assert.ok(after !== undefined && after !== before, 'a new manager with a new instance id');
  assert.ok(
    a.logger
      .at('info')
      .some((line) => line.message === 'cluster: TLS certificate files changed, stopping'),
  );
  await a.supervisor.reconcile(a.config);
  assert.equal(instanceOf(a.supervisor), after, 'no rebuild while the files stay the same');
  await cluster.stop();
});

void test('a config change whose new certificates cannot load keeps the old manager', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  const a = cluster.node('node-a');
  const before = instanceOf(a.supervisor);
  a.tlsLoadable = false;
  await a.supervisor.reconcile({ ...a.config, intervalMs: 5_000 });
  assert.equal(instanceOf(a.supervisor), before);
  assert.match(
    a.logger.at('warn').at(-1)?.message ?? '',
    /^cluster: configuration changed but the new TLS material is not yet loadable; keeping the running manager/,
  );
  a.tlsLoadable = true;
  await a.supervisor.reconcile({ ...a.config, intervalMs: 5_000 });
  assert.notEqual(instanceOf(a.supervisor), before);
  assert.ok(
    a.logger.at('info').some((line) => line.message === 'cluster: configuration changed, stopping'),
  );
  await cluster.stop();
});

void test('a leader stopped for a rebuild logs the lost leadership with that reason', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  await cluster.runIntervals(3);
  const a = cluster.node('node-a');
  a.supervisor.onSchedulerPass();
  assert.equal(a.supervisor.leaderTransitions(), 1);
  await a.supervisor.reconcile({ ...a.config, driftAfter: 4 });
  const messages = a.logger.lines.map((line) => line.message);
  const stopping = messages.indexOf('cluster: configuration changed, stopping');
  assert.ok(stopping > 0);
  assert.deepEqual(messages.slice(stopping - 2, stopping), [
    'cluster: this node lost scheduled-job leadership (leadership manager stopped for reload)',
    'cluster: this node left quorum (leadership manager stopped for reload); Leader jobs stand down until the new manager sees a majority',
  ]);
  assert.equal(a.supervisor.leaderTransitions(), 2);
  await cluster.stop();
});

void test('a failing start leaves no manager, keeps the election flag, and is not re-logged every pass', async () => {
  const logger = recordingLogger();
  let now = 0;
  const clock = { ...systemClock, monotonic: () => now, now: () => now };
  const supervisor = new ClusterSupervisor({
    clock,
    logger,
    jobSetId: () => 'v1:x',
    loadTls: () => Promise.reject(new Error('ENOENT: no such file /certs/a.pem')),
    snapshotTls: () => Promise.resolve({ ca: null, cert: null, key: null }),
  });
  const config: ResolvedCluster = {
    ...gossipConfig('node-a', ['b:8443', 'c:8443']),
    advisories: ['cluster.electLeader: an advisory'],
  };
  for (let pass = 0; pass < 5; pass++) {
    await supervisor.reconcile(config);
    now += 60_000;
  }
  assert.equal(supervisor.current(), null);
  assert.equal(supervisor.electLeaderConfigured(), true, 'Leader jobs fail closed');
  assert.deepEqual(
    logger.at('error').map((line) => line.message),
    ['cluster: failed to start: ENOENT: no such file /certs/a.pem'],
  );
  assert.deepEqual(
    logger.at('warn').map((line) => line.message),
    ['cluster.electLeader: an advisory'],
    'advisories once per config',
  );
  now += 15 * 60_000;
  await supervisor.reconcile(config);
  assert.match(
    logger.at('error').at(-1)?.message ?? '',
    /^cluster: failed to start: ENOENT: no such file \/certs\/a\.pem \(still failing: 4 more attempt\(s\) since the last report\)$/,
  );
});

void test('a lease backend whose store does not answer starts, warns, and fails Leader jobs closed', async () => {
  const logger = recordingLogger();
  const supervisor = new ClusterSupervisor({ clock: systemClock, logger, jobSetId: () => 'v1:x' });
  const lease: ResolvedCluster = {
    backend: 'etcd',
    nodeName: 'a',
    connectTimeoutMs: 10_000,
    electLeader: true,
    distribution: 'single-leader',
    advisories: [],
    shareNodeStats: false,
    source: { file: 'x.yaml', line: 1 },
    observabilityMesh: null,
    etcd: {
      endpoints: ['http://127.0.0.1:1'],
      electionName: 'yacron2/leader',
      ttlSeconds: 15,
      username: null,
      password: null,
      passwordEnvVar: null,
      tls: { ca: null, cert: null, key: null },
    },
  };
  await supervisor.reconcile(lease);
  assert.equal(supervisor.electLeaderConfigured(), true);
  const backend = supervisor.current();
  assert.equal(backend?.backend, 'etcd');
  assert.equal(backend.isQuorate(), false);
  assert.equal(backend.isLeader(), false);
  assert.match(
    logger.at('warn')[0]?.message ?? '',
    /^cluster: etcd initial round failed: Cannot call etcd \/v3\/lease\/grant: no endpoint answered/,
  );
  const status = supervisor.describe();
  assert.equal(status?.backend, 'etcd');
  assert.equal(status.quorate, false);
  assert.deepEqual(status.lease, {
    electionName: 'yacron2/leader',
    identity: 'a',
    holder: null,
    leaseId: null,
    expiry: null,
  });
  await supervisor.stop();
});

void test('removing the cluster section stops the manager and turns election off', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  const a = cluster.node('node-a');
  await a.supervisor.reconcile(null);
  assert.equal(a.supervisor.current(), null);
  assert.equal(a.supervisor.electLeaderConfigured(), false);
  assert.equal(
    a.verdict('job', 'Leader').kind,
    'allow',
    'election off: every node runs everything',
  );
  await cluster.stop();
});

void test('metrics view and the /cluster view mirror the running node', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  await cluster.runIntervals(3);
  const a = cluster.node('node-a');
  const view = a.supervisor.view();
  assert.deepEqual(view, {
    backend: 'gossip',
    nodeName: 'node-a',
    distribution: 'single-leader',
    clusterSize: 3,
    quorum: 2,
    quorate: true,
    isLeader: true,
    leaderName: 'node-a',
    conflicts: { nodename: false, size: false, policy: false },
    peerStatuses: [
      ['unknown', 0],
      ['self', 0],
      ['agreed', 2],
      ['syncing', 0],
      ['drifted', 0],
      ['unreachable', 0],
      ['untrusted', 0],
      ['conflict', 0],
    ],
  });
  const status = a.supervisor.describe();
  assert.equal(status?.jobSetId, a.jobSetId);
  assert.equal(status?.backend, 'gossip');
  assert.deepEqual(
    status.peers.map((peer) => [peer.host, peer.status, peer.nodeName, peer.lastError]),
    [
      ['n1:8443', 'agreed', 'node-b', null],
      ['n2:8443', 'agreed', 'node-c', null],
    ],
  );
  await cluster.stop();
});

void test('real files: a certificate renewed in place is picked up without a restart, a truncated one is not', async () => {
  const ca = makeTestCa('rotation');
  const dir = mkdtempSync(path.join(tmpdir(), 'yacron2-rotation-'));
  const first = ca.issue('node-a', ['IP:127.0.0.1']);
  const second = ca.issue('node-a', ['IP:127.0.0.1']);
  const tls = {
    ca: path.join(dir, 'ca.pem'),
    cert: path.join(dir, 'a.pem'),
    key: path.join(dir, 'a.key'),
  };
  copyFileSync(ca.caPath, tls.ca);
  copyFileSync(first.certPath, tls.cert);
  copyFileSync(first.keyPath, tls.key);
  const logger = recordingLogger();
  const supervisor = new ClusterSupervisor({ clock: systemClock, logger, jobSetId: () => 'v1:x' });
  const config = gossipConfig('node-a', [], {
    listen: { text: '127.0.0.1:0', host: '127.0.0.1', port: 0 },
    electLeader: false,
    tls,
  });
  await supervisor.reconcile(config);
  const before = instanceOf(supervisor);
  assert.ok(before !== undefined, logger.lines.map((line) => line.message).join('\n'));
  const renewed = await readFile(second.certPath);
  writeFileSync(tls.cert, renewed.subarray(0, 120)); // the writer is half-way through
  await supervisor.reconcile(config);
  assert.equal(instanceOf(supervisor), before);
  assert.match(
    logger.at('warn').at(-1)?.message ?? '',
    /^cluster: TLS certificate files changed but the new material is not yet loadable/,
  );
  copyFileSync(second.keyPath, tls.key);
  writeFileSync(tls.cert, renewed);
  await supervisor.reconcile(config);
  assert.notEqual(instanceOf(supervisor), before);
  assert.ok(supervisor.node() !== null);
  await supervisor.stop();
  assert.ok(logger.at('info').some((line) => line.message === 'Stopping cluster manager'));
});

void test('a stop that arrives while a build is in progress wins: no manager is left running', async () => {
  const cluster = new TestCluster(THREE);
  const a = cluster.node('node-a');
  const building = a.supervisor.reconcile(a.config);
  const stopping = a.supervisor.stop();
  await Promise.all([building, stopping]);
  assert.equal(a.supervisor.current(), null);
  await a.supervisor.reconcile(a.config);
  assert.equal(a.supervisor.current(), null, 'nothing is built after stop()');
  const poll = await cluster.network.transportFor('probe', ['probe:1']).request(a.host, {
    method: 'GET',
    path: '/peer',
    headers: {},
    signal: new AbortController().signal,
  });
  assert.equal(poll.kind, 'failure', 'its listener is closed');
});
