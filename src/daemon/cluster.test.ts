// The daemon's cluster over an in-memory network (certificates stubbed): three nodes, each with a
// real scheduler, agree on one leader, show the same per-job owner under spread, and serve the
// views GET /cluster and GET /fleet render, the peers' job summaries aged by their age.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, flushMicrotasks } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { MemoryNetwork } from '../cluster/index.js';
import type { ResolvedConfig } from '../config/index.js';
import { renderClusterStatus, renderFleet } from '../http/index.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { createScheduler } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { gossipConfig } from '../cluster/testing.js';
import { createDaemonCluster, type DaemonCluster } from './cluster.js';
import { testSupervisorSeams } from './test-cluster-seams.js';

const NAMES = ['a', 'b', 'c'];
const HOSTS = NAMES.map((name) => `${name}:8443`);

async function threeNodes(distribution: 'single-leader' | 'spread') {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const network = new MemoryNetwork();
  const jobs = [
    makeJob({ name: 'lead', schedule: '*/5 * * * *' }),
    makeJob({ name: 'prefer', schedule: '*/5 * * * *', clusterPolicy: 'PreferLeader' }),
    makeJob({ name: 'every', schedule: '*/5 * * * *', clusterPolicy: 'EveryNode' }),
  ];
  const nodes = NAMES.map((name, index) => {
    const config: ResolvedConfig = {
      ...makeConfig(jobs),
      cluster: gossipConfig(
        name,
        HOSTS.filter((_, at) => at !== index),
        { distribution },
      ),
    };
    const scheduler = createScheduler(
      { clock, logger: silentLogger(), runner: new FakeRunner({ clock }) },
      config,
    );
    const cluster: DaemonCluster = createDaemonCluster({
      clock,
      logger: silentLogger(),
      config: () => config,
      scheduler: () => scheduler,
      supervisorSeams: testSupervisorSeams(() =>
        network.transportFor(String(index), [HOSTS[index]!]),
      ),
    });
    return { name, config, scheduler, cluster };
  });
  for (const node of nodes) node.scheduler.start();
  for (const node of nodes) await node.cluster.reconcile();
  // Three rounds: every view settles (the convergence hold ends).
  for (let round = 0; round < 3; round++) {
    await clock.advance(1000);
    await flushMicrotasks(200);
  }
  return {
    clock,
    nodes,
    async stop() {
      for (const node of nodes) {
        await node.cluster.stop();
        const done = node.scheduler.shutdown(0);
        await clock.advance(1000);
        await done;
      }
    },
  };
}

void describe('the daemon cluster', () => {
  void it('elects one leader, renders GET /cluster, and keeps clusterOwner out of single-leader jobs', async () => {
    const mesh = await threeNodes('single-leader');
    const [a] = mesh.nodes;
    const status = a!.cluster.api.status();
    assert.ok(status);
    const body = renderClusterStatus(status, null);
    assert.deepEqual(Object.keys(body), [
      'enabled',
      'backend',
      'node_name',
      'job_set_id',
      'cluster_size',
      'quorum',
      'elect_leader',
      'distribution',
      'conflict',
      'conflict_names',
      'size_conflict',
      'conflicting_sizes',
      'policy_conflict',
      'conflicting_policies',
      'quorate',
      'leader',
      'is_leader',
      'peers',
      'node_stats',
    ]);
    assert.equal(body.leader, 'a');
    assert.equal(body.is_leader, true);
    assert.equal(body.cluster_size, 3);
    const peers = body.peers;
    assert.deepEqual(
      peers.map((peer) => peer.status),
      ['agreed', 'agreed'],
    );
    assert.match(peers[0]!.last_seen!, /^2026-01-01T00:00:0\d\+00:00$/);
    for (const node of mesh.nodes) {
      assert.deepEqual(node.cluster.api.jobFields(node.config.jobs[0]!), {
        clusterPolicy: 'Leader',
      });
      assert.equal(
        node.cluster.seams.gate({
          job: node.config.jobs[0]!,
          trigger: 'schedule',
          scheduledAtMs: null,
        }).kind,
        node.name === 'a' ? 'run' : 'skip',
      );
    }
    await mesh.stop();
  });

  void it('under spread every node names the same clusterOwner, and GET /fleet carries the peers summaries', async () => {
    const mesh = await threeNodes('spread');
    for (const job of mesh.nodes[0]!.config.jobs) {
      const fields = mesh.nodes.map((node) => node.cluster.api.jobFields(job));
      if (job.clusterPolicy === 'EveryNode') {
        assert.deepEqual(
          fields,
          mesh.nodes.map(() => ({ clusterPolicy: 'EveryNode' })),
        );
        continue;
      }
      const owners = new Set(fields.map((field) => field?.clusterOwner));
      assert.equal(owners.size, 1, `${job.name}: ${JSON.stringify(fields)}`);
      assert.ok(NAMES.includes([...owners][0] as string));
    }
    const fleet = mesh.nodes[0]!.cluster.api.fleet();
    assert.ok(fleet);
    const body = renderFleet(fleet);
    assert.equal(body.interval, 1);
    assert.deepEqual(
      body.nodes.map((node) => [node.node_name, node.self]),
      [
        ['a', true],
        ['b', false],
        ['c', false],
      ],
    );
    const own = body.nodes[0]!.jobs!.lead!.scheduled_in!;
    const peer = body.nodes[1]!.jobs!.lead!.scheduled_in!;
    assert.ok(Math.abs(own - peer) < 1.001, `aged by receipt: ${own} vs ${peer}`);
    await mesh.stop();
  });
});
