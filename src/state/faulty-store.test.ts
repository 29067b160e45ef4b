import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock, flushMicrotasks } from '../common/index.js';
import { FaultyStateStore, storeFaultError } from './faulty-store.js';
import { MemoryStateStore } from './memory-store.js';
import { storeContract } from './store.contract.js';
import { withTimeout } from './with-timeout.js';

storeContract('FaultyStateStore over MemoryStateStore (no fault)', (clock) =>
  Promise.resolve({ store: new FaultyStateStore(new MemoryStateStore({ clock })) }),
);

async function openStore(): Promise<{ store: FaultyStateStore; clock: FakeClock }> {
  const clock = new FakeClock();
  const store = new FaultyStateStore(new MemoryStateStore({ clock }));
  await store.open();
  return { store, clock };
}

/** Tracks whether a promise has settled, without letting a rejection go unhandled. */
function track<T>(promise: Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let settled = false;
  const result = promise.finally(() => {
    settled = true;
  });
  void result.catch(() => undefined); // observed later; never an unhandled rejection
  return { settled: () => settled, result };
}

void test('error faults reject like node:fs does, without reaching the wrapped store', async () => {
  const { store } = await openStore();
  store.setFault('eio');
  await assert.rejects(store.append('runs/a', { n: 1 }), (error: NodeJS.ErrnoException) => {
    assert.ok(error instanceof Error);
    assert.equal(error.code, 'EIO');
    assert.equal(error.errno, -5);
    assert.equal(error.syscall, 'write');
    assert.equal(error.message, 'EIO: i/o error, write');
    return true;
  });
  store.setFault('enospc');
  await assert.rejects(
    store.updateDocument('kv/a', 'k', () => ({
      kind: 'write' as const,
      body: { value: 1 },
      result: null,
    })),
    {
      code: 'ENOSPC',
      errno: -28,
      message: 'ENOSPC: no space left on device, write',
    },
  );
  store.setFault('eacces');
  await assert.rejects(store.getDocument('kv/a', 'k'), {
    code: 'EACCES',
    errno: -13,
    syscall: 'open',
    message: 'EACCES: permission denied, open',
  });
  await assert.rejects(store.list('runs/a'), { code: 'EACCES', syscall: 'scandir' });
  store.setFault('none');
  assert.deepEqual(await store.list('runs/a'), [], 'the failed append never landed');
  await store.close();
});

void test('each rejection is a fresh error object', async () => {
  const { store } = await openStore();
  store.setFault('eio');
  const first = await store.getDocument('kv', 'a').catch((error: unknown) => error);
  const second = await store.getDocument('kv', 'a').catch((error: unknown) => error);
  assert.notEqual(first, second);
  assert.deepEqual(storeFaultError('eio', 'getDocument').message, 'EIO: i/o error, read');
  await store.close();
});

void test('a fault limited to some operations leaves the others working', async () => {
  const { store } = await openStore();
  store.setFault('enospc', ['append', 'updateDocument']);
  await assert.rejects(store.append('runs/a', { n: 1 }), { code: 'ENOSPC' });
  await assert.rejects(
    store.updateDocument('kv/a', 'k', () => ({
      kind: 'write' as const,
      body: { value: 1 },
      result: null,
    })),
    { code: 'ENOSPC' },
  );
  assert.deepEqual(await store.list('runs/a'), []);
  assert.equal(await store.getDocument('kv/a', 'k'), undefined);
  assert.ok((await store.acquireLease('slots/a', 'h', 1000)).acquired);
  await store.close();
});

void test('a hang holds the call until release(), which lets it reach the store', async () => {
  const { store } = await openStore();
  store.setFault('hang', ['append']);
  const append = track(store.append('runs/a', { n: 1 }));
  await flushMicrotasks();
  assert.equal(append.settled(), false);
  assert.equal(store.held, 1);
  assert.deepEqual(await store.inner.list('runs/a'), [], 'not issued while held');
  assert.deepEqual(await store.list('runs/a'), [], 'other operations still answer');
  assert.equal(store.release(), 1);
  const record = await append.result;
  assert.deepEqual(record.data, { n: 1 });
  assert.equal(store.held, 0);
  const next = track(store.append('runs/a', { n: 2 }));
  await flushMicrotasks();
  assert.equal(next.settled(), false, 'release() keeps the fault for later calls');
  store.setFault('none');
  await next.result;
  await store.close();
});

void test('clearing a hang lets the held calls proceed; switching to an error rejects them', async () => {
  const { store } = await openStore();
  store.setFault('hang');
  const read = track(store.list('runs/a'));
  const write = track(store.append('runs/a', { n: 1 }));
  await store.untilHeld(2);
  store.setFault('hang', ['append']);
  assert.deepEqual(await read.result, [], 'list is no longer faulted: it proceeds');
  assert.equal(write.settled(), false, 'append is still hung');
  store.setFault('eio', ['append']);
  await assert.rejects(write.result, { code: 'EIO', syscall: 'write' });
  assert.equal(store.held, 0);
  await store.close();
});

void test('a hung read is what the scheduling-path timeout is for', async () => {
  const { store, clock } = await openStore();
  store.setFault('hang', ['deriveMax']);
  const bounded = track(withTimeout(store.deriveMax('runs/a', 'n'), 10_000, clock));
  await clock.advance(9_999);
  assert.equal(bounded.settled(), false);
  await clock.advance(1);
  await assert.rejects(bounded.result, { code: 'YC_ERR_STATE_TIMEOUT' });
  assert.equal(store.held, 1, 'the read itself is still blocked');
  store.release();
  await store.close();
});

void test('close() is not faulted unless listed, so teardown works during a hang', async () => {
  const { store } = await openStore();
  store.setFault('hang');
  await store.close();
  const again = new FaultyStateStore(new MemoryStateStore({ clock: new FakeClock() }));
  await again.open();
  again.setFault('hang', ['close']);
  const closing = track(again.close());
  await flushMicrotasks();
  assert.equal(closing.settled(), false);
  again.setFault('eacces', [Symbol.asyncDispose]);
  await assert.rejects(closing.result, { code: 'EACCES', syscall: 'close' });
  again.setFault('none');
  await again[Symbol.asyncDispose]();
  assert.equal(again.calls('close'), 2, 'asyncDispose counts as close');
});

void test('calls are counted per operation, faulted or not', async () => {
  const { store } = await openStore();
  await store.append('runs/a', { n: 1 });
  await store.list('runs/a');
  await store.list('runs/a');
  store.setFault('eio', ['list']);
  await assert.rejects(store.list('runs/a'));
  assert.equal(store.calls('open'), 1);
  assert.equal(store.calls('append'), 1);
  assert.equal(store.calls('list'), 3);
  assert.equal(store.calls('getDocument'), 0);
  assert.equal(store.calls(), 5);
  assert.equal(store.faultedCalls('list'), 1);
  assert.equal(store.faultedCalls(), 1);
  store.resetCalls();
  assert.equal(store.calls(), 0);
  assert.equal(store.faultedCalls(), 0);
  assert.equal(store.fault, 'eio');
  store.setFault('none');
  await store.close();
});

void test('untilHeld() waits for calls issued in the background', async () => {
  const { store } = await openStore();
  store.setFault('hang', ['getDocument']);
  let reached = false;
  const waiting = store.untilHeld(2).then(() => {
    reached = true;
  });
  const first = store.getDocument('kv', 'a');
  await flushMicrotasks();
  assert.equal(reached, false);
  const second = store.getDocument('kv', 'b');
  await waiting;
  assert.equal(reached, true);
  await store.untilHeld(1); // already true: resolves at once
  store.release();
  assert.deepEqual(await Promise.all([first, second]), [undefined, undefined]);
  await store.close();
});
