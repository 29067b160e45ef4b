// The engine over a memory store, a FakeClock and FakeRunners: two daemons on one store never run
// a task twice, scheduled runs converge on one key, boot catch-up, retention, crash resume of an
// orphaned attempt, sensor timeouts, mapping limits (count and bytes), the run document's byte cap
// (a run over it ends for good, and is not resumed), cancels, and the refusals of trigger, decide
// and cancel.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock, flushMicrotasks, isYacronError } from '../common/index.js';
import { recordingLogger, type RecordingLogger } from '../logging/testing.js';
import { makeSchedule } from '../config/testing.js';
import type { ResolvedDag } from '../config/index.js';
import { MAX_SLEEP_MS } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { MemoryStateStore, artifactStream, dagXcomScope, type StateStore } from '../state/index.js';
import { DagEngine, type DagEngineDeps } from './dag-engine.js';
import {
  expansionRefusal,
  MAX_MAPPED_ITEM_BYTES,
  MAX_MAPPED_ITEMS,
  MAX_MAPPED_TOTAL_BYTES,
} from './expansion.js';
import { newRunDocument, type RunDocument } from './run-document.js';
import { runTimesBody } from './run-document-wire.js';
import { scheduledRunKey } from './run-keys.js';
import { createRunIfAbsent, listRuns, readRun } from './run-store.js';
import { makeDag, type TaskSpec } from './test-dag-fixture.js';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);

interface Node {
  readonly engine: DagEngine;
  readonly runner: FakeRunner;
  readonly ended: string[];
  readonly logger: RecordingLogger;
}

interface World {
  readonly clock: FakeClock;
  readonly store: StateStore;
  node(dags: readonly ResolvedDag[], extra?: Partial<DagEngineDeps>): Node;
  /** Let the engines' promise chains run (no time passes). */
  settle(): Promise<void>;
}

async function world(): Promise<World> {
  const clock = new FakeClock(START);
  const store = new MemoryStateStore({ clock });
  await store.open();
  let token = 0;
  let drawn = 0;
  return {
    clock,
    store,
    node(dags, extra = {}) {
      const runner = new FakeRunner({ clock });
      const ended: string[] = [];
      const logger = recordingLogger();
      token += 1;
      const engine = new DagEngine(
        {
          clock,
          logger,
          host: 'host-a',
          processToken: `proc${String(token).padStart(8, '0')}`,
          runner,
          runEnvironment: () => null,
          endRun: (runId) => ended.push(runId),
          store: () => store,
          isPidAlive: () => false,
          random: () => 0.5,
          randomBytes: (size) => new Uint8Array(size).fill((drawn += 1) % 256),
          mayCreateScheduledRuns: () => true,
          ...extra,
        },
        dags,
      );
      return { engine, runner, ended, logger };
    },
    async settle() {
      for (let i = 0; i < 20; i += 1) {
        await clock.advance(0);
        await flushMicrotasks(50);
      }
    },
  };
}

async function runOf(w: World, dag: string, runKey: string): Promise<RunDocument> {
  const run = await readRun(w.store, dag, runKey);
  assert.ok(run !== undefined, `run ${runKey}`);
  return run;
}

const CHAIN: readonly TaskSpec[] = [{ id: 'a' }, { id: 'b', dependsOn: ['a'] }];

void test('two daemons on one store: each task is launched once, and the run succeeds', async () => {
  const w = await world();
  const dag = makeDag('d', CHAIN);
  const one = w.node([dag]);
  const two = w.node([dag]);
  await one.engine.start(START);
  await two.engine.start(START);
  const runKey = await one.engine.trigger('d');
  await w.settle();
  // The second daemon adopts whatever it can see: the lease keeps it out.
  await w.clock.advance(15_000);
  await w.settle();
  const launches = (name: string): number =>
    one.runner.runsOf(name).length + two.runner.runsOf(name).length;
  assert.equal(launches('d.a'), 1);
  for (const run of [...one.runner.running(), ...two.runner.running()]) run.succeed();
  await w.settle();
  for (const run of [...one.runner.running(), ...two.runner.running()]) run.succeed();
  await w.settle();
  assert.equal(launches('d.a'), 1);
  assert.equal(launches('d.b'), 1);
  const run = await runOf(w, 'd', runKey);
  assert.equal(run.state, 'success');
  assert.equal(one.ended.length + two.ended.length, 2, 'every attempt ended at the job API');
  // The finished run's lease was released.
  const lease = await w.store.inspectLease(`dagadvance/d/${runKey}`);
  assert.equal(lease?.expiresAtMs, 0);
  await one.engine.close();
  await two.engine.close();
});

void test("an attempt's pid is recorded once known (after the launch, through the spawn helper)", async () => {
  const w = await world();
  const dag = makeDag('p', [{ id: 'a' }, { id: 'b' }]);
  const node = w.node([dag]);
  node.runner.spawnDelayMs = 40;
  node.runner.script('p.b', { spawnFails: true });
  await node.engine.start(START);
  const runKey = await node.engine.trigger('p');
  await w.settle();
  let run = await runOf(w, 'p', runKey);
  assert.deepEqual(
    [run.tasks['a']?.state, run.tasks['a']?.pid, run.tasks['b']?.state],
    ['running', null, 'running'],
  );
  await w.clock.advance(40);
  await w.settle();
  run = await runOf(w, 'p', runKey);
  assert.equal(run.tasks['a']?.state, 'running');
  assert.equal(run.tasks['a']?.pid, node.runner.last('p.a').pid);
  assert.notEqual(run.tasks['a']?.pid, undefined);
  assert.deepEqual([run.tasks['b']?.state, run.tasks['b']?.pid], ['failed', null]);
  node.runner.last('p.a').succeed();
  await w.settle();
  run = await runOf(w, 'p', runKey);
  assert.deepEqual([run.tasks['a']?.state, run.state], ['success', 'failed']);
  await node.engine.close();
});

void test('a failed attempt is retried after retryDelaySeconds, with the attempt counted', async () => {
  const w = await world();
  const dag = makeDag('d', [{ id: 'a', retries: 1, retryDelayMs: 5000 }]);
  const node = w.node([dag]);
  node.runner.script('d.a', { exitCode: 2 }, { exitCode: 0 });
  await node.engine.start(START);
  const runKey = await node.engine.trigger('d');
  await w.settle();
  let run = await runOf(w, 'd', runKey);
  assert.equal(run.tasks['a']?.state, 'up_for_retry');
  assert.equal(run.tasks['a']?.failReason, 'failsWhen=nonzeroReturn and retcode=2');
  await w.clock.advance(4999);
  await w.settle();
  assert.equal(node.runner.runsOf('d.a').length, 1);
  await w.clock.advance(1);
  await w.settle();
  run = await runOf(w, 'd', runKey);
  assert.equal(node.runner.runsOf('d.a').length, 2);
  assert.equal(run.tasks['a']?.attempt, 2);
  assert.equal(run.state, 'success');
  await node.engine.close();
});

void test('scheduled runs: keys from the UTC logical date, one run per date across nodes', async () => {
  const w = await world();
  const dag = makeDag('s', [{ id: 'only' }], { schedule: scheduleOf('*/10 * * * * * *') });
  const one = w.node([dag]);
  const two = w.node([dag]);
  one.runner.setDefault({});
  two.runner.setDefault({});
  await one.engine.start(START);
  await two.engine.start(START);
  await w.clock.advance(10_000);
  await w.settle();
  const { runs } = await listRuns(w.store, 's');
  assert.deepEqual(
    runs.map((run) => [run.runKey, run.kind, runTimesBody(run).logicalDate]),
    [[scheduledRunKey(START + 10_000), 'scheduled', '2026-01-01T12:00:10+00:00']],
  );
  assert.equal(runs[0]?.runKey, '2026-01-01T12:00:10_00:00');
  await one.engine.close();
  await two.engine.close();
});

void test('a schedule timer sleeps at most MAX_SLEEP_MS: a wall clock step past the slot is seen on the next wake', async () => {
  const w = await world();
  const dag = makeDag('daily', [{ id: 'only' }], { schedule: scheduleOf('0 0 * * *') });
  const node = w.node([dag]);
  node.runner.setDefault({});
  await node.engine.start(START);
  const midnight = Date.UTC(2026, 0, 2);
  // Half a day away: a suspend steps the wall clock past it while the timer sleeps.
  w.clock.setWall(midnight + 5_000 - MAX_SLEEP_MS);
  await w.clock.advance(MAX_SLEEP_MS);
  await w.settle();
  const { runs } = await listRuns(w.store, 'daily');
  assert.deepEqual(
    runs.map((run) => [run.runKey, run.kind]),
    [[scheduledRunKey(midnight), 'scheduled']],
  );
  await node.engine.close();
});

function scheduleOf(text: string): ResolvedDag['schedule'] {
  const schedule = makeSchedule(text, 'UTC');
  assert.ok(schedule.kind === 'cron');
  return schedule;
}

void test('boot catch-up from the newest run: run-all, run-once, and the deadline', async () => {
  const cases: [Partial<ResolvedDag>, number][] = [
    [{ onMissed: 'run-all' }, 3],
    [{ onMissed: 'run-once' }, 1],
    [{ onMissed: 'run-all', startingDeadlineMs: 90 * 60_000 }, 2],
    [{ onMissed: 'run-all', startingDeadlineMs: 30 * 60_000 }, 1],
    [{ onMissed: 'skip' }, 0],
    [{ onMissed: 'run-all', enabled: false }, 0],
  ];
  for (const [extra, expected] of cases) {
    const w = await world();
    const dag = makeDag('h', [{ id: 'only' }], { schedule: scheduleOf('0 * * * *'), ...extra });
    const before = START - 3 * 3_600_000;
    await createRunIfAbsent(w.store, {
      ...newRunDocument(
        dag,
        {
          runKey: scheduledRunKey(before),
          runId: 'f'.repeat(32),
          logicalDateMs: Date.parse('2026-01-01T09:00:00+00:00'),
          kind: 'scheduled',
        },
        before,
      ),
      state: 'success',
    });
    const node = w.node([dag]);
    node.runner.setDefault({});
    await node.engine.start(START);
    await w.settle();
    const { runs } = await listRuns(w.store, 'h');
    const catchups = runs.filter((run) => run.kind === 'catchup');
    assert.equal(catchups.length, expected, JSON.stringify(extra));
    if (expected === 1) {
      assert.equal(runTimesBody(catchups[0]!).logicalDate, '2026-01-01T12:00:00+00:00');
    }
    await node.engine.close();
  }
});

void test('retainRuns keeps the newest terminal runs and never an active one', async () => {
  const w = await world();
  const dag = makeDag('r', [{ id: 'only' }], { retainRuns: 2 });
  const node = w.node([dag]);
  await node.engine.start(START);
  const keys: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    keys.push(await node.engine.trigger('r'));
    await w.clock.advance(1000);
    await w.settle();
  }
  // A run still running is kept whatever its age.
  for (const run of node.runner.running('r.only').slice(1)) run.succeed();
  await w.settle();
  let { runs } = await listRuns(w.store, 'r');
  assert.equal(runs.length, 3);
  node.runner.running('r.only')[0]?.succeed();
  await w.settle();
  ({ runs } = await listRuns(w.store, 'r'));
  assert.equal(runs.length, 2);
  assert.ok(!runs.some((run) => run.runKey === keys[0]));
  await node.engine.close();
});

void test('crash resume: an orphan still alive is waited for, then its attempt is retried or failed', async () => {
  const w = await world();
  let alive = true;
  const dag = makeDag('c', [{ id: 'retried', retries: 1 }, { id: 'once' }]);
  const doc = newRunDocument(
    dag,
    { runKey: 'manual-0000000000aa', runId: 'b'.repeat(32), logicalDateMs: null, kind: 'manual' },
    START,
  );
  const orphan = {
    state: 'running' as const,
    attempt: 1,
    proc: 'deadbeef0000',
    host: 'host-a',
    pid: 4242,
  };
  await createRunIfAbsent(w.store, {
    ...doc,
    tasks: {
      retried: { ...doc.tasks['retried']!, ...orphan },
      once: { ...doc.tasks['once']!, ...orphan },
    },
  });
  const node = w.node([dag], { isPidAlive: () => alive });
  await node.engine.start(START);
  await w.settle();
  assert.equal(node.runner.runsOf('c.retried').length, 0, 'not while the orphan lives');
  alive = false;
  await w.clock.advance(10_000);
  await w.settle();
  const run = await runOf(w, 'c', 'manual-0000000000aa');
  assert.equal(run.tasks['once']?.state, 'failed');
  assert.equal(run.tasks['once']?.failReason, 'the task process was lost with its daemon');
  assert.equal(run.tasks['retried']?.state, 'running');
  assert.equal(run.tasks['retried']?.attempt, 2);
  assert.equal(node.runner.runsOf('c.retried').length, 1);
  node.runner.last('c.retried').succeed();
  await node.engine.close();
});

void test('a sensor pokes on its interval, keeps its window across pokes, and fails at the timeout', async () => {
  const w = await world();
  const dag = makeDag('s', [
    { id: 'wait', kind: 'sensor', poke: { intervalMs: 10_000, timeoutMs: 25_000, jitterMs: 2000 } },
  ]);
  const node = w.node([dag]);
  node.runner.setDefault({ exitCode: 1 });
  await node.engine.start(START);
  const runKey = await node.engine.trigger('s');
  await w.settle();
  let run = await runOf(w, 's', runKey);
  assert.equal(run.tasks['wait']?.state, 'running');
  // The next poke: interval + jitter * 0.5.
  assert.equal(run.tasks['wait']?.nextPokeAtMs, START + 11_000);
  await w.clock.advance(11_000);
  await w.settle();
  await w.clock.advance(11_000);
  await w.settle();
  await w.clock.advance(11_000);
  await w.settle();
  run = await runOf(w, 's', runKey);
  assert.equal(run.tasks['wait']?.state, 'failed');
  // Pokes at 0, 11, 22 and 33 s: the fourth is past the 25 s window.
  assert.equal(run.tasks['wait']?.pokeCount, 4);
  assert.equal(
    run.tasks['wait']?.failReason,
    'sensor condition not met within pokeTimeoutSeconds=25',
  );
  assert.equal(run.state, 'failed');
  await node.engine.close();
});

async function pushXcom(w: World, doc: RunDocument, name: string, text: string): Promise<void> {
  const sha256 = await w.store.putBlob(Buffer.from(text));
  await w.store.append(artifactStream(dagXcomScope(doc.dag, doc.runId)), {
    name,
    sha256,
    size: text.length,
    at: w.clock.now() / 1000,
  });
}

void test('mapping: a missing list is an empty expansion; over the limit fails; instances get their items', async () => {
  const tasks: readonly TaskSpec[] = [
    { id: 'src' },
    { id: 'm', dependsOn: ['src'], expand: { fromTask: 'src', key: 'k' } },
  ];
  const cases: [string | null, string, number][] = [
    [null, 'success', 0],
    ['{"not": "a list"}', 'success', 0],
    [JSON.stringify(Array.from({ length: MAX_MAPPED_ITEMS + 1 }, (_, i) => i)), 'failed', 0],
    ['["x", {"y": 1}]', 'expanded', 2],
  ];
  for (const [value, state, instances] of cases) {
    const w = await world();
    const dag = makeDag('m', tasks);
    const node = w.node([dag]);
    await node.engine.start(START);
    const runKey = await node.engine.trigger('m');
    await w.settle();
    const doc = await runOf(w, 'm', runKey);
    if (value !== null) await pushXcom(w, doc, 'src/k', value);
    node.runner.last('m.src').succeed();
    await w.settle();
    const run = await runOf(w, 'm', runKey);
    assert.equal(run.tasks['m']?.state, state, value ?? 'missing');
    assert.equal(node.runner.runsOf('m.m').length, instances);
    if (instances > 0) {
      assert.deepEqual(run.mapped['m']?.items, ['x', { y: 1 }]);
      const env = node.runner
        .runsOf('m.m')
        .map((fake) => fake.request.extraEnv?.['YACRON2_DAG_MAP_ITEM']);
      assert.deepEqual(env.sort(), ['"x"', '{"y":1}']);
      for (const instance of node.runner.running('m.m')) instance.succeed();
    }
    await node.engine.close();
  }
});

void test('trigger, backfill and decide refuse what they cannot do, with stable codes', async () => {
  const w = await world();
  const dag = makeDag('g', [
    { id: 'gate', kind: 'approval' },
    { id: 't', dependsOn: ['gate'] },
  ]);
  const node = w.node([dag]);
  await node.engine.start(START);
  const refused = async (work: () => Promise<unknown>, code: string): Promise<void> => {
    await assert.rejects(work, (error: unknown) => isYacronError(error) && error.code === code);
  };
  await refused(() => node.engine.trigger('nope'), 'YC_ERR_DAG_UNKNOWN');
  await refused(() => node.engine.backfill('g', 0, 1), 'YC_ERR_DAG_NOT_SCHEDULED');
  const runKey = await node.engine.trigger('g');
  await w.settle();
  await refused(
    () => node.engine.decide('g', 'manual-nope', 'gate', 'approve', 'me'),
    'YC_ERR_DAG_RUN_UNKNOWN',
  );
  await refused(
    () => node.engine.decide('g', runKey, 'zz', 'approve', 'me'),
    'YC_ERR_DAG_TASK_UNKNOWN',
  );
  await refused(
    () => node.engine.decide('g', runKey, 't', 'approve', 'me'),
    'YC_ERR_DAG_NOT_AWAITING',
  );
  assert.equal(await node.engine.decide('g', runKey, 'gate', 'reject', 'me'), 'failed');
  await w.settle();
  const run = await runOf(w, 'g', runKey);
  assert.equal(run.tasks['t']?.state, 'upstream_failed');
  assert.equal(run.state, 'failed');
  await node.engine.close();
  const gone = w.node([dag], { store: () => null });
  await refused(() => gone.engine.trigger('g'), 'YC_ERR_STATE_UNAVAILABLE');
});

void test('a reload that drops a DAG mid-attempt records the end; re-adding it resumes the run', async () => {
  const w = await world();
  const dag = makeDag('d', CHAIN);
  const node = w.node([dag]);
  await node.engine.start(START);
  const runKey = await node.engine.trigger('d');
  await w.settle();
  node.engine.configure([]);
  await w.clock.advance(10_000);
  await w.settle();
  node.runner.last('d.a').succeed();
  await w.settle();
  let run = await runOf(w, 'd', runKey);
  assert.equal(run.tasks['a']?.state, 'success');
  assert.equal(run.tasks['b']?.state, 'pending', 'nothing advances a DAG that is not configured');
  node.engine.configure([dag]);
  await w.clock.advance(15_000);
  await w.settle();
  node.runner.last('d.b').succeed();
  await w.settle();
  run = await runOf(w, 'd', runKey);
  assert.equal(run.state, 'success');
  assert.equal(node.runner.runsOf('d.a').length, 1);
  await node.engine.close();
});

const MAPPED: readonly TaskSpec[] = [
  { id: 'src' },
  { id: 'm', dependsOn: ['src'], expand: { fromTask: 'src', key: 'k' } },
  { id: 'after', dependsOn: ['m'] },
];

/** Advance a minute in advancer intervals; the run must not be written again. */
async function assertQuiet(w: World, node: Node, dag: string, runKey: string): Promise<void> {
  const before = await runOf(w, dag, runKey);
  for (let step = 0; step < 6; step += 1) {
    await w.clock.advance(10_000);
    await w.settle();
  }
  assert.deepEqual(await runOf(w, dag, runKey), before, 'the ended run is never written again');
  assert.deepEqual(
    node.logger.messages('error').filter((line) => line.includes('cannot advance')),
    [],
    'no pass is retried',
  );
  const lease = await w.store.inspectLease(`dagadvance/${dag}/${runKey}`);
  assert.equal(lease?.expiresAtMs, 0, 'the advance lease was released');
}

void test('mapping: the 20 MB list of 1,000 items fails the mapped task with the reason; the run ends, nothing retried', async () => {
  const w = await world();
  const dag = makeDag('big', MAPPED);
  const node = w.node([dag]);
  await node.engine.start(START);
  const runKey = await node.engine.trigger('big');
  await w.settle();
  // The review's shape: 1,000 items of 20,000 characters each.
  const value = JSON.stringify(
    Array.from({ length: 1000 }, (_, i) => String(i).padEnd(20_000, 'x')),
  );
  await pushXcom(w, await runOf(w, 'big', runKey), 'src/k', value);
  node.runner.last('big.src').succeed();
  await w.settle();
  const run = await runOf(w, 'big', runKey);
  assert.equal(run.tasks['m']?.state, 'failed');
  assert.equal(
    run.tasks['m']?.failReason,
    `expand: the XCom list is ${value.length} bytes, over the limit of ${MAX_MAPPED_TOTAL_BYTES} bytes`,
  );
  assert.equal(run.tasks['after']?.state, 'upstream_failed');
  assert.equal(run.state, 'failed');
  assert.deepEqual(run.mapped, {});
  assert.equal(node.runner.runsOf('big.m').length, 0);
  await assertQuiet(w, node, 'big', runKey);
  await node.engine.close();
});

void test('mapping: an item over the per-item cap fails the mapped task; the caps are measured as JSON', async () => {
  const w = await world();
  const dag = makeDag('item', MAPPED);
  const node = w.node([dag]);
  await node.engine.start(START);
  const runKey = await node.engine.trigger('item');
  await w.settle();
  const item = 'y'.repeat(MAX_MAPPED_ITEM_BYTES); // 2 bytes more with its quotes
  await pushXcom(w, await runOf(w, 'item', runKey), 'src/k', JSON.stringify(['ok', item]));
  node.runner.last('item.src').succeed();
  await w.settle();
  const run = await runOf(w, 'item', runKey);
  assert.equal(run.tasks['m']?.state, 'failed');
  assert.equal(
    run.tasks['m']?.failReason,
    `expand: item 1 is ${MAX_MAPPED_ITEM_BYTES + 2} bytes, over the limit of ${MAX_MAPPED_ITEM_BYTES} bytes per item`,
  );
  assert.equal(run.state, 'failed');
  await node.engine.close();
  // The total is the items' JSON (an over-long list that was read whole, as recorded items are).
  const many = Array.from({ length: 80 }, () => 'z'.repeat(60_000));
  assert.match(
    expansionRefusal({ kind: 'items', items: many }) ?? '',
    /^expand: the items are 4800160 bytes, over the limit of 4194304 bytes$/,
  );
  assert.equal(expansionRefusal({ kind: 'items', items: many.slice(0, 60) }), null);
  assert.equal(expansionRefusal({ kind: 'none' }), null);
});

void test('a change over the run document cap ends the run too-large, stops its attempts, and is not resumed after a restart', async () => {
  const w = await world();
  const dag = makeDag('doc', [...MAPPED, { id: 'side' }]);
  const limit = 16 * 1024;
  const one = w.node([dag], { runDocumentLimitBytes: limit });
  await one.engine.start(START);
  const runKey = await one.engine.trigger('doc');
  await w.settle();
  // Within the expansion caps, over this run document cap once expanded.
  const items = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(200, 'x'));
  await pushXcom(w, await runOf(w, 'doc', runKey), 'src/k', JSON.stringify(items));
  one.runner.last('doc.src').succeed();
  await w.settle();
  const run = await runOf(w, 'doc', runKey);
  assert.equal(run.state, 'failed');
  assert.equal(run.ended?.kind, 'too-large');
  const bytes = run.ended?.kind === 'too-large' ? run.ended.bytes : 0;
  assert.ok(bytes > limit, `${bytes} bytes`);
  const reason = `the run document would be ${bytes} bytes, over the limit of ${limit} bytes`;
  assert.deepEqual(
    Object.fromEntries(Object.entries(run.tasks).map(([key, e]) => [key, [e.state, e.failReason]])),
    {
      src: ['success', null],
      m: ['skipped', reason],
      after: ['skipped', reason],
      side: ['failed', reason],
    },
  );
  assert.equal(one.runner.runsOf('doc.m').length, 0, 'nothing of the refused pass was launched');
  assert.deepEqual(
    one.runner.last('doc.side').cancels,
    ['cancelled'],
    'the running attempt stopped',
  );
  assert.deepEqual(one.logger.messages('error'), [`DAG doc run ${runKey}: failed: ${reason}`]);
  await assertQuiet(w, one, 'doc', runKey);
  await one.engine.close();
  // A restart (a new process on the same store) does not pick the run up again.
  const two = w.node([dag], { runDocumentLimitBytes: limit });
  await two.engine.start(w.clock.now());
  await w.clock.advance(15_000);
  await w.settle();
  assert.deepEqual(two.runner.running(), []);
  assert.deepEqual(await runOf(w, 'doc', runKey), run);
  await two.engine.close();
});

void test('cancel: the run fails with ended cancelled; its running attempt is stopped and its end not recorded over it', async () => {
  const w = await world();
  const dag = makeDag('c', [
    { id: 'a' },
    { id: 'b', dependsOn: ['a'] },
    { id: 'gate', kind: 'approval' },
    { id: 'r', retries: 2, retryDelayMs: 60_000 },
  ]);
  const node = w.node([dag]);
  await node.engine.start(START);
  const runKey = await node.engine.trigger('c');
  await w.settle();
  node.runner.last('c.r').fail();
  await w.settle();
  let run = await runOf(w, 'c', runKey);
  assert.deepEqual(
    [run.tasks['a']?.state, run.tasks['gate']?.state, run.tasks['r']?.state],
    ['running', 'running', 'up_for_retry'],
  );
  const cancelled = await node.engine.cancel('c', runKey, 'ops');
  const atMs = w.clock.now();
  assert.deepEqual(cancelled.ended, { kind: 'cancelled', by: 'ops', atMs });
  await w.settle();
  const attempt = node.runner.last('c.a');
  assert.deepEqual(attempt.cancels, ['cancelled'], 'stopped as a job cancel stops a run');
  assert.equal(node.runner.running().length, 0);
  run = await runOf(w, 'c', runKey);
  assert.deepEqual(run, cancelled, 'the killed attempt did not overwrite the cancel');
  const reason = 'the run was cancelled by ops';
  assert.equal(run.state, 'failed');
  assert.deepEqual(
    Object.fromEntries(Object.entries(run.tasks).map(([key, e]) => [key, [e.state, e.failReason]])),
    {
      a: ['failed', reason],
      b: ['skipped', reason],
      gate: ['failed', reason],
      r: ['failed', reason],
    },
  );
  assert.equal(run.tasks['gate']?.awaitingApproval, undefined);
  assert.equal(run.tasks['r']?.retryAtMs, undefined);
  await assertQuiet(w, node, 'c', runKey);
  assert.equal(node.runner.runsOf('c.r').length, 1, 'the retry never came');
  const refused = async (work: () => Promise<unknown>, code: string): Promise<void> => {
    await assert.rejects(work, (error: unknown) => isYacronError(error) && error.code === code);
  };
  await refused(() => node.engine.cancel('c', runKey, 'ops'), 'YC_ERR_DAG_RUN_ENDED');
  await refused(() => node.engine.cancel('c', 'manual-nope', 'ops'), 'YC_ERR_DAG_RUN_UNKNOWN');
  await refused(() => node.engine.cancel('nope', runKey, 'ops'), 'YC_ERR_DAG_UNKNOWN');
  await node.engine.close();
});

void test('cancel on one node: the node running the attempt stops it at its next pass', async () => {
  const w = await world();
  const dag = makeDag('x', CHAIN);
  const runs = w.node([dag]);
  const asks = w.node([dag]);
  await runs.engine.start(START);
  await asks.engine.start(START);
  const runKey = await runs.engine.trigger('x');
  await w.settle();
  await asks.engine.cancel('x', runKey, 'ops');
  await w.settle();
  assert.deepEqual(runs.runner.last('x.a').cancels, [], 'not before its next pass');
  await w.clock.advance(10_000);
  await w.settle();
  assert.deepEqual(runs.runner.last('x.a').cancels, ['cancelled']);
  assert.equal(
    (await runOf(w, 'x', runKey)).tasks['a']?.failReason,
    'the run was cancelled by ops',
  );
  assert.equal(runs.runner.runsOf('x.b').length, 0);
  await runs.engine.close();
  await asks.engine.close();
});

void test('decide and cancel refuse a by that is too long or holds control characters', async () => {
  const w = await world();
  const dag = makeDag('g', [{ id: 'gate', kind: 'approval' }]);
  const node = w.node([dag]);
  await node.engine.start(START);
  const runKey = await node.engine.trigger('g');
  await w.settle();
  for (const by of ['x'.repeat(201), 'ops\nDAG g: run approved by admin', 'a\u202eb', 'a\u0000']) {
    await assert.rejects(
      () => node.engine.decide('g', runKey, 'gate', 'approve', by),
      (error: unknown) => isYacronError(error, 'YC_ERR_REQUEST_INVALID'),
    );
    await assert.rejects(
      () => node.engine.cancel('g', runKey, by),
      (error: unknown) => isYacronError(error, 'YC_ERR_REQUEST_INVALID'),
    );
  }
  assert.equal((await runOf(w, 'g', runKey)).tasks['gate']?.awaitingApproval, true);
  const name = 'Zoë 👍 '.padEnd(200, '.');
  assert.equal(await node.engine.decide('g', runKey, 'gate', 'approve', name), 'success');
  assert.equal((await runOf(w, 'g', runKey)).tasks['gate']?.approval?.by, name);
  await node.engine.close();
});
