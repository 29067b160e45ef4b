// One node's behaviour around its rounds: the per-peer transition lines (once per change), the
// self-listing that leaves a two-node election cluster, the ran-set push, what it advertises.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { recordingLogger, type RecordingLogger } from '../logging/testing.js';
import { GossipNode, type GossipSettings } from './gossip-node.js';
import { MemoryNetwork } from './memory-transport.js';

const ID = `v1:${'1'.repeat(64)}`;

interface Built {
  readonly clock: FakeClock;
  readonly network: MemoryNetwork;
  readonly nodes: GossipNode[];
  readonly logger: RecordingLogger;
}

/** Nodes n0, n1, ... (node 0 logs to `logger`); `extraHosts[i]` are more addresses of node i. */
async function build(
  settings: (index: number, hosts: string[]) => Partial<GossipSettings> & { name: string },
  count: number,
  extraHosts: Record<number, string[]> = {},
  jobSetIds: Record<number, string> = {},
): Promise<Built> {
  const clock = new FakeClock();
  const network = new MemoryNetwork();
  const logger = recordingLogger();
  const hosts = Array.from({ length: count }, (_, index) => `n${index}:8443`);
  const nodes: GossipNode[] = [];
  for (let index = 0; index < count; index++) {
    const own = settings(index, hosts);
    const transportHosts = [hosts[index]!, ...(extraHosts[index] ?? [])];
    const node = new GossipNode(
      {
        nodeName: own.name,
        peers: own.peers ?? hosts.filter((_, at) => at !== index),
        electLeader: own.electLeader ?? true,
        distribution: own.distribution ?? 'single-leader',
        driftAfter: own.driftAfter ?? 2,
        connectTimeoutMs: 1_000,
        ...(own.intervalMs !== undefined && { intervalMs: own.intervalMs }),
      },
      {
        clock,
        transport: network.transportFor(String(index), transportHosts),
        logger: index === 0 ? logger : silentLogger(),
        jobSetId: () => jobSetIds[index] ?? ID,
      },
    );
    await network.transportFor(String(index), transportHosts).listen(node.handler);
    nodes.push(node);
  }
  return { network, nodes, logger, clock };
}

void test('transition lines: once per change, unreachable only from a status that was heard from', async () => {
  const { network, nodes, logger } = await build((index) => ({ name: `node-${index}` }), 3);
  const [a] = nodes as [GossipNode];
  network.setLink('0', 'n2:8443', 'down');
  await a.runRound();
  await a.runRound();
  network.setLink('0', 'n2:8443', 'up');
  await a.runRound();
  network.setLink('0', 'n1:8443', 'untrusted');
  await a.runRound();
  network.setLink('0', 'n1:8443', 'up');
  await a.runRound();
  network.setLink('0', 'n1:8443', 'down');
  await a.runRound();
  await a.runRound();
  assert.deepEqual(
    logger.lines.map((line) => [line.level, line.message]),
    [
      ['info', 'cluster: peer n1:8443 now agreed'],
      ['info', 'cluster: peer n2:8443 now agreed'],
      [
        'warn',
        'cluster: peer n1:8443 is untrusted -- TLS/cert verification failed: Cannot connect to host n1:8443: certificate verify failed: unable to get local issuer certificate',
      ],
      ['info', 'cluster: peer n1:8443 now agreed'],
      [
        'warn',
        'cluster: peer n1:8443 became unreachable: Cannot connect to host n1:8443: connection refused',
      ],
    ],
  );
});

void test('drift and duplicate-name lines; a self-listing is INFO in a larger cluster', async () => {
  const { nodes, logger } = await build(
    (index, hosts) =>
      index === 0
        ? { name: 'node-0', peers: [...hosts.slice(1), 'alias0:8443'] }
        : { name: index === 3 ? 'node-0' : `node-${index}` },
    4,
    { 0: ['alias0:8443'] },
    { 2: `v1:${'2'.repeat(64)}` },
  );
  for (let round = 0; round < 2; round++) await nodes[0]!.runRound();
  const messages = logger.lines.map((line) => line.message);
  assert.ok(
    messages.includes(
      'cluster: peer n2:8443 drifted -- its job-set id has differed for >= driftAfter rounds (or reports a different fingerprint scheme)',
    ),
  );
  assert.ok(
    messages.includes(
      "cluster: peer n3:8443 reports a duplicate nodeName: duplicate nodeName 'node-0': peer is a different instance",
    ),
  );
  assert.ok(
    messages.includes(
      'cluster: peer alias0:8443 is this node itself (a self-listing); excluded from the cluster size',
    ),
  );
  assert.equal(nodes[0]!.derived().clusterSize, 4, '5 configured minus the self-listing');
});

void test('a self-listing that leaves an election cluster of 2 warns once instead', async () => {
  const { nodes, logger } = await build(
    (index, hosts) =>
      index === 0
        ? { name: 'node-0', peers: [hosts[1]!, 'alias0:8443'] }
        : { name: 'node-1', peers: [hosts[0]!] },
    2,
    { 0: ['alias0:8443'] },
  );
  for (let round = 0; round < 3; round++) await nodes[0]!.runRound();
  const warnings = logger.at('warn').map((line) => line.message);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0] ?? '',
    /^cluster: peer alias0:8443 is this node itself \(a self-listing not recognisable at config load\), so the effective electLeader cluster is 2 nodes/,
  );
  assert.ok(!logger.lines.some((line) => line.message.includes('excluded from the cluster size')));
});

void test('marking a deferred @reboot one-shot pushes the ran-set to every peer at once', async () => {
  const { nodes } = await build((index) => ({ name: `node-${index}` }), 3);
  await nodes[0]!.markRebootRan('warm-up');
  assert.equal(nodes[1]!.rebootRan('warm-up'), true, 'no poll was needed');
  assert.equal(nodes[2]!.rebootRan('warm-up'), true);
  assert.deepEqual(nodes[1]!.payload().ran_reboot_jobs, ['warm-up']);
});

void test('a job-set change forgets the recorded ran-set at the next round', async () => {
  let id = ID;
  const clock = new FakeClock();
  const node = new GossipNode(
    {
      nodeName: 'a',
      peers: [],
      electLeader: true,
      distribution: 'single-leader',
      driftAfter: 3,
      connectTimeoutMs: 1_000,
    },
    {
      clock,
      transport: new MemoryNetwork().transportFor('0', ['a:1']),
      logger: silentLogger(),
      jobSetId: () => id,
    },
  );
  await node.markRebootRan('warm-up');
  assert.equal(node.rebootRan('warm-up'), true);
  id = `v1:${'3'.repeat(64)}`;
  assert.equal(node.rebootRan('warm-up'), false, 'not advertised under another id');
  await node.runRound();
  id = ID;
  assert.equal(node.rebootRan('warm-up'), false, 'forgotten, not just hidden');
});

void test('what a node advertises: itself first, heard-from peers in config order, instance ids of 32 hex', async () => {
  const { network, nodes } = await build((index) => ({ name: `node-${index}` }), 3);
  network.setLink('0', 'n2:8443', 'down');
  await nodes[1]!.runRound();
  await nodes[0]!.runRound();
  const payload = nodes[0]!.payload();
  assert.deepEqual(Object.keys(payload), [
    'node_name',
    'job_set_id',
    'scheme_version',
    'instance_id',
    'cluster_size',
    'distribution',
    'elect_leader',
    'members',
    'ran_reboot_jobs',
    'mutual_agreeing',
    'quorate_vouched',
    'job_summaries',
    'job_summaries_truncated',
  ]);
  assert.match(nodes[0]!.instanceId, /^[0-9a-f]{32}$/);
  assert.deepEqual(payload.members, [
    { node_name: 'node-0', instance_id: nodes[0]!.instanceId, agreed: true },
    { node_name: 'node-1', instance_id: nodes[1]!.instanceId, agreed: true },
  ]);
  assert.deepEqual(payload.mutual_agreeing, ['node-1']);
  assert.deepEqual(payload.quorate_vouched, [], 'node-1 reported no mutual peers yet');
});

void test('a node that joins can lead its own view for a round; no peer vouches for it, so its quorum is unconfirmed', async () => {
  const { network, nodes } = await build((index) => ({ name: `node-${index}` }), 3);
  const [a, b] = nodes as [GossipNode, GossipNode];
  for (const from of ['0', '1']) network.setLink(from, 'n2:8443', 'down');
  await a.runRound(); // a hears b, but b has not heard a: one-sided
  await b.runRound(); // b hears a listing it; a vouches for nobody yet
  assert.equal(b.leaderName(), 'node-1', "b's own view: quorate with a, and a is not eligible");
  assert.equal(b.quorumConfirmed(), false);
  assert.equal(a.isQuorate(), false);
  assert.equal(a.quorumConfirmed(), false);
  await a.runRound();
  assert.equal(a.leaderName(), 'node-0');
  assert.equal(a.quorumConfirmed(), false, 'b does not vouch for a until its next round');
  await b.runRound();
  assert.equal(b.leaderName(), 'node-0');
  assert.equal(b.quorumConfirmed(), true, 'a vouches for b: both are quorate');
  await a.runRound();
  assert.equal(a.quorumConfirmed(), true);
});

void test('alone in an election cluster of one, a node confirms its own quorum', async () => {
  const { nodes } = await build(() => ({ name: 'solo', peers: [] }), 1);
  const [solo] = nodes as [GossipNode];
  await solo.runRound();
  assert.equal(solo.isLeader(), true);
  assert.equal(solo.quorumConfirmed(), true);
});

void test('a node that stalled past a round stands Leader jobs down until a fresh round completes', async () => {
  const { clock, nodes, logger } = await build(
    (index) => ({ name: `node-${index}`, intervalMs: 1_000 }),
    3,
  );
  const [a, b, c] = nodes as [GossipNode, GossipNode, GossipNode];
  const round = async (): Promise<void> => {
    await Promise.all([a.runRound(), b.runRound(), c.runRound()]);
  };
  await round();
  await round();
  assert.deepEqual([a.isLeader(), a.isQuorate()], [true, true]);
  // Within a round's allowance (the interval plus the tolerance): still current.
  await clock.advance(1_900);
  assert.equal(a.isLeader(), true);
  assert.equal(a.viewStale(), false);
  // The process was paused: no round for 5 s. Its old view must not admit a Leader run.
  await clock.advance(3_100);
  assert.deepEqual([a.isLeader(), a.isQuorate(), a.quorumConfirmed()], [false, false, false]);
  assert.equal(a.needsRound, true, 'the manager re-polls at once');
  assert.equal(a.leaderName(), 'node-0', 'the view itself is kept, only not trusted');
  assert.equal(logger.at('warn').length, 1);
  assert.match(
    logger.at('warn')[0]!.message,
    /last round ended 5\.0 s ago \(the process was paused or stalled\); its view of the peers is stale/,
  );
  assert.equal(a.isLeader(), false, 'still stale: warned once');
  assert.equal(logger.at('warn').length, 1);
  // The round that starts after the stall brings the view back.
  await a.runRound();
  assert.deepEqual([a.isLeader(), a.viewStale(), a.needsRound], [true, false, false]);
  assert.match(logger.at('info').at(-1)!.message, /a fresh round completed/);
});

void test('a round that starts late starts stale, and only its own completion clears it', async () => {
  const { clock, nodes } = await build(
    (index) => ({ name: `node-${index}`, intervalMs: 1_000 }),
    2,
  );
  const [a, b] = nodes as [GossipNode, GossipNode];
  await Promise.all([a.runRound(), b.runRound()]);
  await Promise.all([a.runRound(), b.runRound()]);
  assert.equal(a.isLeader(), true);
  await clock.advance(4_000);
  // The loop woke (late) and started its round before anything read the view.
  const pending = a.runRound();
  assert.equal(a.isLeader(), false, 'the round in flight started from a stale view');
  await pending;
  assert.equal(a.isLeader(), true);
});

void test('without an interval (hand-driven rounds) a node never counts as stalled', async () => {
  const { clock, nodes } = await build((index) => ({ name: `node-${index}` }), 2);
  const [a, b] = nodes as [GossipNode, GossipNode];
  await Promise.all([a.runRound(), b.runRound()]);
  await Promise.all([a.runRound(), b.runRound()]);
  await clock.advance(60_000);
  assert.deepEqual([a.isLeader(), a.viewStale()], [true, false]);
});
