// withLease over the memory store on a FakeClock: the work runs holding the lease and the lease
// is released however the work ends; a lease someone else holds is an answer; a failed release
// does not fail the work; a failed acquire rejects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../common/index.js';
import { FaultyStateStore } from './faulty-store.js';
import { MemoryStateStore } from './memory-store.js';
import { withLease } from './with-lease.js';

const T0 = Date.UTC(2026, 0, 1);
const REQUEST = { name: 'retry-claim/job', holder: 'host-a#aaaaaaaaaaaa', ttlMs: 30_000 };

async function open(): Promise<{ clock: FakeClock; store: FaultyStateStore }> {
  const clock = new FakeClock(T0);
  const inner = new MemoryStateStore({ clock });
  await inner.open();
  return { clock, store: new FaultyStateStore(inner) };
}

void describe('withLease', () => {
  void it('runs the work holding the lease, then releases it', async () => {
    const { store } = await open();
    const outcome = await withLease(store, REQUEST, async (lease) => {
      const state = await store.inspectLease(REQUEST.name);
      assert.equal(state?.holder, REQUEST.holder);
      assert.equal(state?.fence, lease.fence);
      assert.equal(lease.expiresAtMs, T0 + 30_000);
      return 'worked';
    });
    assert.deepEqual(outcome, { kind: 'done', result: 'worked', fence: 1 });
    const after = await store.inspectLease(REQUEST.name);
    assert.equal(after?.expiresAtMs, 0, 'released');
  });

  void it('answers `held` without running the work while another holder has the lease', async () => {
    const { store } = await open();
    await store.acquireLease(REQUEST.name, 'host-b#bbbbbbbbbbbb', 30_000);
    let ran = false;
    const outcome = await withLease(store, REQUEST, () => {
      ran = true;
      return Promise.resolve();
    });
    assert.deepEqual(outcome, {
      kind: 'held',
      holder: 'host-b#bbbbbbbbbbbb',
      expiresAtMs: T0 + 30_000,
    });
    assert.equal(ran, false);
  });

  void it("releases the lease when the work throws, and rethrows the work's error", async () => {
    const { store } = await open();
    await assert.rejects(
      withLease(store, REQUEST, () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal((await store.inspectLease(REQUEST.name))?.expiresAtMs, 0);
  });

  void it('a failed release leaves the lease to lapse and does not fail the work', async () => {
    const { clock, store } = await open();
    store.setFault('eio', ['releaseLease']);
    const outcome = await withLease(store, REQUEST, () => Promise.resolve(7));
    assert.deepEqual(outcome, { kind: 'done', result: 7, fence: 1 });
    store.setFault('none');
    assert.equal((await store.inspectLease(REQUEST.name))?.expiresAtMs, T0 + 30_000);
    await clock.advance(30_000);
    const next = await store.acquireLease(REQUEST.name, 'host-b#bbbbbbbbbbbb', 30_000);
    assert.equal(next.acquired, true, 'lapsed at its TTL');
  });

  void it('a failed acquire rejects', async () => {
    const { store } = await open();
    store.setFault('eio', ['acquireLease']);
    await assert.rejects(
      withLease(store, REQUEST, () => Promise.resolve()),
      /EIO/,
    );
  });
});
