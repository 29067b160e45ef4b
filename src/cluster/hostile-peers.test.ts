// Hostile peers: oversized, malformed and mistyped /peer bodies, a peer that never answers,
// random bytes, a peer claiming every name, hostile /reboot-ran pushes. Nothing throws, the
// hostile peer is marked unreachable (or stays outside the live set), and the honest nodes'
// election only changes where the trust model allows it (a CA-admitted peer claiming our own
// name trips the conflict gate: that is the documented fail-closed reaction).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock, flushMicrotasks, seededRandom } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { GossipNode } from './gossip-node.js';
import { MemoryNetwork } from './memory-transport.js';
import type { PeerRequestHandler, PeerResponse } from './transport.js';

const ID = `v1:${'1'.repeat(64)}`;
const OTHER_ID = `v1:${'9'.repeat(64)}`;
const HONEST = ['node-a', 'node-b', 'node-c'];
const encoder = new TextEncoder();

interface Mesh {
  readonly clock: FakeClock;
  readonly network: MemoryNetwork;
  readonly nodes: GossipNode[];
  readonly round: () => Promise<void>;
}

/** Three honest nodes and one rogue address `rogueHosts[0]` in every peer list (N = 4). */
async function mesh(rogue: PeerRequestHandler, rogueHosts = ['rogue:8443']): Promise<Mesh> {
  const clock = new FakeClock();
  const network = new MemoryNetwork();
  const hosts = HONEST.map((_, index) => `n${index}:8443`);
  const nodes = HONEST.map(
    (name, index) =>
      new GossipNode(
        {
          nodeName: name,
          peers: [...hosts.filter((_, at) => at !== index), ...rogueHosts],
          electLeader: true,
          distribution: 'single-leader',
          driftAfter: 3,
          connectTimeoutMs: 1_000,
        },
        {
          clock,
          transport: network.transportFor(String(index), [hosts[index]!]),
          logger: silentLogger(),
          jobSetId: () => ID,
        },
      ),
  );
  for (const [index, node] of nodes.entries()) {
    await network.transportFor(String(index), [hosts[index]!]).listen(node.handler);
  }
  await network.transportFor('rogue', rogueHosts).listen(rogue);
  return {
    clock,
    network,
    nodes,
    round: async () => {
      for (const node of nodes) await node.runRound();
    },
  };
}

function body(
  status: number,
  text: string | Uint8Array,
  headers: Record<string, string> = {},
): PeerResponse {
  return { status, headers, body: typeof text === 'string' ? encoder.encode(text) : text };
}

function assertHonestElection(nodes: readonly GossipNode[]): void {
  for (const node of nodes) {
    assert.equal(node.leaderName(), 'node-a', node.nodeName);
    assert.deepEqual(node.conflicts(), { names: [], sizes: [], policies: [] }, node.nodeName);
  }
}

const GOOD = {
  node_name: 'rogue',
  job_set_id: ID,
  scheme_version: 'v1',
  instance_id: 'f'.repeat(32),
};

void test('malformed, mistyped and oversized bodies make the peer unreachable and change nothing else', async () => {
  const cases: [string, PeerResponse, string][] = [
    [
      'oversized',
      body(200, JSON.stringify({ ...GOOD, pad: 'x'.repeat(300_000) })),
      'oversized /peer response (> 262144 bytes)',
    ],
    ['invalid JSON', body(200, '{"node_name": '), 'invalid JSON in /peer response'],
    [
      'deep nesting',
      body(200, `${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      'invalid JSON in /peer response',
    ],
    ['NaN', body(200, '{"cluster_size": NaN}'), 'invalid JSON in /peer response'],
    ['not an object', body(200, '"peer"'), 'malformed /peer response (not a JSON object)'],
    [
      'node_name type',
      body(200, JSON.stringify({ ...GOOD, node_name: { a: 1 } })),
      "malformed /peer response: 'node_name' is not a string",
    ],
    [
      'instance control chars',
      body(200, JSON.stringify({ ...GOOD, instance_id: 'a\u0000b' })),
      "malformed /peer response: 'instance_id' is over 256 chars or contains control characters",
    ],
    [
      'size',
      body(200, JSON.stringify({ ...GOOD, cluster_size: -1 })),
      'malformed /peer response: cluster_size is not a positive integer',
    ],
    [
      'elect_leader',
      body(200, JSON.stringify({ ...GOOD, elect_leader: 1 })),
      'malformed /peer response: elect_leader is not a boolean',
    ],
    ['HTTP 500', body(500, ''), 'HTTP 500'],
    ['unsolicited 304', body(304, ''), 'unsolicited 304 to an unconditional /peer poll'],
  ];
  for (const [label, response, error] of cases) {
    const { nodes, round } = await mesh(() => response);
    for (let step = 0; step < 3; step++) await round();
    assertHonestElection(nodes);
    for (const node of nodes) {
      const rogue = node.peers().find((peer) => peer.host === 'rogue:8443');
      assert.deepEqual([rogue?.status, rogue?.lastError], ['unreachable', error], label);
    }
  }
});

void test('a peer that never answers is cut off at connectTimeout; the round completes', async () => {
  const { clock, network, nodes } = await mesh(() => body(200, JSON.stringify(GOOD)));
  for (const index of ['0', '1', '2']) network.setLink(index, 'rogue:8443', 'stall');
  for (let step = 0; step < 3; step++) {
    for (const node of nodes) {
      const done = node.runRound();
      await flushMicrotasks();
      await clock.advance(1_000);
      await done;
    }
  }
  assertHonestElection(nodes);
  assert.equal(nodes[0]!.peers().find((peer) => peer.host === 'rogue:8443')?.status, 'unreachable');
});

void test('random bytes and random JSON-ish bodies never throw and never join the live set', async () => {
  const next = seededRandom(20260701);
  const fragments = [
    '{',
    '}',
    '[',
    ']',
    '"node_name"',
    ':',
    ',',
    '"',
    'null',
    'true',
    '1e999',
    '-0',
    '"\\ud800"',
    '"members"',
    '{"agreed":true}',
    '\u{1F600}',
    '\\',
    ' ',
  ];
  let generated: Uint8Array = new Uint8Array(0);
  const { nodes, round } = await mesh(() => body(200, generated));
  for (let sample = 0; sample < 300; sample++) {
    if (sample % 2 === 0) {
      generated = Uint8Array.from({ length: Math.floor(next() * 200) }, () =>
        Math.floor(next() * 256),
      );
    } else {
      generated = encoder.encode(
        Array.from(
          { length: Math.floor(next() * 40) },
          () => fragments[Math.floor(next() * fragments.length)],
        ).join(''),
      );
    }
    await nodes[0]!.runRound();
    const rogue = nodes[0]!.peers().find((peer) => peer.host === 'rogue:8443');
    assert.ok(
      rogue?.status === 'unreachable' ||
        rogue?.status === 'syncing' ||
        rogue?.status === 'drifted' ||
        rogue?.status === 'agreed',
      String(rogue?.status),
    );
  }
  await round();
  await round();
  assertHonestElection(nodes);
});

/** A CA-admitted peer on another job set that claims every name and vouches for everything. */
function claimsEverything(jobSetId: string): PeerRequestHandler {
  return () =>
    body(
      200,
      JSON.stringify({
        ...GOOD,
        job_set_id: jobSetId,
        cluster_size: 4,
        distribution: 'single-leader',
        elect_leader: true,
        members: [
          { node_name: 'rogue', instance_id: GOOD.instance_id, agreed: true },
          ...HONEST.map((name, index) => ({
            node_name: name,
            instance_id: `${index}`.repeat(32),
            agreed: true,
          })),
          { node_name: 'aaa', instance_id: 'e'.repeat(32), agreed: true },
        ],
        mutual_agreeing: ['aaa', ...HONEST],
        quorate_vouched: ['aaa', ...HONEST],
        ran_reboot_jobs: ['warm-up'],
      }),
    );
}

void test('a drifted peer claiming every name changes nothing: no conflict, no candidate, no ran-set', async () => {
  const { nodes, round } = await mesh(claimsEverything(OTHER_ID));
  for (let step = 0; step < 4; step++) await round();
  assertHonestElection(nodes);
  for (const node of nodes) {
    assert.equal(node.peers().find((peer) => peer.host === 'rogue:8443')?.status, 'drifted');
    assert.equal(node.rebootRan('warm-up'), false);
    assert.deepEqual(node.derived().availableContenders, []);
  }
});

void test('an agreeing peer that is not mutually agreeing cannot corroborate its own claims, even from two addresses', async () => {
  // The rogue answers on two configured hosts; its claims of other instances for every honest
  // name come from one instance, so none is credible (the reference counted addresses: fixed).
  const { nodes, round } = await mesh(claimsEverything(ID), ['rogue:8443', 'rogue-alt:8443']);
  for (let step = 0; step < 4; step++) await round();
  assertHonestElection(nodes);
  for (const node of nodes) {
    assert.equal(
      node.rebootRan('warm-up'),
      true,
      'an agreed peer on our job set is believed about @reboot (documented)',
    );
    assert.equal(node.derived().clusterSize, 4, 'the two addresses count once');
  }
});

void test('a peer claiming our own name trips the conflict gate (fail closed, as documented)', async () => {
  const { nodes, round } = await mesh(() =>
    body(200, JSON.stringify({ ...GOOD, node_name: 'node-a' })),
  );
  for (let step = 0; step < 3; step++) await round();
  assert.deepEqual(nodes[0]!.conflicts().names, ['node-a']);
  assert.equal(nodes[0]!.peers().find((peer) => peer.host === 'rogue:8443')?.status, 'conflict');
  assert.equal(
    nodes[1]!.conflicts().names.includes('node-a'),
    true,
    'a third node sees two instances of node-a',
  );
});

void test('hostile /reboot-ran pushes: bounded, id-scoped, malformed ones refused', async () => {
  const { nodes } = await mesh(() => body(200, JSON.stringify(GOOD)));
  const node = nodes[0]!;
  const post = (text: string): number =>
    node.handler({ method: 'POST', path: '/reboot-ran', headers: {}, body: encoder.encode(text) })
      .status;
  assert.equal(post('{"job_set_id": "'), 400);
  assert.equal(post('[1, 2]'), 204);
  assert.equal(post(JSON.stringify({ job_set_id: OTHER_ID, names: ['elsewhere'] })), 204);
  assert.equal(node.rebootRan('elsewhere'), false, 'another job set is ignored');
  const many = Array.from(
    { length: 10_000 },
    (_, index) => `job-${String(index).padStart(5, '0')}`,
  );
  assert.equal(post(JSON.stringify({ job_set_id: ID, names: many })), 204);
  assert.equal(node.advertisedRanJobs().size, 512, 'kept to the 512 smallest names');
  assert.ok(node.rebootRan('job-00000') && !node.rebootRan('job-09999'));
  assert.equal(
    post(JSON.stringify({ job_set_id: ID, names: ['x'.repeat(129), 7, 'a\u0007'] })),
    204,
  );
  assert.equal(node.advertisedRanJobs().size, 512);
});

void test('the handler answers every request shape with a status, never an exception', async () => {
  const { nodes } = await mesh(() => body(200, '{}'));
  const next = seededRandom(7);
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'BREW'];
  const paths = [
    '/peer',
    '/reboot-ran',
    '/',
    '/peer?x=1',
    '/../etc/passwd',
    '/peer/',
    '//peer',
    '/%00',
  ];
  const statuses = new Set<number>();
  for (let sample = 0; sample < 500; sample++) {
    const response = nodes[1]!.handler({
      method: methods[Math.floor(next() * methods.length)]!,
      path: paths[Math.floor(next() * paths.length)]!,
      headers: { 'if-none-match': next() < 0.5 ? undefined : String(next()) },
      body:
        next() < 0.3
          ? encoder.encode('{"job_set_id": null}')
          : Uint8Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * 256)),
    });
    statuses.add(response.status);
  }
  assert.deepEqual([...statuses].sort(), [200, 204, 400, 404, 405]);
});
