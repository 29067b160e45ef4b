import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { createDeferred, type Deferred, flushMicrotasks } from '../common/index.js';
import { StateMetrics } from './metrics.js';
import { recordingLogger } from '../logging/testing.js';
import { DROP_WARNING_INTERVAL_MS, StateWriteQueue } from './write-queue.js';

async function droppedByKind(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('yacron2_state_dropped_writes_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.kind), v.value]));
}

void test('writes of one lane land in order, one at a time; other lanes run alongside', async () => {
  const queue = new StateWriteQueue({ logger: recordingLogger() }, { concurrency: 4 });
  const gates: Deferred<void>[] = [];
  const events: string[] = [];
  const write = (lane: string, n: number) =>
    queue.write('run-record', lane, async () => {
      events.push(`start ${lane}${n}`);
      const gate = createDeferred();
      gates.push(gate);
      await gate.promise;
      events.push(`end ${lane}${n}`);
    });
  const done = [write('a', 1), write('a', 2), write('b', 1)];
  await flushMicrotasks();
  assert.deepEqual(events, ['start a1', 'start b1']);
  assert.equal(queue.pending, 3);
  gates[0]!.resolve();
  await flushMicrotasks();
  assert.deepEqual(events, ['start a1', 'start b1', 'end a1', 'start a2']);
  gates[1]!.resolve();
  gates[2]!.resolve();
  assert.deepEqual(await Promise.all(done), [true, true, true]);
  assert.equal(queue.pending, 0);
});

void test('settled(lane) waits for the writes accepted so far on that lane only, landed or dropped', async () => {
  const queue = new StateWriteQueue({ logger: recordingLogger() });
  const gates = {
    a1: createDeferred(),
    a2: createDeferred(),
    a3: createDeferred(),
    b: createDeferred(),
  };
  const events: string[] = [];
  void queue.write('inflight', 'a', () => gates.a1.promise);
  void queue.write('inflight', 'a', async () => {
    await gates.a2.promise;
    throw new Error('EIO');
  });
  void queue.write('inflight', 'b', () => gates.b.promise);
  const settledA = queue.settled('a').then(() => events.push('a settled'));
  void queue.write('inflight', 'a', () => gates.a3.promise);
  await queue.settled('idle-lane');
  gates.a1.resolve();
  await flushMicrotasks();
  assert.deepEqual(events, [], 'the second write of a is still running');
  gates.a2.resolve();
  await settledA;
  assert.deepEqual(
    events,
    ['a settled'],
    'a dropped write counts as settled; b and a3 were not waited for',
  );
  assert.equal(queue.pending, 2);
  gates.a3.resolve();
  gates.b.resolve();
  await queue.drain();
  await queue.settled('a');
});

void test('at most `concurrency` lanes write at once', async () => {
  const queue = new StateWriteQueue({ logger: recordingLogger() }, { concurrency: 2 });
  let running = 0;
  let peak = 0;
  const gate = createDeferred();
  const all = Array.from({ length: 6 }, (_, n) =>
    queue.write('inflight', `lane${n}`, async () => {
      running += 1;
      peak = Math.max(peak, running);
      await gate.promise;
      running -= 1;
    }),
  );
  await flushMicrotasks();
  assert.equal(running, 2);
  gate.resolve();
  await Promise.all(all);
  assert.equal(peak, 2);
});

void test('a failed write is dropped with a warning and counted by kind; the lane goes on', async () => {
  const registry = new Registry();
  const logger = recordingLogger();
  const queue = new StateWriteQueue({ logger, metrics: new StateMetrics(registry) });
  const first = queue.write('retry', 'retries/job', () =>
    Promise.reject(new Error('EIO: disk gone')),
  );
  let second = false;
  const next = queue.write('retry', 'retries/job', () => {
    second = true;
    return Promise.resolve();
  });
  assert.equal(await first, false);
  assert.equal(await next, true);
  assert.ok(second);
  assert.deepEqual(await droppedByKind(registry), { retry: 1 });
  const [warning] = logger.at('warn');
  assert.match(
    warning!.message,
    /^Cannot write the durable retry record of retries\/job: EIO: disk gone/,
  );
});

void test('past maxPending, new writes are dropped at once; close() drains and refuses more', async () => {
  const registry = new Registry();
  const queue = new StateWriteQueue(
    { logger: recordingLogger(), metrics: new StateMetrics(registry) },
    { maxPending: 2 },
  );
  const gate = createDeferred();
  const accepted = [1, 2].map(() => queue.write('counters', 'c', () => gate.promise));
  assert.equal(await queue.write('counters', 'c', () => Promise.resolve()), false);
  const closing = queue.close();
  assert.equal(await queue.write('manifest', 'm', () => Promise.resolve()), false);
  gate.resolve();
  await closing;
  assert.deepEqual(await Promise.all(accepted), [true, true]);
  assert.deepEqual(await droppedByKind(registry), { counters: 1, manifest: 1 });
});

void test('drop warnings are rate limited per kind; the counter counts every drop', async () => {
  const logger = recordingLogger();
  const registry = new Registry();
  let nowMs = 0;
  const queue = new StateWriteQueue({
    logger,
    metrics: new StateMetrics(registry),
    monotonicMs: () => nowMs,
  });
  const fail = (kind: 'inflight' | 'run-record') =>
    queue.write(kind, `runs/${kind}`, () => Promise.reject(new Error('EIO: i/o error, write')));
  for (let index = 0; index < 5; index++) await fail('inflight');
  await fail('run-record');
  assert.equal(logger.at('warn').length, 2, 'one warning per kind within the interval');
  nowMs += DROP_WARNING_INTERVAL_MS;
  await fail('inflight');
  const warnings = logger.at('warn').map((line) => line.message);
  assert.equal(warnings.length, 3);
  assert.match(warnings[2]!, /\(4 more inflight writes were dropped since the last warning\)$/);
  assert.deepEqual(await droppedByKind(registry), { inflight: 6, 'run-record': 1 });
});
