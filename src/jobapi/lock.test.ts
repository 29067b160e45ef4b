import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { flushMicrotasks } from '../common/index.js';
import {
  STORE_KINDS,
  TEST_PROCESS_TOKEN,
  withFixture,
  type TestRun,
} from './job-api-fixture.test.js';
import { renewEveryMs } from './lock-holds.js';
import { lockRetryMs } from './routes-lock.js';

function acquire(run: TestRun, body: Record<string, unknown>) {
  return run.post('/v1/lock/acquire', body);
}

void describe('lock timing rules', () => {
  void test('holds renew at max(1 s, ttl/3); waiters retry every min(1, max(0.05, ttl/10)) s', () => {
    assert.equal(renewEveryMs(30_000), 10_000);
    assert.equal(renewEveryMs(2_000), 1_000);
    assert.equal(lockRetryMs(30_000), 1_000);
    assert.equal(lockRetryMs(5_000), 500);
    assert.equal(lockRetryMs(100), 50);
  });
});

for (const kind of STORE_KINDS) {
  void describe(`job API /v1/lock over ${kind === 'fs' ? 'FsStateStore' : 'MemoryStateStore'}`, () => {
    void test('a mutex excludes a second run until the first releases it', () =>
      withFixture(kind, async ({ startRun, inner }) => {
        const first = startRun();
        const second = startRun();
        const held = (await acquire(first, { name: 'db' })).json();
        assert.equal(held.acquired, true);
        assert.match(held.token, /^[0-9a-f]{32}$/);
        assert.equal(held.slot, 0);
        assert.equal(held.fence, 1);
        assert.equal(held.ttl, 30);
        assert.equal((await inner.inspectLease('lock/etl/db#0'))?.fence, 1);
        assert.deepEqual((await acquire(second, { name: 'db' })).json(), { acquired: false });
        const released = await first.post('/v1/lock/release', { token: held.token });
        assert.deepEqual(released.json(), { released: true });
        const next = (await acquire(second, { name: 'db' })).json();
        assert.equal(next.acquired, true);
        assert.equal(next.fence, 2, 'a new tenure moves the fence');
      }));

    void test('two acquires by the same run are two holds that exclude each other', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        assert.equal((await acquire(run, { name: 'db' })).json().acquired, true);
        assert.equal((await acquire(run, { name: 'db' })).json().acquired, false);
      }));

    void test("release of a token that is not this run's hold is false", () =>
      withFixture(kind, async ({ startRun }) => {
        const owner = startRun();
        const other = startRun();
        const { token } = (await acquire(owner, { name: 'db' })).json();
        assert.deepEqual((await other.post('/v1/lock/release', { token })).json(), {
          released: false,
        });
        assert.deepEqual((await owner.post('/v1/lock/release', { token: 'f'.repeat(32) })).json(), {
          released: false,
        });
        assert.deepEqual((await owner.post('/v1/lock/release', { token })).json(), {
          released: true,
        });
        assert.deepEqual((await owner.post('/v1/lock/release', { token })).json(), {
          released: false,
        });
        assert.deepEqual((await owner.post('/v1/lock/release', {})).json(), {
          error: 'token is required',
        });
      }));

    void test('a semaphore with permits 2 never grants a third concurrent hold', () =>
      withFixture(kind, async ({ startRun }) => {
        const runs = Array.from({ length: 6 }, () => startRun());
        const replies = await Promise.all(
          runs.map((run) => acquire(run, { name: 'pool', permits: 2, scope: 'global' })),
        );
        const granted = replies
          .map((reply) => reply.json() as { acquired: boolean; slot?: number })
          .filter((reply) => reply.acquired);
        assert.equal(granted.length, 2);
        assert.deepEqual(granted.map((reply) => reply.slot).sort(), [0, 1]);
        const late = startRun();
        assert.equal(
          (await acquire(late, { name: 'pool', permits: 2, scope: 'global' })).json().acquired,
          false,
        );
      }));

    void test('a permit is the lease lock/<scope>/<name>#<slot>, held by <host>#<proc>#<32 hex> per hold', () =>
      withFixture(kind, async ({ startRun, inner }) => {
        const run = startRun();
        await acquire(run, { name: 'db' });
        await acquire(run, { name: 'pool', permits: 2 });
        await acquire(run, { name: 'pool', permits: 2 });
        const holders = (await inner.listLeases('lock/etl/')).map((lease) => lease.holder);
        assert.equal(holders.length, 3);
        for (const holder of holders) {
          assert.match(holder, new RegExp(`^test-host#${TEST_PROCESS_TOKEN}#[0-9a-f]{32}$`));
        }
        assert.equal(new Set(holders).size, 3, 'each hold has its own holder');
        assert.deepEqual(
          (await inner.listLeases('lock/etl/')).map((lease) => lease.name),
          ['lock/etl/db#0', 'lock/etl/pool#0', 'lock/etl/pool#1'],
        );
      }));

    void test('runEnded frees the permits a run held at once', () =>
      withFixture(kind, async ({ startRun, api, inner, observed }) => {
        const holder = startRun();
        const waiter = startRun();
        await acquire(holder, { name: 'pool', permits: 2 });
        await acquire(holder, { name: 'pool', permits: 2 });
        assert.equal((await acquire(waiter, { name: 'pool', permits: 2 })).json().acquired, false);
        const bothReleased = observed.settledTimes('releaseLease', 2);
        api.runEnded(holder.runId);
        const after = (await acquire(waiter, { name: 'pool', permits: 2 })).json();
        assert.equal(after.acquired, true);
        assert.equal(after.slot, 0);
        // The waiter's acquire waits only for slot 0's release; slot 1's may still be in flight.
        await bothReleased;
        assert.equal((await inner.inspectLease('lock/etl/pool#1'))?.expiresAtMs, 0, 'released');
      }));

    void test('the daemon renews a hold, so it outlives its TTL while the run lives', () =>
      withFixture(kind, async ({ startRun, clock, observed }) => {
        const holder = startRun();
        const contender = startRun();
        const held = (await acquire(holder, { name: 'db', ttl: 6 })).json();
        assert.equal(held.ttl, 6);
        for (let renewal = 0; renewal < 4; renewal++) {
          const renewed = observed.settled('renewLease');
          await clock.advance(renewEveryMs(6_000));
          await renewed;
        }
        // 8 s after the acquire: past the original 6 s TTL, still held.
        assert.equal((await acquire(contender, { name: 'db' })).json().acquired, false);
      }));

    void test('a requested ttl is floored at 5 s; absent or 0 means lockTtlSeconds', () =>
      withFixture(
        kind,
        async ({ startRun }) => {
          const run = startRun();
          assert.equal((await acquire(run, { name: 'a', ttl: 1 })).json().ttl, 5);
          assert.equal((await acquire(run, { name: 'b', ttl: 0 })).json().ttl, 12);
          assert.equal((await acquire(run, { name: 'c' })).json().ttl, 12);
          assert.equal((await acquire(run, { name: 'd', ttl: 60 })).json().ttl, 60);
        },
        { settings: { lockTtlMs: 12_000 } },
      ));

    void test('a ttl over a day is refused (400) before any lease is taken', () =>
      withFixture(kind, async ({ startRun, observed }) => {
        const run = startRun();
        for (const ttl of [86_401, 1e7]) {
          const reply = await acquire(run, { name: 'db', ttl });
          assert.equal(reply.status, 400);
          assert.deepEqual(reply.json(), { error: 'ttl must be at most 86400 seconds (one day)' });
        }
        assert.equal(observed.calls.includes('acquireLease'), false);
        assert.equal((await acquire(run, { name: 'db', ttl: 86_400 })).json().ttl, 86_400);
      }));

    void test('with wait, an acquire blocks until a permit frees', () =>
      withFixture(kind, async ({ startRun, clock, observed }) => {
        const holder = startRun();
        const waiter = startRun();
        const { token } = (await acquire(holder, { name: 'db' })).json();
        const firstTry = observed.settled('acquireLease');
        const waiting = acquire(waiter, { name: 'db', wait: true, blockSeconds: 60 });
        await firstTry;
        await holder.post('/v1/lock/release', { token });
        const retried = observed.settled('acquireLease');
        await clock.advance(lockRetryMs(30_000));
        await retried;
        const reply = (await waiting).json();
        assert.equal(reply.acquired, true);
      }));

    void test('with wait, blockSeconds bounds the wait', () =>
      withFixture(kind, async ({ startRun, clock, observed }) => {
        const holder = startRun();
        const waiter = startRun();
        await acquire(holder, { name: 'db' });
        let tries = observed.settled('acquireLease');
        const waiting = acquire(waiter, { name: 'db', wait: true, blockSeconds: 2.5 });
        for (let step = 0; step < 3; step++) {
          await tries;
          tries = observed.settled('acquireLease');
          await clock.advance(1000);
        }
        assert.deepEqual((await waiting).json(), { acquired: false });
      }));

    void test('a run that ends while waiting gets {acquired: false, runEnded: true}', () =>
      withFixture(kind, async ({ startRun, api, observed }) => {
        const holder = startRun();
        const waiter = startRun();
        await acquire(holder, { name: 'db' });
        const firstTry = observed.settled('acquireLease');
        const waiting = acquire(waiter, { name: 'db', wait: true });
        await firstTry;
        await flushMicrotasks();
        api.runEnded(waiter.runId);
        assert.deepEqual((await waiting).json(), { acquired: false, runEnded: true });
      }));

    void test('without wait a taken lock answers at once', () =>
      withFixture(kind, async ({ startRun }) => {
        const holder = startRun();
        await acquire(holder, { name: 'db' });
        assert.deepEqual((await acquire(startRun(), { name: 'db', blockSeconds: 30 })).json(), {
          acquired: false,
        });
      }));

    void test('permits, ttl and blockSeconds must be numeric and permits at least 1', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        const cases: [Record<string, unknown>, string][] = [
          [{ name: 'x', permits: 0 }, 'permits must be at least 1'],
          [{ name: 'x', permits: 'many' }, 'permits must be a number'],
          [{ name: 'x', permits: 5000 }, 'permits must be at most 1024'],
          [{ name: 'x', ttl: 'long' }, 'ttl must be a number'],
          [{ name: 'x', blockSeconds: {} }, 'blockSeconds must be a number'],
          [{ permits: 2 }, 'name is required'],
          [{ name: '/etc/x' }, "name must not start with '/'"],
        ];
        for (const [body, error] of cases) {
          const reply = await acquire(run, body);
          assert.equal(reply.status, 400, JSON.stringify(body));
          assert.deepEqual(reply.json(), { error });
        }
        assert.equal((await acquire(run, { name: 'x', scope: 'nope' })).status, 403);
      }));

    void test('close() releases every hold', () =>
      withFixture(kind, async ({ startRun, api, inner }) => {
        const run = startRun();
        await acquire(run, { name: 'db' });
        await api.close();
        assert.equal((await inner.inspectLease('lock/etl/db#0'))?.expiresAtMs, 0, 'released');
      }));
  });
}
