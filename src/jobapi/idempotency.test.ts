import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STORE_KINDS, withFixture } from './job-api-fixture.test.js';

for (const kind of STORE_KINDS) {
  void describe(`job API /v1/idempotency over ${kind === 'fs' ? 'FsStateStore' : 'MemoryStateStore'}`, () => {
    void test('the first claim is fresh; later claims are not and report the original claimedAt', () =>
      withFixture(kind, async ({ startRun, clock }) => {
        const first = startRun();
        const claimedAt = clock.now() / 1000;
        assert.deepEqual((await first.post('/v1/idempotency/claim', { key: 'charge' })).json(), {
          fresh: true,
          claimedAt,
        });
        await clock.advance(60_000);
        const second = startRun();
        assert.deepEqual((await second.post('/v1/idempotency/claim', { key: 'charge' })).json(), {
          fresh: false,
          claimedAt,
        });
      }));

    void test('a permanent claim (ttl 0 or absent) never expires', () =>
      withFixture(kind, async ({ startRun, clock }) => {
        const run = startRun();
        await run.post('/v1/idempotency/claim', { key: 'k', ttl: 0 });
        await clock.advance(365 * 86_400_000);
        assert.equal((await run.post('/v1/idempotency/claim', { key: 'k' })).json().fresh, false);
      }));

    void test('a claim whose ttl has run out is re-won as fresh', () =>
      withFixture(kind, async ({ startRun, clock }) => {
        const run = startRun();
        assert.equal(
          (await run.post('/v1/idempotency/claim', { key: 'k', ttl: 30 })).json().fresh,
          true,
        );
        await clock.advance(29_000);
        assert.equal(
          (await run.post('/v1/idempotency/claim', { key: 'k', ttl: 30 })).json().fresh,
          false,
        );
        await clock.advance(1_000);
        const rewon = await run.post('/v1/idempotency/claim', { key: 'k', ttl: 30 });
        assert.deepEqual(rewon.json(), { fresh: true, claimedAt: clock.now() / 1000 });
      }));

    void test('release drops the claim so the key can be won again', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        await run.post('/v1/idempotency/claim', { key: 'k' });
        assert.deepEqual((await run.post('/v1/idempotency/release', { key: 'k' })).json(), {
          released: true,
        });
        assert.deepEqual((await run.post('/v1/idempotency/release', { key: 'k' })).json(), {
          released: false,
        });
        assert.equal((await run.post('/v1/idempotency/claim', { key: 'k' })).json().fresh, true);
      }));

    void test('of many simultaneous claims exactly one is fresh', () =>
      withFixture(kind, async ({ startRun }) => {
        const runs = Array.from({ length: 12 }, () => startRun());
        const replies = await Promise.all(
          runs.map((run) => run.post('/v1/idempotency/claim', { key: 'once', scope: 'global' })),
        );
        assert.equal(replies.filter((reply) => reply.json().fresh === true).length, 1);
      }));

    void test('the claim is the reference document idem/<scope> key: {claimedAt, key[, expiresAt]}', () =>
      withFixture(kind, async ({ startRun, inner, clock }) => {
        const run = startRun({ name: 'billing' });
        await run.post('/v1/idempotency/claim', { key: 'k', ttl: 10 });
        assert.deepEqual((await inner.getDocument('idem/billing', 'k'))?.body, {
          claimedAt: clock.now() / 1000,
          expiresAt: clock.now() / 1000 + 10,
          key: 'k',
        });
        await run.post('/v1/idempotency/claim', { key: 'forever' });
        assert.deepEqual((await inner.getDocument('idem/billing', 'forever'))?.body, {
          claimedAt: clock.now() / 1000,
          key: 'forever',
        });
      }));

    void test('ttl must be a non-negative number; key is required; scopes are checked', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        const cases: [unknown, number, string][] = [
          [{ key: 'k', ttl: 'soon' }, 400, 'ttl must be a number'],
          [{ key: 'k', ttl: [1] }, 400, 'ttl must be a number'],
          [{ key: 'k', ttl: -1 }, 400, 'ttl must not be negative'],
          [{ ttl: 5 }, 400, 'key is required'],
        ];
        for (const [body, status, error] of cases) {
          const reply = await run.post('/v1/idempotency/claim', body);
          assert.equal(reply.status, status, JSON.stringify(body));
          assert.deepEqual(reply.json(), { error });
        }
        assert.equal(
          (await run.post('/v1/idempotency/claim', { key: 'k', ttl: '30' })).status,
          200,
        );
        assert.equal(
          (await run.post('/v1/idempotency/claim', { key: 'k', scope: 'other' })).status,
          403,
        );
      }));
  });
}
