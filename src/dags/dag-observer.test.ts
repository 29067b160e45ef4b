// The engine's DagObserver calls, in order, over a memory store and a FakeRunner: a run advanced
// here, each attempt of a `task` started and finished (a retry is a second attempt), the run's
// final state reported once by the pass that wrote it, then released; sensor pokes are not
// reported; close() releases the runs still advanced here.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock, flushMicrotasks } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import type { ResolvedDag } from '../config/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { MemoryStateStore } from '../state/index.js';
import { DagEngine } from './dag-engine.js';
import type { DagObserver } from './dag-observer.js';
import { makeDag } from './test-dag-fixture.js';

const START = Date.UTC(2026, 0, 1, 12);

async function observed(dags: readonly ResolvedDag[]) {
  const clock = new FakeClock(START);
  const store = new MemoryStateStore({ clock });
  await store.open();
  const runner = new FakeRunner({ clock });
  const calls: string[] = [];
  let drawn = 0;
  const observer: DagObserver = {
    runAdvanced: (dag) => calls.push(`advanced ${dag}`),
    runReleased: (dag) => calls.push(`released ${dag}`),
    runFinished: (dag, state) => calls.push(`finished ${dag} ${state}`),
    attemptStarted: (dag, task) => calls.push(`started ${dag}.${task}`),
    attemptFinished: (dag, task, outcome) => calls.push(`ended ${dag}.${task} ${outcome.kind}`),
  };
  const engine = new DagEngine(
    {
      clock,
      logger: silentLogger(),
      host: 'h',
      processToken: 'proc00000001',
      runner,
      runEnvironment: () => null,
      endRun: () => undefined,
      store: () => store,
      isPidAlive: () => false,
      random: () => 0,
      randomBytes: (size) => new Uint8Array(size).fill((drawn += 1)),
      mayCreateScheduledRuns: () => false,
      observer,
    },
    dags,
  );
  await engine.start(START);
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i += 1) {
      await clock.advance(0);
      await flushMicrotasks(50);
    }
  };
  return { engine, runner, calls, settle };
}

void test('a run with a retried task: every attempt, the final state once, then the release', async () => {
  const o = await observed([
    makeDag('d', [
      { id: 'a', retries: 1 },
      { id: 'b', dependsOn: ['a'] },
    ]),
  ]);
  await o.engine.trigger('d');
  await o.settle();
  o.runner.last('d.a').fail();
  await o.settle();
  o.runner.last('d.a').succeed();
  await o.settle();
  o.runner.last('d.b').fail(2);
  await o.settle();
  assert.deepEqual(o.calls, [
    'advanced d',
    'started d.a',
    'ended d.a failed',
    'started d.a',
    'ended d.a succeeded',
    'started d.b',
    'ended d.b failed',
    'finished d failed',
    'released d',
  ]);
  await o.engine.close();
});

void test('sensor pokes are not attempts; close() releases a run still advanced here', async () => {
  const o = await observed([
    makeDag('d', [{ id: 's', kind: 'sensor' }]),
    makeDag('e', [
      { id: 's', kind: 'sensor' },
      { id: 't', dependsOn: ['s'] },
    ]),
  ]);
  await o.engine.trigger('d');
  await o.settle();
  o.runner.last('d.s').succeed();
  await o.settle();
  assert.deepEqual(o.calls, ['advanced d', 'finished d success', 'released d']);
  o.calls.length = 0;
  await o.engine.trigger('e');
  await o.settle();
  const poke = o.runner.last('e.s');
  const closed = o.engine.close();
  poke.succeed();
  await o.settle();
  await closed;
  // The closing engine launches no `t`: the run stays running, released by close().
  assert.equal(o.runner.runsOf('e.t').length, 0);
  assert.deepEqual(o.calls, ['advanced e', 'released e']);
});
