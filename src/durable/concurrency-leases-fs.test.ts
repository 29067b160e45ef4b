// Cluster slots over the filesystem store: three ConcurrencyLeases, each on its own FsStateStore
// instance (its own instance token, lock descriptors and write queue) over one directory, on the
// real clock — the holder/fence/cancel protocol through real lease and record files, with the
// bytes another node (or the Python reference) reads. Cross-process fencing of the lease itself
// is state/fs-multiprocess.test.ts; three real daemons are test/e2e/concurrency-leases.test.ts.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { createDeferred, systemClock, TaskSet } from '../common/index.js';
import { recordingLogger } from '../logging/testing.js';
import { makeJob } from '../config/testing.js';
import { FsStateStore, StateWriteQueue } from '../state/index.js';
import { ConcurrencyLeases } from './concurrency-leases.js';
import { StoreAccess } from './store-access.js';

const TTL_MS = 5000;

async function openNode(dir: string, host: string, token: string) {
  const logger = recordingLogger();
  const store = new FsStateStore({ path: dir, topology: 'shared' }, { clock: systemClock, logger });
  await store.open();
  const writes = new StateWriteQueue({ logger });
  const tasks = new TaskSet((error) => assert.fail(String(error)));
  const slots = new ConcurrencyLeases({
    store,
    storeOpened: Promise.resolve(true),
    access: new StoreAccess(store, writes, systemClock),
    clock: systemClock,
    logger,
    host,
    processToken: token,
    ttlMs: TTL_MS,
    onStoreUnavailable: 'degrade',
    tasks,
  });
  return {
    store,
    slots,
    logger,
    async close(): Promise<void> {
      await slots.close();
      await tasks.close();
      await writes.drain();
      await store.close();
    },
  };
}

void test('filesystem store: Forbid skips on a live holder, Replace moves the slot through a fenced cancel', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-slots-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const a = await openNode(dir, 'host-a', 'aaaaaaaaaaaa');
  const b = await openNode(dir, 'host-b', 'bbbbbbbbbbbb');
  const c = await openNode(dir, 'host-c', 'cccccccccccc');
  const forbid = makeJob({
    name: 'report',
    concurrencyScope: 'cluster',
    concurrencyPolicy: 'Forbid',
  });
  const replace = { ...forbid, concurrencyPolicy: 'Replace' as const };
  const cancelled = createDeferred<void>();
  const never = (): void => assert.fail('no cancel expected');

  const first = await a.slots.claim(forbid, {
    replace: false,
    onCancelRequested: () => cancelled.resolve(),
  });
  assert.equal(first.kind, 'run');
  const leaseFile = path.join(dir, 'default', 'leases', 'slots%2Freport.lease');
  const lease = JSON.parse(await readFile(leaseFile, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(lease), ['expiresAt', 'fence', 'holder', 'name']);
  assert.deepEqual(
    [lease['holder'], lease['fence'], lease['name']],
    ['host-a#aaaaaaaaaaaa', 1, 'slots/report'],
  );

  assert.deepEqual(await c.slots.claim(forbid, { replace: false, onCancelRequested: never }), {
    kind: 'skip',
    reason: 'forbid',
  });
  assert.deepEqual(c.logger.messages('warn'), [
    'Job report skipped: its cluster concurrency slot is held by host-a (concurrencyPolicy Forbid)',
  ]);

  // b (Replace) appends the cancel aimed at fence 1 and polls; a's renew reads it and lets go.
  const taking = b.slots.claim(replace, { replace: true, onCancelRequested: never });
  await cancelled.promise;
  if (first.kind === 'run') first.hold?.release();
  const taken = await taking;
  assert.equal(taken.kind, 'run');
  const [cancel] = await c.store.list('slots/report');
  assert.deepEqual(
    [cancel?.data['kind'], cancel?.data['fence'], cancel?.data['by']],
    ['cancel', 1, 'host-b'],
  );
  const now = await c.store.inspectLease('slots/report');
  assert.deepEqual([now?.holder, now?.fence], ['host-b#bbbbbbbbbbbb', 2]);
  if (taken.kind === 'run') taken.hold?.release();
  await b.close();
  assert.equal((await c.store.inspectLease('slots/report'))?.expiresAtMs, 0, 'released');
  await a.close();
  await c.close();
});
