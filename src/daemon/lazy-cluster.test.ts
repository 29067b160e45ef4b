// The cluster's code is loaded only when a configuration names a cluster: without one the seams
// answer as a supervisor without a cluster does (compared with a real one side by side), and a
// reload that adds the section loads and starts it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, flushMicrotasks } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { recordingLogger } from '../logging/testing.js';
import { MemoryNetwork } from '../cluster/index.js';
import type { ResolvedConfig } from '../config/index.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { createScheduler } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { gossipConfig } from '../cluster/testing.js';
import { createDaemonCluster } from './cluster.js';
import { testSupervisorSeams } from './test-cluster-seams.js';
import {
  createLazyDaemonCluster,
  loadDaemonCluster,
  type DaemonClusterModule,
} from './lazy-cluster.js';

const JOBS = [
  makeJob({ name: 'lead', schedule: '*/5 * * * *' }),
  makeJob({ name: 'prefer', schedule: '*/5 * * * *', clusterPolicy: 'PreferLeader' }),
  makeJob({ name: 'boot', schedule: '@reboot' }),
];

function harness(initial: ResolvedConfig) {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const network = new MemoryNetwork();
  let config = initial;
  let loads = 0;
  const load = (): Promise<DaemonClusterModule> => {
    loads += 1;
    return loadDaemonCluster();
  };
  const scheduler = createScheduler(
    { clock, logger: silentLogger(), runner: new FakeRunner({ clock }) },
    config,
  );
  const deps = {
    clock,
    logger: silentLogger(),
    config: () => config,
    scheduler: () => scheduler,
    supervisorSeams: testSupervisorSeams(() => network.transportFor('0', ['a:8443'])),
  };
  const lazy = createLazyDaemonCluster({ ...deps, load });
  return {
    clock,
    lazy,
    deps,
    loads: () => loads,
    setConfig(next: ResolvedConfig) {
      config = next;
    },
  };
}

const withCluster = (): ResolvedConfig => ({
  ...makeConfig(JOBS),
  cluster: gossipConfig('a', ['b:8443', 'c:8443']),
});

void describe('the lazily loaded daemon cluster', () => {
  void it('without a cluster section loads nothing and answers as a supervisor without a cluster', async () => {
    const h = harness(makeConfig(JOBS));
    const eager = createDaemonCluster(h.deps);
    await h.lazy.reconcile();
    await eager.reconcile();
    let gained = 0;
    const off = h.lazy.onOwnershipGained(() => (gained += 1));
    assert.equal(h.loads(), 0);
    assert.equal(h.lazy.built(), false);
    for (const job of JOBS) {
      for (const trigger of ['schedule', 'reboot', 'retry', 'catchup'] as const) {
        const query = { job, trigger, scheduledAtMs: null };
        assert.deepEqual(h.lazy.seams.gate(query), eager.seams.gate(query));
      }
      assert.deepEqual(
        h.lazy.seams.cluster.retryDecision(job),
        eager.seams.cluster.retryDecision(job),
      );
      assert.equal(h.lazy.api.jobFields(job), eager.api.jobFields(job));
      assert.equal(h.lazy.resume.owns(job), eager.resume.owns(job));
    }
    assert.deepEqual(
      [...h.lazy.seams.cluster.holdReboots(JOBS)],
      [...eager.seams.cluster.holdReboots(JOBS)],
    );
    assert.equal(h.lazy.seams.cluster.hasHeldReboots(), eager.seams.cluster.hasHeldReboots());
    assert.equal(h.lazy.seams.cluster.rebootHeld('boot'), eager.seams.cluster.rebootHeld('boot'));
    const launched: string[] = [];
    await h.lazy.seams.cluster.releaseReboots(
      (name) => JOBS.find((job) => job.name === name),
      (job) => launched.push(job.name),
    );
    assert.deepEqual(launched, []);
    h.lazy.seams.cluster.onPass();
    assert.equal(h.lazy.api.status(), eager.api.status());
    assert.equal(h.lazy.api.fleet(), eager.api.fleet());
    assert.equal(h.lazy.resume.running(), eager.resume.running());
    const source = h.lazy.metricsSource;
    assert.equal(source.electLeaderConfigured(), eager.supervisor.electLeaderConfigured());
    assert.equal(source.leaderTransitions(), eager.supervisor.leaderTransitions());
    assert.equal(source.quorumTransitions(), eager.supervisor.quorumTransitions());
    assert.equal(source.view(), eager.supervisor.view());
    off();
    await h.lazy.stop();
    await eager.stop();
    assert.equal(h.loads(), 0);
    assert.equal(gained, 0);
  });

  void it('a reload that adds a cluster section loads and starts it once; removing it keeps it built', async () => {
    const h = harness(makeConfig(JOBS));
    await h.lazy.reconcile();
    const lead = { job: JOBS[0]!, trigger: 'schedule' as const, scheduledAtMs: null };
    assert.deepEqual(h.lazy.seams.gate(lead), { kind: 'run' });
    h.setConfig(withCluster());
    await h.lazy.reconcile();
    await h.lazy.reconcile();
    assert.equal(h.loads(), 1);
    assert.equal(h.lazy.built(), true);
    assert.equal(h.lazy.metricsSource.electLeaderConfigured(), true);
    assert.equal(h.lazy.api.status()?.backend, 'gossip');
    // Its peers never answer: a Leader job now fails closed where it ran before the reload.
    await h.clock.advance(1000);
    await flushMicrotasks(50);
    assert.equal(h.lazy.seams.gate(lead).kind, 'skip');
    assert.deepEqual(h.lazy.api.jobFields(JOBS[0]!), { clusterPolicy: 'Leader' });
    h.setConfig(makeConfig(JOBS));
    await h.lazy.reconcile();
    assert.equal(h.lazy.api.status(), null);
    assert.deepEqual(h.lazy.seams.gate(lead), { kind: 'run' });
    assert.equal(h.loads(), 1);
    await h.lazy.stop();
    await h.lazy.reconcile();
    assert.equal(h.lazy.api.status(), null);
  });

  void it('a cluster section at start-up is built by the first reconcile; a failed import is logged and retried', async () => {
    const h = harness(withCluster());
    const logger = recordingLogger();
    let fail = true;
    const lazy = createLazyDaemonCluster({
      ...h.deps,
      logger,
      load: () => (fail ? Promise.reject(new Error('gone')) : loadDaemonCluster()),
    });
    await lazy.reconcile();
    assert.equal(lazy.built(), false);
    assert.match(logger.messages('error').join('\n'), /Cannot load the cluster manager: .*gone/);
    fail = false;
    await lazy.reconcile();
    assert.equal(lazy.built(), true);
    assert.equal(lazy.api.status()?.backend, 'gossip');
    await lazy.stop();
  });
});
