// Whole simulated clusters of 3–7 nodes against the reference's recordings: every node's view
// after every round (statuses, size, live set, candidates, bridges, leaders, owners, conflicts,
// the convergence hold, the ran-set) and node 0's final /peer body. The nodes are real
// GossipNodes over the MemoryTransport, polled in the recorded order: node 0's peers, then
// node 1's, ... each poll seeing its target's current state through its real /peer handler.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock, sortByCodePoint } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { clusterGolden, type GoldenMesh } from './golden-fixture.test.js';
import { GossipNode } from './gossip-node.js';
import { MemoryNetwork } from './memory-transport.js';

function snapshot(node: GossipNode, jobs: readonly string[]): Record<string, unknown> {
  const sets = node.derived();
  const conflicts = node.conflicts();
  const peers: Record<string, unknown> = {};
  for (const peer of node.peers()) peers[peer.host] = [peer.status, peer.mismatchStreak];
  const owners: Record<string, unknown> = {};
  for (const job of jobs) {
    owners[job] = [
      node.jobOwner(job),
      node.isJobOwner(job),
      node.availableJobOwner(job),
      node.isAvailableJobOwner(job),
    ];
  }
  return {
    peers,
    cluster_size: sets.clusterSize,
    quorum: sets.quorum,
    mutual_agreeing: sortByCodePoint(sets.liveNames),
    quorate_vouched: sortByCodePoint(sets.eligible),
    bridge: [...sets.bridge],
    unconfirmed: [...sets.unconfirmed],
    available_contenders: [...sets.availableContenders],
    leader: node.leaderName(),
    is_leader: node.isLeader(),
    quorate: node.isQuorate(),
    view_settled: node.viewSettled(),
    available_leader: node.availableLeaderName(),
    is_available_leader: node.isAvailableLeader(),
    conflict_names: [...conflicts.names],
    conflicting_sizes: [...conflicts.sizes],
    conflicting_policies: [...conflicts.policies],
    has_conflict: node.hasConflict(),
    ran_reboot_jobs: sortByCodePoint(node.advertisedRanJobs()),
    owners,
  };
}

async function buildMesh(mesh: GoldenMesh): Promise<GossipNode[]> {
  const clock = new FakeClock();
  const network = new MemoryNetwork();
  const nodes = mesh.nodes.map((spec, index) => {
    assert.equal(spec.legacy, false, 'the recordings hold no legacy nodes');
    return new GossipNode(
      {
        nodeName: spec.name,
        peers: spec.peers,
        electLeader: spec.electLeader,
        distribution: spec.distribution,
        driftAfter: spec.driftAfter,
        connectTimeoutMs: 10_000,
      },
      {
        clock,
        transport: network.transportFor(String(index), spec.hosts),
        logger: silentLogger(),
        jobSetId: () => spec.job_set_id,
        instanceId: spec.instance_id,
      },
    );
  });
  for (const [key, state] of Object.entries(mesh.links)) {
    const [from, host] = key.split('>') as [string, string];
    network.setLink(from, host, state);
  }
  for (const [index, names] of Object.entries(mesh.ran_local))
    nodes[Number(index)]!.seedRebootRan(names);
  for (const [index, node] of nodes.entries()) {
    await network.transportFor(String(index), mesh.nodes[index]!.hosts).listen(node.handler);
  }
  return nodes;
}

const meshes = clusterGolden().meshes;

void test('the recordings cover 3- to 7-node meshes with partitions, bad certs and self-listings', () => {
  assert.ok(meshes.length >= 20);
  const sizes = new Set(meshes.map((mesh) => mesh.nodes.length));
  assert.ok(sizes.has(3) && sizes.has(7));
});

for (const [index, mesh] of meshes.entries()) {
  const shape = `${mesh.nodes.length} nodes, ${mesh.rounds} rounds, ${Object.keys(mesh.links).length} bad links`;
  void test(`mesh ${index} (${shape}): every node after every round, and node 0's /peer body`, async () => {
    const nodes = await buildMesh(mesh);
    for (let round = 0; round < mesh.rounds; round++) {
      for (const node of nodes) await node.runRound();
      nodes.forEach((node, at) => {
        assert.deepEqual(
          snapshot(node, mesh.jobs),
          mesh.rounds_out[round]![at],
          `round ${round + 1}, node ${at}`,
        );
      });
    }
    const payload = nodes[0]!.payload();
    assert.deepEqual(JSON.parse(JSON.stringify(payload)), mesh.node0_final_payload);
    assert.deepEqual(Object.keys(payload), Object.keys(mesh.node0_final_payload), 'key order');
  });
}
