// The filesystem client's round on a FakeClock over the in-memory store (the same lease rules as
// the files): a refused renewal marks the lease lost, a foreign lease is taken only once it is
// 1 s past its expiry, a lease showing our own token is adopted (the next locked renewal decides),
// a timed-out store call is no answer, and a failing ran-set read warns once a minute and leaves
// a new holder unsynced. Plus which client each lease backend's config builds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../common/index.js';
import { recordingLogger } from '../../logging/testing.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsStateStore, MemoryStateStore } from '../../state/index.js';
import { FaultyStateStore } from '../../state/testing.js';
import { createLeaseClient } from '../lease-backends.js';
import { FilesystemLeaseClient } from './filesystem.js';

const marks = { jobSetId: 'v1:f', jobs: new Set<string>() };

function setup(name = 'node-a') {
  const clock = new FakeClock();
  const memory = new MemoryStateStore({ clock });
  const store = new FaultyStateStore(memory);
  const logger = recordingLogger();
  const client = new FilesystemLeaseClient(
    {
      nodeName: name,
      path: '/unused',
      electionName: 'cluster/leader',
      ttlSeconds: 6,
      deploymentId: null,
      topology: 'shared',
      connectTimeoutMs: 10_000,
    },
    { clock, logger, store, probe: () => Promise.resolve() },
  );
  return { clock, memory, store, logger, client };
}

void test('a refused renewal is a lost lease; a foreign lease is taken only 1 s past its expiry', async () => {
  const { clock, memory, client } = setup();
  await client.start();
  assert.equal((await client.round(marks)).kind, 'leader');
  // Someone else takes the lease after it lapsed (our process stalled past the ttl).
  await clock.advance(7000);
  const other = await memory.acquireLease('cluster/leader', 'node-b#bbbbbbbbbbbb', 6000);
  assert.equal(other.acquired, true);
  const lost = await client.round(marks);
  assert.deepEqual(
    lost.kind === 'follower' && [lost.holder, lost.leaseLost],
    ['node-b', true],
    'renewal refused: lost, and the new holder named',
  );
  await clock.advance(6500);
  const stillWaiting = await client.round(marks);
  assert.equal(stillWaiting.kind, 'follower', 'expired by less than the 1 s skew margin');
  await clock.advance(600);
  assert.equal((await client.round(marks)).kind, 'leader', 'taken over');
  assert.equal(client.details(true, 'node-a').fence, 3);
  await client.close();
});

void test('a challenger whose wall clock runs 6.5 s fast never takes a lease its holder renews; it takes a silent one after a full TTL', async (t) => {
  // Two processes' views of one lease directory: the holder's store on its clock, ours on a
  // clock 6.5 s ahead. By the reference's rule alone (expiresAt 1 s behind our wall clock) we
  // would take the lease whenever its last renewal is more than about 0.5 s old.
  const dir = mkdtempSync(join(tmpdir(), 'yacron2-fs-skew-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const holderClock = new FakeClock();
  const ourClock = new FakeClock();
  ourClock.setWall(holderClock.now() + 6500);
  const storeOptions = { path: dir, deploymentId: null, topology: 'shared' as const };
  const holderStore = new FsStateStore(storeOptions, {
    clock: holderClock,
    logger: recordingLogger(),
  });
  const ourStore = new FsStateStore(storeOptions, { clock: ourClock, logger: recordingLogger() });
  await holderStore.open();
  const client = new FilesystemLeaseClient(
    {
      nodeName: 'node-a',
      path: dir,
      electionName: 'cluster/leader',
      ttlSeconds: 6,
      deploymentId: null,
      topology: 'shared',
      connectTimeoutMs: 10_000,
    },
    { clock: ourClock, logger: recordingLogger(), store: ourStore, probe: () => Promise.resolve() },
  );
  await client.start();
  const holder = 'node-b#bbbbbbbbbbbb';
  const held = await holderStore.acquireLease('cluster/leader', holder, 6000);
  assert.equal(held.acquired, true);
  const tick = async (ms: number): Promise<void> => {
    await holderClock.advance(ms);
    await ourClock.advance(ms);
  };
  // The holder renews every 2 s (ttl/3) for a minute; we run a round every 500 ms.
  for (let elapsed = 500; elapsed <= 60_000; elapsed += 500) {
    await tick(500);
    if (elapsed % 2000 === 0) {
      const renewed = await holderStore.renewLease('cluster/leader', holder, held.fence, 6000);
      assert.equal(renewed.acquired, true, `the holder renews at ${elapsed} ms`);
    }
    const round = await client.round(marks);
    assert.equal(round.kind, 'follower', `never leader while the holder renews (${elapsed} ms)`);
  }
  // The holder stops renewing (it crashed right after its last renewal, at 60 s). It acts on
  // its tenure until 5 s after that renewal was sent; we take over only after a full TTL.
  let takenAtMs: number | null = null;
  for (let since = 500; since <= 10_000 && takenAtMs === null; since += 500) {
    await tick(500);
    if ((await client.round(marks)).kind === 'leader') takenAtMs = since;
  }
  assert.ok(takenAtMs !== null, 'taken over once the lease went silent');
  assert.ok(takenAtMs >= 6000, `taken ${takenAtMs} ms after the last renewal, not before a TTL`);
  await client.close();
  await holderStore.close();
});

void test('a lease showing our own token is adopted, and the next locked renewal decides', async () => {
  const { memory, client } = setup();
  await client.start();
  const ours = await memory.acquireLease('cluster/leader', client.holder, 6000);
  const adopted = await client.round(marks);
  assert.equal(adopted.kind, 'follower', 'an unlocked read never grants a fence');
  assert.equal(adopted.kind === 'follower' && adopted.holder, 'node-a');
  const renewed = await client.round(marks);
  assert.equal(renewed.kind, 'leader');
  assert.equal(client.details(true, 'node-a').fence, ours.fence);
  await client.release();
  assert.equal((await memory.inspectLease('cluster/leader'))?.expiresAtMs, 0, 'released in place');
  await client.close();
});

void test('a hung store call is no answer; a failing ran-set read warns once a minute', async () => {
  const { clock, store, logger, client } = setup();
  await client.start();
  store.setFault('eio', ['list']);
  const won = await client.round({ jobSetId: 'v1:f', jobs: new Set(['boot']) });
  assert.equal(won.kind, 'leader');
  assert.equal(won.ranSet, undefined, 'not read: the holder stays unsynced');
  await client.round(marks);
  assert.equal(logger.at('warn').length, 1, 'once a minute, not every round');
  assert.match(
    logger.at('warn')[0]!.message,
    /could not read the @reboot record cluster\/reboot-ran; deferring pending @reboot one-shots/,
  );
  store.setFault('none');
  const synced = await client.round(marks);
  assert.deepEqual(synced.kind === 'leader' && [...(synced.ranSet?.jobs ?? [])], ['boot']);
  store.setFault('hang', ['renewLease']);
  const pending = client.round(marks);
  await clock.advance(800);
  await assert.rejects(pending, /Cannot reach the election store: no answer within 0\.75 s/);
  store.setFault('none');
  await client.close();
});

void test('each lease backend config builds its client with the documented release bound', async () => {
  const common = {
    nodeName: 'n',
    connectTimeoutMs: 7000,
    electLeader: true,
    distribution: 'single-leader' as const,
    advisories: [],
    shareNodeStats: false,
    source: { file: 'x.yaml', line: 1 },
    observabilityMesh: null,
  };
  const deps = { clock: new FakeClock(), logger: recordingLogger(), env: {} };
  const kube = await createLeaseClient(
    {
      ...common,
      backend: 'kubernetes',
      kubernetes: {
        leaseName: 'l',
        leaseNamespace: null,
        leaseDurationSeconds: 15,
        renewDeadlineSeconds: 10,
        retryPeriodSeconds: 2,
        identity: 'n',
        kubeconfig: null,
        apiServer: null,
        clientLibrary: 'auto',
      },
    },
    deps,
  );
  assert.deepEqual([kube.client.backend, kube.options.releaseTimeoutMs], ['kubernetes', 10_000]);
  const fs = await createLeaseClient(
    {
      ...common,
      backend: 'filesystem',
      filesystem: {
        path: '/x',
        electionName: 'e',
        ttlSeconds: 15,
        deploymentId: null,
        topology: 'auto',
      },
    },
    deps,
  );
  assert.deepEqual([fs.client.backend, fs.options.releaseTimeoutMs], ['filesystem', 7000]);
});
