// startStateService() on a FakeClock: the store opens in the background, manifests are written
// at start, on a job-set change and every 6 hours, GC runs after start and every 24 hours, and
// close() leaves no timer behind.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock } from '../common/index.js';
import { recordingLogger, type RecordingLogger } from '../logging/testing.js';
import { MemoryStateStore } from './memory-store.js';
import {
  FIRST_GC_DELAY_MS,
  OPEN_RETRY_MS,
  startStateService,
  type StateServiceSettings,
} from './service.js';

const HOUR = 3_600_000;
const SETTINGS: StateServiceSettings = {
  path: '/var/lib/yacron2',
  deploymentId: null,
  topology: 'auto',
  gcGraceMs: 7 * 24 * HOUR,
};
const SOURCE = { jobSetId: 'v1:a', jobs: [{ name: 'backup', stateAllowedScopes: ['shared'] }] };

/** A recording logger and its lines as `<level> <message>`. */
function capture(): { logger: RecordingLogger; lines: () => string[] } {
  const logger = recordingLogger();
  return { logger, lines: () => logger.lines.map((line) => `${line.level} ${line.message}`) };
}

/** A memory store whose first `failures` opens fail. */
class FlakyStore extends MemoryStateStore {
  failures = 0;
  override open(): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(new Error('EIO'));
    }
    return super.open();
  }
}

function setup(settings = SETTINGS, failures = 0) {
  const clock = new FakeClock(Date.UTC(2026, 3, 1));
  const store = new FlakyStore({ clock });
  store.failures = failures;
  const { logger, lines } = capture();
  const service = startStateService(
    { clock, logger, host: 'node-a', createStore: () => store },
    settings,
    SOURCE,
  );
  return { clock, store, service, lines };
}

void test('opens the store and writes a manifest naming the jobs and shared scopes', async () => {
  const { store, service, lines } = setup();
  assert.equal(await service.opened, true);
  await new Promise((resolve) => setImmediate(resolve));
  const [manifest] = await store.list('manifests/node-a');
  assert.deepEqual(manifest?.data, {
    at: '2026-04-01T00:00:00+00:00',
    dags: [],
    host: 'node-a',
    jobSetId: 'v1:a',
    jobs: ['backup'],
    scopes: ['global', 'shared'],
  });
  assert.ok(lines().some((line) => /^info State store ready at/.test(line)));
  assert.ok(!lines().some((line) => /not active/.test(line)));
  await service.close();
});

void test('manifests every 6 hours and on a job-set or DAG-list change; GC after start and daily', async () => {
  const { clock, store, service, lines } = setup();
  await service.opened;
  await clock.advance(0);
  assert.equal((await store.list('manifests/node-a')).length, 1);
  await clock.advance(FIRST_GC_DELAY_MS);
  assert.ok(
    lines().some((line) => /^info State GC deferred: the manifest history spans/.test(line)),
  );
  await clock.advance(6 * HOUR - FIRST_GC_DELAY_MS);
  assert.equal((await store.list('manifests/node-a')).length, 2);
  service.updateJobs({ jobSetId: 'v1:b', jobs: [{ name: 'other', stateAllowedScopes: [] }] });
  await clock.advance(0);
  const newest = (await store.list('manifests/node-a', { limit: 1 }))[0];
  assert.deepEqual(newest?.data.jobs, ['other']);
  service.updateJobs({ jobSetId: 'v1:b', jobs: [{ name: 'other', stateAllowedScopes: [] }] });
  await clock.advance(0);
  assert.equal((await store.list('manifests/node-a')).length, 3, 'same job set: no new manifest');
  // A changed DAG list re-manifests too (DAGs are not in the job-set id).
  service.updateJobs({
    jobSetId: 'v1:b',
    jobs: [{ name: 'other', stateAllowedScopes: [] }],
    dags: ['etl'],
  });
  await clock.advance(0);
  assert.equal((await store.list('manifests/node-a')).length, 4);
  assert.deepEqual((await store.list('manifests/node-a', { limit: 1 }))[0]?.data.dags, ['etl']);
  const gcRuns = (): number => lines().filter((line) => line.startsWith('info State GC')).length;
  const before = gcRuns();
  await clock.advance(24 * HOUR);
  assert.equal(gcRuns(), before + 1);
  await service.close();
  assert.equal(clock.pendingTimers, 0);
});

void test('GC disabled: no pass is scheduled', async () => {
  const { clock, service, lines } = setup({ ...SETTINGS, gcGraceMs: null });
  await service.opened;
  assert.equal(await service.runGcNow(), null);
  await clock.advance(48 * HOUR);
  assert.ok(!lines().some((line) => line.startsWith('info State GC')));
  assert.ok(lines().some((line) => /automatic GC is disabled/.test(line)));
  await service.close();
});

void test('a store that cannot be opened is retried in the background', async () => {
  const { clock, store, service, lines } = setup(SETTINGS, 1);
  await clock.advance(0);
  assert.ok(
    lines().some((line) =>
      /^error Cannot open the state store at \/var\/lib\/yacron2: EIO; retrying in 1m/.test(line),
    ),
  );
  await clock.advance(OPEN_RETRY_MS);
  assert.equal(await service.opened, true);
  await clock.advance(0);
  assert.equal((await store.list('manifests/node-a')).length, 1);
  await service.close();
});

void test('closing while the first manifest is being written leaves no timer behind', async () => {
  const { clock, service } = setup();
  assert.equal(await service.opened, true);
  await service.close();
  await clock.advance(0);
  assert.equal(clock.pendingTimers, 0);
});
