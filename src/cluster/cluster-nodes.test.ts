// Whole clusters in one process (real supervisors, managers, rounds and gates over the
// MemoryNetwork on a FakeClock): one leader, failover, a minority standing down, conflicts that
// raise and clear themselves, spread owners agreed everywhere, retries and @reboot under election.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeferredReboots } from '../leadership/index.js';
import { flushMicrotasks } from '../common/index.js';
import { INTERVAL_MS, TestCluster } from './cluster-fixture.test.js';

const THREE = [{ name: 'node-a' }, { name: 'node-b' }, { name: 'node-c' }];

void test('three nodes elect one leader: the lowest name, agreed by all', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  await cluster.runIntervals(3);
  assert.deepEqual(cluster.leaders(), ['node-a']);
  for (const node of cluster.nodes) {
    assert.equal(node.supervisor.current()?.leaderName(), 'node-a');
    assert.deepEqual(
      node.supervisor
        .node()
        ?.peers()
        .map((peer) => peer.status),
      ['agreed', 'agreed'],
    );
  }
  const kinds = (policy: 'Leader' | 'PreferLeader' | 'EveryNode') =>
    cluster.nodes.map((node) => node.verdict('job', policy).kind);
  assert.deepEqual(kinds('Leader'), ['allow', 'deny', 'deny']);
  assert.deepEqual(kinds('PreferLeader'), ['allow', 'deny', 'deny']);
  assert.deepEqual(kinds('EveryNode'), ['allow', 'allow', 'allow']);
  await cluster.stop();
});

void test('stopping the leader moves leadership within two intervals', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  await cluster.runIntervals(3);
  await cluster.node('node-a').supervisor.stop();
  await cluster.runIntervals(2);
  assert.deepEqual(cluster.leaders(), ['node-b']);
  assert.equal(cluster.node('node-c').supervisor.current()?.leaderName(), 'node-b');
  assert.equal(cluster.node('node-b').verdict('job', 'Leader').kind, 'allow');
  assert.equal(cluster.node('node-c').verdict('job', 'Leader').kind, 'deny');
  await cluster.stop();
});

void test('a partitioned node stands down (minority) while the majority elects; PreferLeader runs on both sides', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  await cluster.runIntervals(3);
  cluster.network.partition([['0'], ['1', '2']]);
  await cluster.runIntervals(2);
  const a = cluster.node('node-a');
  assert.equal(a.supervisor.current()?.isQuorate(), false);
  const denied = a.verdict('job', 'Leader');
  assert.equal(denied.kind === 'deny' && denied.reason, 'no-quorum');
  assert.equal(
    a.verdict('job', 'PreferLeader').kind,
    'allow',
    'never-skip: the lowest node of its side',
  );
  assert.deepEqual(cluster.leaders(), ['node-b']);
  assert.equal(cluster.node('node-b').verdict('job', 'PreferLeader').kind, 'allow');
  assert.ok(
    a.logger.lines.some(
      (line) =>
        line.message ===
        'cluster: peer n1:8443 became unreachable: Cannot connect to host n1:8443: connection refused',
    ),
  );
  cluster.network.heal();
  await cluster.runIntervals(2);
  assert.deepEqual(cluster.leaders(), ['node-a'], 'healed: the lowest name leads again');
  await cluster.stop();
});

void test('a healed lower node takes Leader jobs over only once a peer has ceded to it: never two at once', async () => {
  const cluster = new TestCluster(THREE);
  // Rounds a third of an interval apart, as real nodes' rounds are.
  for (const node of cluster.nodes) {
    await node.supervisor.reconcile(node.config);
    await cluster.clock.advance(INTERVAL_MS / 3);
  }
  await cluster.runIntervals(3);
  cluster.network.partition([['0'], ['1', '2']]);
  await cluster.runIntervals(3);
  assert.deepEqual(cluster.leaders(), ['node-b']);
  cluster.network.heal();
  const allowed: string[][] = [];
  for (let step = 0; step < 60; step++) {
    await cluster.clock.advance(INTERVAL_MS / 10);
    await flushMicrotasks(200);
    allowed.push(
      cluster.nodes
        .filter((node) => node.verdict('job', 'Leader').kind === 'allow')
        .map((node) => node.config.nodeName),
    );
  }
  assert.ok(
    allowed.every((names) => names.length <= 1),
    `one Leader at most at any moment: ${JSON.stringify(allowed)}`,
  );
  assert.deepEqual(allowed.at(-1), ['node-a'], 'the lowest name runs them again');
  await cluster.stop();
});

void test('a duplicate nodeName fails Leader jobs closed everywhere it is seen, and clears after a rename', async () => {
  const cluster = new TestCluster([{ name: 'node-a' }, { name: 'node-b' }, { name: 'node-b' }]);
  await cluster.start();
  await cluster.runIntervals(3);
  for (const node of cluster.nodes) {
    assert.deepEqual(node.supervisor.node()?.conflicts().names, ['node-b']);
    const verdict = node.verdict('job', 'Leader');
    assert.equal(verdict.kind === 'deny' && verdict.reason, 'conflict');
  }
  cluster.nodes[0]!.supervisor.onSchedulerPass();
  assert.ok(
    cluster.nodes[0]!.logger.at('error').some((line) =>
      line.message.startsWith(
        'cluster: duplicate nodeName detected (node-b) -- Leader jobs will stand down',
      ),
    ),
  );
  const renamed = cluster.nodes[2]!;
  renamed.config = { ...renamed.config, nodeName: 'node-c' };
  await renamed.supervisor.reconcile(renamed.config);
  await cluster.runIntervals(3);
  for (const node of cluster.nodes) assert.deepEqual(node.supervisor.node()?.conflicts().names, []);
  assert.deepEqual(cluster.leaders(), ['node-a']);
  cluster.nodes[0]!.supervisor.onSchedulerPass();
  assert.ok(
    cluster.nodes[0]!.logger.at('info').some(
      (line) => line.message === 'cluster: nodeName conflict resolved; Leader jobs may run again',
    ),
  );
  await cluster.stop();
});

void test('a cluster-size disagreement stands Leader down on both sides and clears once the peer lists agree', async () => {
  const cluster = new TestCluster([
    { name: 'node-a' },
    { name: 'node-b' },
    { name: 'node-c', peers: ['n0:8443', 'n1:8443', 'n9:8443'] },
  ]);
  await cluster.start();
  await cluster.runIntervals(3);
  assert.deepEqual(cluster.node('node-a').supervisor.node()?.conflicts().sizes, [4]);
  assert.deepEqual(cluster.node('node-c').supervisor.node()?.conflicts().sizes, [3]);
  for (const node of cluster.nodes) assert.equal(node.verdict('job', 'Leader').kind, 'deny');
  assert.equal(
    cluster.node('node-a').verdict('job', 'PreferLeader').kind,
    'allow',
    'PreferLeader is not gated on conflicts',
  );
  const c = cluster.node('node-c');
  c.config = { ...c.config, peers: ['n0:8443', 'n1:8443'] };
  await c.supervisor.reconcile(c.config);
  await cluster.runIntervals(3);
  for (const node of cluster.nodes) assert.deepEqual(node.supervisor.node()?.conflicts().sizes, []);
  assert.deepEqual(cluster.leaders(), ['node-a']);
  await cluster.stop();
});

void test('a coordination-policy mismatch (spread vs single-leader) is a conflict', async () => {
  const cluster = new TestCluster([
    { name: 'node-a' },
    { name: 'node-b' },
    { name: 'node-c', distribution: 'spread' },
  ]);
  await cluster.start();
  await cluster.runIntervals(3);
  assert.deepEqual(cluster.node('node-a').supervisor.node()?.conflicts().policies, [
    "distribution 'spread' != 'single-leader'",
  ]);
  assert.equal(cluster.node('node-a').verdict('job', 'Leader').kind, 'deny');
  await cluster.stop();
});

void test('spread: every node computes the same owner per job, and exactly one node runs each', async () => {
  const specs = ['node-a', 'node-b', 'node-c', 'node-d', 'node-e'].map((name) => ({
    name,
    distribution: 'spread' as const,
  }));
  const cluster = new TestCluster(specs);
  await cluster.start();
  await cluster.runIntervals(3);
  const jobs = Array.from({ length: 40 }, (_, index) => `job-${index}`);
  const owners = new Set<string>();
  for (const job of jobs) {
    const seen = cluster.nodes.map((node) => node.supervisor.node()?.jobOwner(job));
    assert.equal(new Set(seen).size, 1, `${job}: ${seen.join(', ')}`);
    owners.add(seen[0]!);
    const runners = cluster.nodes.filter((node) => node.verdict(job, 'Leader').kind === 'allow');
    assert.equal(runners.length, 1, job);
    assert.equal(runners[0]!.config.nodeName, seen[0]);
    const preferRunners = cluster.nodes.filter(
      (node) => node.verdict(job, 'PreferLeader').kind === 'allow',
    );
    assert.deepEqual(
      preferRunners.map((node) => node.config.nodeName),
      [seen[0]],
    );
  }
  assert.ok(owners.size >= 3, 'the work spreads over several nodes');
  for (const node of cluster.nodes) {
    const status = node.supervisor.describe();
    assert.deepEqual(
      [status?.leader, status?.isLeader, status?.quorate],
      [null, false, true],
      'no single leader under spread',
    );
  }
  await cluster.stop();
});

void test('retries: the leader relaunches; a follower that observes another owner abandons; a minority defers', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  await cluster.runIntervals(3);
  const job = { name: 'billing', clusterPolicy: 'Leader' as const };
  assert.deepEqual(cluster.node('node-a').gate.retryDecision(job), { kind: 'launch' });
  assert.equal(cluster.node('node-b').gate.retryDecision(job).kind, 'abandon');
  cluster.network.partition([['0'], ['1', '2']]);
  await cluster.runIntervals(2);
  assert.equal(
    cluster.node('node-a').gate.retryDecision(job).kind,
    'defer',
    'no quorum is transient',
  );
  await cluster.stop();
});

void test('a rebuilt manager holds PreferLeader closed until its view converges', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  await cluster.runIntervals(3);
  const a = cluster.node('node-a');
  a.config = { ...a.config, driftAfter: 5 };
  await a.supervisor.reconcile(a.config);
  const held = a.verdict('job', 'PreferLeader');
  assert.equal(
    held.kind === 'deny' && held.reason,
    'converging',
    'peers have not seen the new instance yet',
  );
  // Both peers still report this name with the old instance: two reporters make it a credible
  // duplicate until they poll the new one (the reference's rule; docs/clustering.md "Conflicts").
  const leader = a.verdict('job', 'Leader');
  assert.equal(leader.kind === 'deny' && leader.reason, 'conflict');
  assert.equal(
    cluster.node('node-b').verdict('job', 'PreferLeader').kind,
    'deny',
    'the peers still defer to the rightful owner',
  );
  await cluster.runIntervals(2);
  assert.equal(a.verdict('job', 'PreferLeader').kind, 'allow');
  assert.equal(a.verdict('job', 'Leader').kind, 'allow');
  await cluster.stop();
});

void test('@reboot under election: deferred everywhere, run once on the leader, retired on the others', async () => {
  const cluster = new TestCluster(THREE);
  const launched: string[] = [];
  const deferrals = cluster.nodes.map((node) => new DeferredReboots(node.supervisor, node.logger));
  const job = { name: 'warm-up', enabled: true, isReboot: true, clusterPolicy: 'Leader' as const };
  // As in the daemon: the manager is built (first round inline) before the start-up pass.
  await cluster.start();
  for (const deferral of deferrals) assert.deepEqual(deferral.deferAtStartup([job]), []);
  for (let pass = 0; pass < 4; pass++) {
    for (const [index, deferral] of deferrals.entries()) {
      await deferral.pass(
        () => job,
        () => launched.push(cluster.nodes[index]!.config.nodeName),
      );
    }
    await cluster.runIntervals(1);
  }
  assert.deepEqual(launched, ['node-a']);
  for (const deferral of deferrals) assert.equal(deferral.pending.size, 0);
  assert.ok(
    cluster
      .node('node-b')
      .logger.lines.some(
        (line) =>
          line.message ===
          'cluster: deferred @reboot job warm-up already ran in the cluster; standing down here',
      ),
  );
  await cluster.stop();
});

void test('attestation only (no electLeader): every node runs everything, peers still agree', async () => {
  const cluster = new TestCluster(THREE.map((spec) => ({ ...spec, electLeader: false })));
  await cluster.start();
  await cluster.runIntervals(2);
  for (const node of cluster.nodes) {
    assert.equal(node.verdict('job', 'Leader').kind, 'allow');
    assert.deepEqual(
      node.supervisor
        .node()
        ?.peers()
        .map((peer) => peer.status),
      ['agreed', 'agreed'],
    );
  }
  await cluster.stop();
});

void test('a job-set change on one node is syncing, then drifted after driftAfter rounds, then agreed again', async () => {
  const cluster = new TestCluster(THREE);
  await cluster.start();
  await cluster.runIntervals(2);
  const c = cluster.node('node-c');
  c.jobSetId = `v1:${'2'.repeat(64)}`;
  await cluster.runIntervals(1);
  const peerC = () =>
    cluster
      .node('node-a')
      .supervisor.node()
      ?.peers()
      .find((peer) => peer.host === c.host);
  assert.equal(peerC()?.status, 'syncing');
  await cluster.runIntervals(2);
  assert.equal(peerC()?.status, 'drifted');
  assert.ok(
    cluster
      .node('node-a')
      .logger.at('warn')
      .some((line) => line.message.startsWith(`cluster: peer ${c.host} drifted`)),
  );
  c.jobSetId = `v1:${'1'.repeat(64)}`;
  await cluster.runIntervals(1);
  assert.equal(peerC()?.status, 'agreed');
  await cluster.stop();
});
