// The etcd backend against real etcd servers (Debian's etcd on random loopback ports, started once
// per cluster for the whole file): the client contract; election and failover within the TTL
// when the holder dies; self-demotion when etcd is SIGSTOPped (Leader fails closed, PreferLeader
// runs); endpoint failover in a 3-member cluster with SIGKILLed members and an immediate handover
// on revoke; user/password auth over https with client certificates.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { systemClock } from '../../common/index.js';
import { recordingLogger } from '../../logging/testing.js';
import { makeTestCa } from '../../cluster/testing.js';
import { ClusterGate } from '../gate.js';
import { checkLeaseClientContract } from '../lease-client.contract.js';
import { StaticLeadershipSource } from '../static-leadership.js';
import { EtcdLeaseClient, type EtcdLeaseOptions } from './etcd.js';
import { startElector } from './test-electors.js';
import { enableEtcdAuth, startEtcd, type EtcdCluster } from './test-etcd.js';

let single: EtcdCluster;
let trio: EtcdCluster;
let secure: EtcdCluster;
let certOnly: EtcdCluster;
const ca = makeTestCa('etcd');
const server = ca.issue('etcd', ['IP:127.0.0.1', 'DNS:localhost']);
const clientCert = ca.issue('yacron2', ['DNS:yacron2']);
const ROOT_PASSWORD = 'correct horse battery staple';

before(async () => {
  [single, trio, secure, certOnly] = await Promise.all([
    startEtcd(1),
    startEtcd(3),
    startEtcd(1, { ...server, caPath: ca.caPath }),
    startEtcd(1, { ...server, caPath: ca.caPath, clientCertAuth: true }),
  ]);
  await enableEtcdAuth(secure.endpoints[0]!, ROOT_PASSWORD, { ca: readFileSync(ca.caPath) });
});

after(async () => {
  await Promise.all([single?.stop(), trio?.stop(), secure?.stop(), certOnly?.stop()]);
});

function client(
  nodeName: string,
  overrides: Partial<EtcdLeaseOptions> & { endpoints: readonly string[] },
): EtcdLeaseClient {
  return new EtcdLeaseClient(
    {
      nodeName,
      electionName: 'yacron2/leader',
      ttlSeconds: 6,
      username: null,
      password: null,
      tls: { ca: null, cert: null, key: null },
      connectTimeoutMs: 10_000,
      ...overrides,
    },
    { clock: systemClock, logger: recordingLogger() },
  );
}

void test('EtcdLeaseClient keeps the lease client contract', async () => {
  await checkLeaseClientContract({
    clock: systemClock,
    make: async (identity) => {
      const made = client(identity, { endpoints: single.endpoints, electionName: 'contract' });
      await made.start();
      return made;
    },
  });
});

void test('a holder that dies without revoking is replaced within its ttl', async () => {
  const dead = client('dead', { endpoints: single.endpoints, electionName: 'failover' });
  await dead.start();
  const first = await dead.round(
    { jobSetId: 'v1:x', jobs: new Set() },
    new AbortController().signal,
  );
  assert.equal(first.kind, 'leader');
  await dead.close(); // no revoke: etcd expires the lease after the ttl
  const b = await startElector(
    client('b', { endpoints: single.endpoints, electionName: 'failover' }),
    'b',
  );
  assert.equal(b.elector.isLeader(), false);
  assert.equal(b.elector.leaderName(), 'dead', 'the follower names the holder from the key value');
  // Bounded by the ttl (6 s) plus a round: the wait's bound is the check.
  await b.until((e) => e.isLeader(), 6000 + 4000, 'leader after the dead holder expired');
  const details = b.elector.leaseDetails();
  assert.equal(details.holder, 'b');
  assert.match(String(details.expiry), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  await b.elector.stop();
});

void test('a holder whose etcd is SIGSTOPped self-demotes: Leader fails closed, PreferLeader runs', async () => {
  const member = single.members[0]!;
  const a = await startElector(
    client('a', { endpoints: single.endpoints, electionName: 'stop', ttlSeconds: 4 }),
    'a',
  );
  assert.equal(a.elector.isLeader(), true);
  const gate = new ClusterGate(new StaticLeadershipSource(true, a.elector), a.logger);
  await a.until((e) => !e.handoverHeld(), 5000, 'the handover hold over');
  assert.equal(gate.verdict({ name: 'j', clusterPolicy: 'Leader' }, 'schedule').kind, 'allow');
  member.pause();
  try {
    await a.until((e) => !e.isLeader(), 8000, 'self-demoted');
    const leader = gate.verdict({ name: 'j', clusterPolicy: 'Leader' }, 'schedule');
    assert.equal(leader.kind, 'deny', 'Leader fails closed');
    assert.equal(
      gate.verdict({ name: 'j', clusterPolicy: 'PreferLeader' }, 'schedule').kind,
      'allow',
      'PreferLeader never skips',
    );
    assert.match(a.logger.at('warn')[0]?.message ?? '', /^cluster: etcd round failed: /);
  } finally {
    member.resume();
  }
  await a.until((e) => e.isLeader(), 15_000, 'leader again once etcd answers');
  await a.elector.stop();
});

void test('3 members: the holder keeps leading through SIGKILLed endpoints; revoke hands over at once', async () => {
  const endpoints = trio.endpoints;
  const a = await startElector(client('a', { endpoints, electionName: 'trio' }), 'a');
  const b = await startElector(
    client('b', { endpoints: [...endpoints].reverse(), electionName: 'trio' }),
    'b',
  );
  assert.equal(a.elector.isLeader(), true);
  assert.equal(b.elector.leaderName(), 'a');
  await trio.members[0]!.kill();
  const roundsBefore = a.elector.rounds;
  await a.until((e) => e.rounds >= roundsBefore + 3, 15_000, 'three rounds after the kill');
  assert.equal(a.elector.isLeader(), true, 'the remaining quorum of members keeps the lease');
  assert.equal(b.elector.isLeader(), false);
  await a.elector.stop(); // revokes: the key is deleted at once
  await b.until((e) => e.isLeader(), 5000, 'leader after the revoke');
  await b.elector.stop();
});

void test('auth: user and password over https; a wrong password fails the start; no token is refused', async () => {
  const tls = { ca: ca.caPath, cert: null, key: null };
  const a = await startElector(
    client('a', { endpoints: secure.endpoints, username: 'root', password: ROOT_PASSWORD, tls }),
    'a',
  );
  assert.equal(a.elector.isLeader(), true);
  await a.elector.markRebootRan('boot');
  assert.equal(a.elector.rebootRan('boot'), true);
  await a.elector.stop();
  const wrong = client('b', {
    endpoints: secure.endpoints,
    username: 'root',
    password: 'nope',
    tls,
  });
  await assert.rejects(wrong.start(), (error: Error) => {
    assert.match(
      error.message,
      /^Cannot authenticate to etcd as root: .*refused the credentials \(HTTP 400: etcdserver: authentication failed/,
    );
    assert.doesNotMatch(error.message, /nope/);
    return true;
  });
  await wrong.close();
  const anonymous = client('c', { endpoints: secure.endpoints, tls });
  await anonymous.start();
  await assert.rejects(
    anonymous.round({ jobSetId: 'v1:x', jobs: new Set() }, new AbortController().signal),
    /user name is empty/,
  );
  await anonymous.close();
});

void test('https with a client certificate; without one the handshake is refused', async () => {
  const withCert = await startElector(
    client('a', {
      endpoints: certOnly.endpoints,
      tls: { ca: ca.caPath, cert: clientCert.certPath, key: clientCert.keyPath },
    }),
    'a',
  );
  assert.equal(withCert.elector.isLeader(), true);
  await withCert.elector.stop();
  const noCert = await startElector(
    client('b', { endpoints: certOnly.endpoints, tls: { ca: ca.caPath, cert: null, key: null } }),
    'b',
  );
  assert.equal(noCert.elector.isQuorate(), false);
  assert.match(
    noCert.logger.at('warn')[0]?.message ?? '',
    /^cluster: etcd initial round failed: Cannot call etcd/,
  );
  await noCert.elector.stop();
});
