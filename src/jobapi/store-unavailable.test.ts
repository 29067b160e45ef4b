import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock, YacronError, createDeferred } from '../common/index.js';
import { MemoryStateStore, type StateStore } from '../state/index.js';
import { withFixture } from './job-api-fixture.test.js';
import { STORE_CALL_TIMEOUT_MS } from './store-gate.js';

/** A memory store whose reads never answer and whose document updates fail like a broken mount. */
function brokenStore(): StateStore {
  const store = new MemoryStateStore({ clock: new FakeClock() });
  return Object.assign(store, {
    getDocument: () => new Promise<never>(() => undefined),
    updateDocument: () =>
      Promise.reject(new YacronError('YC_ERR_STATE_IO', 'Cannot write document x: EIO')),
  });
}

void describe('job API when the store cannot answer (503, docs/http-api.md "The job API")', () => {
  void test('a store call with no answer within 10 s is 503', () =>
    withFixture(
      'memory',
      async ({ startRun, clock, observed }) => {
        const run = startRun();
        const called = observed.started('getDocument');
        const reply = run.get('/v1/kv/get', { key: 'k' });
        await called;
        await clock.advance(STORE_CALL_TIMEOUT_MS);
        const answer = await reply;
        assert.equal(answer.status, 503);
        assert.deepEqual(answer.json(), {
          error: 'state backend unavailable: Cannot read a key: no answer within 10 s',
        });
      },
      { store: brokenStore() },
    ));

  void test('a store error is 503 with its message', () =>
    withFixture(
      'memory',
      async ({ startRun }) => {
        const reply = await startRun().post('/v1/kv/set', { key: 'k', value: 1 });
        assert.equal(reply.status, 503);
        assert.deepEqual(reply.json(), {
          error: 'state backend unavailable: Cannot write document x: EIO',
        });
      },
      { store: brokenStore() },
    ));

  void test('requests wait for the store to open, then proceed', async () => {
    const opened = createDeferred<boolean>();
    await withFixture(
      'memory',
      async ({ startRun, observed }) => {
        const run = startRun();
        const reply = run.post('/v1/kv/set', { key: 'k', value: 1 });
        const called = observed.started('updateDocument');
        opened.resolve(true);
        await called;
        assert.equal((await reply).status, 200);
      },
      { storeOpened: opened.promise },
    );
  });

  void test('a store still not open after 10 s is 503, and so is one closed before it opened', async () => {
    await withFixture(
      'memory',
      async ({ startRun, clock }) => {
        const run = startRun();
        const armed = clock.nextTimer();
        const reply = run.get('/v1/kv/get', { key: 'k' });
        assert.equal(await armed, STORE_CALL_TIMEOUT_MS);
        await clock.advance(STORE_CALL_TIMEOUT_MS);
        assert.deepEqual((await reply).json(), {
          error: 'state backend unavailable: Cannot open the state store: no answer within 10 s',
        });
      },
      { storeOpened: new Promise<boolean>(() => undefined) },
    );
    await withFixture(
      'memory',
      async ({ startRun }) => {
        const reply = await startRun().get('/v1/kv/get', { key: 'k' });
        assert.equal(reply.status, 503);
        assert.deepEqual(reply.json(), {
          error: 'state backend unavailable: the state store is closed',
        });
      },
      { storeOpened: Promise.resolve(false) },
    );
  });

  void test('routes that need no store work while it is down', () =>
    withFixture(
      'memory',
      async ({ startRun }) => {
        const run = startRun({
          secrets: [{ name: 'S', source: { value: 'v', fromFile: null, fromEnvVar: null } }],
        });
        assert.equal((await run.get('/v1/run')).status, 200);
        assert.equal((await run.get('/v1/secret/get', { name: 'S' })).status, 200);
      },
      { storeOpened: new Promise<boolean>(() => undefined) },
    ));
});
