// The daemon's orders follow from the parts' after-edges alone: the table planned as written and
// planned backwards give the same start-up, reload and teardown sequences of the parts whose
// order matters (docs/architecture.md "The daemon").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock, Swappable } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { startSpawner } from '../runner/index.js';
import { createScheduler } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { daemonParts, PART, type DaemonLive } from './daemon-parts.js';
import { createLazyDaemonCluster } from './lazy-cluster.js';
import { createNodeStats } from './node.js';
import { subscribeObservers } from './observers.js';
import { planParts, type Part } from './parts.js';
import { ReloadLoop } from './reload-loop.js';
import { createRunResources } from './run-resources.js';

function table(): Part<ReturnType<typeof makeConfig>>[] {
  const clock = new FakeClock();
  const logger = silentLogger();
  const config = makeConfig([makeJob({ name: 'a' })]);
  const runner = new FakeRunner({ clock });
  const scheduler = createScheduler({ clock, logger, runner }, config);
  const live: DaemonLive = {
    config,
    secretEnvNames: new Set(),
    state: { previous: undefined, next: undefined },
    durable: undefined,
    jobApi: undefined,
    dags: undefined,
    web: undefined,
    startedAtMs: Number.NaN,
    drained: undefined,
  };
  return daemonParts({
    clock,
    logger,
    host: 'h',
    env: {},
    processToken: '000000000000',
    shutdownGraceMs: 1_000,
    live,
    logging: undefined,
    spawner: startSpawner({ clock, logger, env: { YACRON2_SPAWN_HELPER: '0' } }),
    runner,
    runResources: createRunResources({ clock, logger }),
    node: createNodeStats({ clock, nodeName: () => 'h' }),
    cluster: createLazyDaemonCluster({
      clock,
      logger,
      config: () => config,
      scheduler: () => scheduler,
    }),
    scheduler,
    observers: subscribeObservers({ clock, logger, env: {} }, scheduler, config),
    servingDurable: new Swappable(),
    servingRunEnvironment: new Swappable(),
    reloads: new ReloadLoop({ clock, logger, intervalMs: 1_000, check: () => Promise.resolve() }),
  });
}

/** The parts of `parts` that are in `only`, by name, in order. */
function names(parts: readonly { readonly name: string }[], only: readonly string[]): string[] {
  return parts.map((part) => part.name).filter((name) => only.includes(name));
}

const ORDERED_CLOSES = [
  PART.reloadChecks,
  PART.firing,
  PART.clusterManager,
  PART.jobs,
  PART.reloadInFlight,
  PART.dagRuns,
  PART.reports,
  PART.jobApi,
  PART.durable,
  PART.state,
  PART.controlApi,
];

test('stop closes in the start order reversed: firing, the cluster manager, the drain, then the teardown with the control API last', () => {
  for (const parts of [table(), table().reverse()]) {
    const plan = planParts(parts);
    assert.deepEqual(
      plan.teardown.map((part) => part.name),
      plan.start
        .filter((part) => part.close !== undefined)
        .map((part) => part.name)
        .reverse(),
    );
    assert.deepEqual(names(plan.teardown, ORDERED_CLOSES), ORDERED_CLOSES);
    // The plain releases come after the control API.
    const releases = plan.teardown.slice(ORDERED_CLOSES.length).map((part) => part.name);
    assert.deepEqual(
      [...releases].sort(),
      [PART.node, PART.observers, PART.sampler, PART.spawner].sort(),
    );
  }
});

test('start-up and reload follow the edges whatever the table order', () => {
  const starting = [
    PART.cluster,
    PART.state,
    PART.startInstant,
    PART.durable,
    PART.jobApi,
    PART.firing,
    PART.durableBoot,
    PART.dagEngine,
    PART.controlApiServer,
    PART.reloadChecks,
  ];
  const reloading = [
    PART.logging,
    PART.jobSet,
    PART.state,
    PART.durable,
    PART.jobApi,
    PART.dagEngine,
    PART.controlApiServer,
    PART.reloaded,
  ];
  for (const parts of [table(), table().reverse()]) {
    const plan = planParts(parts);
    assert.deepEqual(names(plan.start, starting), starting);
    assert.deepEqual(names(plan.reload, reloading), reloading);
    assert.equal(plan.reload[0]?.name, PART.logging);
    assert.equal(plan.reload.at(-1)?.name, PART.reloaded);
    assert.deepEqual(names(plan.pass, [PART.cluster, PART.durable]), [PART.cluster, PART.durable]);
  }
});
