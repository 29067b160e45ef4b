import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { FakeClock, flushMicrotasks } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { createStateStore } from './create-store.js';
import { InstrumentedStateStore } from './instrumented-store.js';
import { MemoryStateStore } from './memory-store.js';
import { StateMetrics } from './metrics.js';
import { storeContract } from './store.contract.js';

storeContract('InstrumentedStateStore over MemoryStateStore', (clock) =>
  Promise.resolve({
    store: new InstrumentedStateStore(
      new MemoryStateStore({ clock }),
      {},
      { clock, metrics: new StateMetrics(new Registry()) },
    ),
  }),
);

async function values(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return {};
  const { values: samples } = await metric.get();
  return Object.fromEntries(
    samples.map((sample) => [Object.values(sample.labels).join(',') || '', sample.value]),
  );
}

void test('every operation is counted by op, with errors and in-store seconds', async () => {
  const clock = new FakeClock();
  const registry = new Registry();
  const store = new InstrumentedStateStore(
    new MemoryStateStore({ clock }),
    {},
    { clock, metrics: new StateMetrics(registry) },
  );
  await store.open();
  await store.append('runs/a', { n: 1 });
  await store.list('runs/a');
  await store.deriveMax('runs/a', 'n');
  await store.acquireLease('slots/a', 'h', 1000);
  await assert.rejects(store.append('runs/a', []));
  assert.deepEqual(await values(registry, 'yacron2_state_ops_total'), {
    append: 2,
    list: 1,
    'derive-max': 1,
    'lease-acquire': 1,
  });
  assert.deepEqual(await values(registry, 'yacron2_state_op_errors_total'), { append: 1 });
  assert.ok('append' in (await values(registry, 'yacron2_state_op_seconds_total')));
  const text = await registry.metrics();
  assert.ok(!text.includes('yacron2_state_throttled_ops_total'), 'emitted once nonzero');
  assert.ok(!text.includes('yacron2_state_lock_acquisitions_total'), 'emitted once nonzero');
  assert.ok(text.includes('yacron2_state_dropped_writes_total'));
  await store.close();
});

void test('maxOpsPerSecond throttles store operations but never lease operations', async () => {
  const clock = new FakeClock();
  const registry = new Registry();
  const store = new InstrumentedStateStore(
    new MemoryStateStore({ clock }),
    { maxOpsPerSecond: 2 },
    { clock, metrics: new StateMetrics(registry) },
  );
  await store.open();
  await store.append('s', { n: 1 });
  await store.append('s', { n: 2 });
  let third = false;
  const queued = store.append('s', { n: 3 }).then(() => (third = true));
  await flushMicrotasks();
  assert.equal(third, false, 'the third op waits for a token');
  const lease = await store.acquireLease('slots/x', 'h', 10_000);
  assert.ok(lease.acquired, 'a lease op passes the queue');
  assert.ok((await store.renewLease('slots/x', 'h', lease.fence, 10_000)).acquired);
  await clock.advance(500);
  await queued;
  assert.deepEqual(await values(registry, 'yacron2_state_throttled_ops_total'), { '': 1 });
  assert.deepEqual(await values(registry, 'yacron2_state_throttle_wait_seconds_total'), {
    '': 0.5,
  });
  await store.close();
});

void test('createStateStore() wires an FsStateStore with yacron2_state_info and lock metrics', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-state-create-'));
  try {
    const clock = new FakeClock();
    const registry = new Registry();
    const { store, writes, fs } = createStateStore(
      { path: dir, deploymentId: 'app', topology: 'auto', maxOpsPerSecond: 0 },
      {
        clock,
        logger: silentLogger(),
        registry,
        readMounts: () => Promise.resolve(`srv:/x ${dir} nfs4 rw 0 0`),
      },
    );
    await store.open();
    assert.equal(fs.topology, 'shared');
    assert.equal(fs.root, path.join(dir, 'app'));
    assert.deepEqual(await values(registry, 'yacron2_state_info'), { 'filesystem,shared': 1 });
    await store.acquireLease('l', 'h', 1000);
    assert.deepEqual(await values(registry, 'yacron2_state_lock_acquisitions_total'), { '': 1 });
    assert.ok(await writes.write('run-record', 'runs/a', () => store.append('runs/a', {})));
    await writes.close();
    await store.close();
    // A second store on the same registry (filesystem leadership's embedded one) shares the families.
    const again = createStateStore(
      { path: dir, topology: 'single-node' },
      { clock, logger: silentLogger(), registry },
    );
    await again.store.open();
    await again.store.acquireLease('l', 'h', 1000);
    assert.deepEqual(await values(registry, 'yacron2_state_lock_acquisitions_total'), { '': 2 });
    await again.store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
