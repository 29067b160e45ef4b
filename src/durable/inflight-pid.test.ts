// The in-flight record (the crash-reconciliation anchor) of a run whose pid comes after the
// launch, as through the spawn helper: it is written with the pid once onSpawn reports it, and a
// launch that fails writes it with pid null, then closes it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { makeJob } from '../config/testing.js';
import {
  flush,
  newProcess,
  openMemoryStore,
  startDaemon,
  streamData,
} from './durable-fixture.test.js';

const SPAWN_DELAY_MS = 40;

async function daemonWithDeferredPids(name: string) {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const store = await openMemoryStore(clock);
  const d = startDaemon({
    clock,
    store,
    jobs: [makeJob({ name, schedule: '0 0 1 1 *' })],
    process: newProcess('process-1'),
  });
  d.runner.spawnDelayMs = SPAWN_DELAY_MS;
  await flush();
  return { clock, store, d };
}

void describe('in-flight records of runs whose pid comes after the launch', () => {
  void test('the open record carries the pid onSpawn reported', async () => {
    const { clock, store, d } = await daemonWithDeferredPids('etl');
    const started = d.scheduler.startJob('etl');
    await flush();
    assert.deepEqual(await streamData(store, 'inflight/etl'), [], 'nothing before the pid');
    await clock.advance(SPAWN_DELAY_MS);
    const result = await started;
    await flush();
    const pid = d.runner.last('etl').pid;
    assert.equal(result.kind === 'started' && result.pid, pid);
    const records = await streamData(store, 'inflight/etl');
    assert.deepEqual(
      records.map((record) => [record['kind'], record['pid']]),
      [['open', pid]],
    );
    d.runner.last('etl').succeed();
    await flush();
    assert.deepEqual(
      (await streamData(store, 'inflight/etl')).map((record) => record['kind']),
      ['open', 'closed'],
    );
    await d.stop();
  });

  void test('a launch that fails opens the record with pid null and closes it', async () => {
    const { clock, store, d } = await daemonWithDeferredPids('nope');
    d.runner.script('nope', { spawnFails: true });
    const started = d.scheduler.startJob('nope');
    await clock.advance(SPAWN_DELAY_MS);
    assert.deepEqual(await started, {
      kind: 'started',
      runId: d.of('run:started')[0]?.runId,
      pid: null,
    });
    await flush();
    assert.deepEqual(
      (await streamData(store, 'inflight/nope')).map((record) => [record['kind'], record['pid']]),
      [
        ['open', null],
        ['closed', undefined],
      ],
    );
    await d.stop();
  });
});
