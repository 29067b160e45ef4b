// The one contract every StateStore is held to (DESIGN §3): run by store-memory.test.ts and
// store-fs.test.ts, and by any wrapper's tests. Time moves only through the FakeClock.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { isYacronError, type ErrorCode } from '../common/errors.js';
import { FakeClock } from '../common/fake-clock.js';
import type { StateStore } from './types.js';

export interface ContractStore {
  readonly store: StateStore;
  /** Called after the store is closed (remove temp dirs). */
  readonly dispose?: () => Promise<void>;
}

/** Build a fresh, not yet opened, empty store on `clock`. */
export type MakeStore = (clock: FakeClock) => Promise<ContractStore>;

const START_MS = Date.UTC(2026, 0, 1, 12);

async function withStore(
  makeStore: MakeStore,
  body: (store: StateStore, clock: FakeClock) => Promise<void>,
): Promise<void> {
  const clock = new FakeClock(START_MS);
  const made = await makeStore(clock);
  await made.store.open();
  try {
    await body(made.store, clock);
  } finally {
    await made.store.close();
    await made.dispose?.();
  }
}

function rejectsWith(code: ErrorCode): (error: unknown) => boolean {
  return (error) => isYacronError(error, code);
}

export function storeContract(name: string, makeStore: MakeStore): void {
  const it = (
    title: string,
    body: (store: StateStore, clock: FakeClock) => Promise<void>,
  ): void => {
    test(title, () => withStore(makeStore, body));
  };

  describe(`${name} honours the StateStore contract`, () => {
    describe('streams', () => {
      it('append() returns the stored record and list() gives records newest first', async (store, clock) => {
        const first = await store.append('runs/backup', { n: 1 });
        assert.equal(first.stream, 'runs/backup');
        assert.equal(first.writtenAtMs, START_MS);
        assert.deepEqual(first.data, { n: 1 });
        await clock.advance(5);
        await store.append('runs/backup', { n: 2 });
        await store.append('runs/backup', { n: 3 });
        const listed = await store.list('runs/backup');
        assert.deepEqual(
          listed.map((record) => record.data.n),
          [3, 2, 1],
        );
        assert.equal(listed[2]!.id, first.id);
        assert.equal(listed[0]!.writtenAtMs, START_MS + 5);
        assert.deepEqual(await store.list('runs/other'), []);
      });

      it('list() is bounded by limit', async (store) => {
        for (let n = 0; n < 10; n++) await store.append('s', { n });
        assert.deepEqual(
          (await store.list('s', { limit: 3 })).map((record) => record.data.n),
          [9, 8, 7],
        );
        assert.deepEqual(await store.list('s', { limit: 0 }), []);
        assert.equal((await store.list('s', { limit: 100 })).length, 10);
      });

      it('record ids stay in write order when the wall clock steps backwards', async (store, clock) => {
        await store.append('s', { n: 1 });
        clock.setWall(START_MS - 60_000);
        await store.append('s', { n: 2 });
        const [newest, oldest] = await store.list('s');
        assert.equal(newest!.data.n, 2);
        assert.ok(newest!.id > oldest!.id);
      });

      it('data round-trips through JSON; non-objects and cycles are refused', async (store) => {
        const record = await store.append('s', {
          text: 'é🙂',
          nested: { list: [1, null, 'x'] },
          gone: undefined,
          at: new Date(START_MS),
        });
        const expected = {
          text: 'é🙂',
          nested: { list: [1, null, 'x'] },
          at: '2026-01-01T12:00:00.000Z',
        };
        assert.deepEqual(record.data, expected);
        assert.deepEqual((await store.list('s'))[0]!.data, expected);
        for (const bad of [null, [1, 2], 5, 'text'] as unknown[]) {
          await assert.rejects(
            store.append('s', bad as object),
            rejectsWith('YC_ERR_STATE_VALUE_INVALID'),
          );
        }
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await assert.rejects(store.append('s', cyclic), rejectsWith('YC_ERR_STATE_VALUE_INVALID'));
        assert.equal((await store.list('s')).length, 1);
      });

      it('100 concurrent appends to one stream all land with distinct ids', async (store) => {
        await Promise.all(Array.from({ length: 100 }, (_, n) => store.append('s', { n })));
        const listed = await store.list('s');
        assert.equal(listed.length, 100);
        assert.equal(new Set(listed.map((record) => record.id)).size, 100);
        assert.deepEqual(
          listed.map((record) => record.data.n as number).sort((a, b) => a - b),
          Array.from({ length: 100 }, (_, n) => n),
        );
      });

      it('deriveMax() is the max of a field, ignoring records without a comparable value', async (store, clock) => {
        assert.equal(await store.deriveMax('s', 'at'), undefined);
        await store.append('s', { at: 30, outcome: 'success' });
        await clock.advance(1);
        await store.append('s', { at: 50, outcome: 'cancelled' });
        await store.append('s', { at: 'not-a-number-but-a-string' });
        await store.append('s', { other: 99 });
        await store.append('s', { at: null });
        await store.append('s', { at: 10, outcome: 'failure' });
        const max = await store.deriveMax('s', 'at');
        assert.equal(max?.value, 50);
        assert.equal(max?.record.data.outcome, 'cancelled');
        const real = await store.deriveMax('s', 'at', {
          where: (data) => data.outcome !== 'cancelled' && typeof data.at === 'number',
        });
        assert.equal(real?.value, 30);
        await store.append('iso', { finished_at: '2026-01-01T10:00:00Z' });
        await store.append('iso', { finished_at: '2026-01-02T09:00:00Z' });
        await store.append('iso', { finished_at: '2025-12-31T23:00:00Z' });
        assert.equal((await store.deriveMax('iso', 'finished_at'))?.value, '2026-01-02T09:00:00Z');
      });

      it('deriveMax() picks the newest record on a tie', async (store) => {
        await store.append('s', { at: 5, which: 'old' });
        await store.append('s', { at: 5, which: 'new' });
        assert.equal((await store.deriveMax('s', 'at'))?.record.data.which, 'new');
      });

      it('prune() keeps the newest N records and reports how many it deleted', async (store) => {
        for (let n = 0; n < 7; n++) await store.append('s', { n });
        assert.equal(await store.prune('s', 3), 4);
        assert.deepEqual(
          (await store.list('s')).map((record) => record.data.n),
          [6, 5, 4],
        );
        assert.equal(await store.prune('s', 3), 0);
        assert.equal(await store.prune('absent', 3), 0);
        assert.equal(await store.prune('s', 0), 3);
        assert.deepEqual(await store.list('s'), []);
        await assert.rejects(store.prune('s', -1), rejectsWith('YC_ERR_STATE_VALUE_INVALID'));
      });

      it('deleteStream() removes a stream, which can then be written again', async (store) => {
        await store.append('runs/a', { n: 1 });
        assert.equal(await store.deleteStream('runs/a'), true);
        assert.equal(await store.deleteStream('runs/a'), false);
        assert.deepEqual(await store.list('runs/a'), []);
        assert.deepEqual(await store.listStreams(), ['meta'], 'only the version stamp is left');
        await store.append('runs/a', { n: 2 });
        assert.deepEqual(
          (await store.list('runs/a')).map((record) => record.data.n),
          [2],
        );
      });

      it('listStreams() keeps hostile names distinct and filters by prefix', async (store) => {
        const names = [
          'runs/Backup',
          'runs/backup',
          'runs/CON',
          'runs/..',
          'runs/a/b',
          'runs/日本',
          'logs/x',
          '.',
          'meta2',
        ];
        for (const stream of names) await store.append(stream, { stream });
        assert.deepEqual(await store.listStreams(), [...names, 'meta'].sort());
        assert.deepEqual(
          await store.listStreams('runs/'),
          names.filter((n) => n.startsWith('runs/')).sort(),
        );
        for (const stream of names) {
          const [only, ...rest] = await store.list(stream);
          assert.equal(rest.length, 0, stream);
          assert.equal(only!.data.stream, stream);
        }
      });

      it('empty names are refused', async (store) => {
        await assert.rejects(store.append('', {}), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
        await assert.rejects(store.list(''), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
        await assert.rejects(store.getDoc(''), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
        await assert.rejects(
          store.acquireLease('', 'h', 1000),
          rejectsWith('YC_ERR_STATE_NAME_INVALID'),
        );
      });
    });

    describe('documents', () => {
      it('putDoc() then getDoc() returns the value, its version and write time', async (store, clock) => {
        assert.equal(await store.getDoc('kv/job/a'), undefined);
        await clock.advance(1000);
        const put = await store.putDoc('kv/job/a', { n: 1 });
        assert.ok(put.ok);
        const doc = await store.getDoc('kv/job/a');
        assert.deepEqual(doc, {
          key: 'kv/job/a',
          value: { n: 1 },
          version: put.version,
          updatedAtMs: START_MS + 1000,
        });
        for (const value of ['text', 42, null, [1, 'two'], true]) {
          await store.putDoc('kv/job/b', value);
          assert.deepEqual((await store.getDoc('kv/job/b'))?.value, value);
        }
        await assert.rejects(
          store.putDoc('kv/job/c', undefined),
          rejectsWith('YC_ERR_STATE_VALUE_INVALID'),
        );
      });

      it('create-if-absent (expectedVersion: null) lets exactly one writer win', async (store) => {
        const first = await store.putDoc('idem/k', 'first', { expectedVersion: null });
        assert.ok(first.ok);
        const second = await store.putDoc('idem/k', 'second', { expectedVersion: null });
        assert.equal(second.ok, false);
        assert.equal(second.ok ? undefined : second.current?.value, 'first');
        const racers = await Promise.all(
          Array.from({ length: 10 }, (_, n) =>
            store.putDoc('idem/race', n, { expectedVersion: null }),
          ),
        );
        assert.equal(racers.filter((result) => result.ok).length, 1);
      });

      it('compare-and-set conflicts on a stale version and returns the current document', async (store) => {
        const v1 = await store.putDoc('cursor', 1);
        assert.ok(v1.ok);
        const v2 = await store.putDoc('cursor', 2, { expectedVersion: v1.version });
        assert.ok(v2.ok);
        assert.notEqual(v2.version, v1.version);
        const stale = await store.putDoc('cursor', 3, { expectedVersion: v1.version });
        assert.equal(stale.ok, false);
        assert.deepEqual(stale.ok ? undefined : stale.current, await store.getDoc('cursor'));
        assert.equal((await store.getDoc('cursor'))?.value, 2);
        const absent = await store.putDoc('nothing', 1, { expectedVersion: v2.version });
        assert.deepEqual(absent, { ok: false, current: undefined });
      });

      it('concurrent CAS increments lose no update', async (store) => {
        await store.putDoc('counter', 0);
        const increment = async (): Promise<void> => {
          for (;;) {
            const doc = (await store.getDoc('counter'))!;
            const result = await store.putDoc('counter', (doc.value as number) + 1, {
              expectedVersion: doc.version,
            });
            if (result.ok) return;
          }
        };
        await Promise.all(Array.from({ length: 20 }, increment));
        assert.equal((await store.getDoc('counter'))?.value, 20);
      });

      it('versions are never reused across delete and re-create (no ABA)', async (store) => {
        const old = await store.putDoc('k', 'a', { expectedVersion: null });
        assert.ok(old.ok);
        assert.deepEqual(await store.deleteDoc('k'), { ok: true, existed: true });
        const again = await store.putDoc('k', 'b', { expectedVersion: null });
        assert.ok(again.ok);
        assert.notEqual(again.version, old.version);
        assert.equal((await store.putDoc('k', 'c', { expectedVersion: old.version })).ok, false);
      });

      it('deleteDoc() honours an expected version', async (store) => {
        const put = await store.putDoc('k', 1);
        assert.ok(put.ok);
        const conflict = await store.deleteDoc('k', { expectedVersion: 'not-it' });
        assert.equal(conflict.ok, false);
        assert.deepEqual(await store.deleteDoc('k', { expectedVersion: put.version }), {
          ok: true,
          existed: true,
        });
        assert.deepEqual(await store.deleteDoc('k'), { ok: true, existed: false });
        assert.equal((await store.deleteDoc('k', { expectedVersion: put.version })).ok, false);
      });

      it('listDocs() lists keys sorted, by prefix', async (store) => {
        for (const key of ['kv/b/x', 'kv/a/Y', 'cursor/a/w', 'kv/a/x']) await store.putDoc(key, 1);
        assert.deepEqual(await store.listDocs(), ['cursor/a/w', 'kv/a/Y', 'kv/a/x', 'kv/b/x']);
        assert.deepEqual(await store.listDocs('kv/a/'), ['kv/a/Y', 'kv/a/x']);
      });
    });

    describe('blobs', () => {
      it('putBlob() stores content by sha256; identical bytes are stored once', async (store, clock) => {
        const bytes = new TextEncoder().encode('report,1\n');
        const sha = await store.putBlob(bytes);
        assert.equal(sha, createHash('sha256').update(bytes).digest('hex'));
        assert.deepEqual(await store.getBlob(sha), bytes);
        assert.equal(await store.hasBlob(sha), true);
        const [info] = await store.listBlobs();
        assert.deepEqual(info, {
          sha256: sha,
          sizeBytes: bytes.byteLength,
          modifiedAtMs: START_MS,
        });
        await clock.advance(60_000);
        assert.equal(await store.putBlob(Uint8Array.from(bytes)), sha);
        const blobs = await store.listBlobs();
        assert.equal(blobs.length, 1);
        assert.equal(blobs[0]!.modifiedAtMs, START_MS + 60_000, 're-publishing refreshes the age');
        assert.equal(await store.deleteBlob(sha), true);
        assert.equal(await store.deleteBlob(sha), false);
        assert.equal(await store.getBlob(sha), undefined);
        assert.equal(await store.hasBlob(sha), false);
        const empty = await store.putBlob(new Uint8Array());
        assert.deepEqual(await store.getBlob(empty), new Uint8Array());
      });

      it('blob names must be sha256 hex (never a path)', async (store) => {
        for (const bad of ['../../etc/passwd', 'ABC', 'a'.repeat(63), 'A'.repeat(64)]) {
          await assert.rejects(store.getBlob(bad), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
          await assert.rejects(store.deleteBlob(bad), rejectsWith('YC_ERR_STATE_NAME_INVALID'));
        }
      });
    });

    describe('leases', () => {
      it('a first acquire starts tenure 1 and blocks other holders until the TTL passes', async (store, clock) => {
        const a = await store.acquireLease('slots/job', 'node-a', 30_000);
        assert.deepEqual(a, {
          acquired: true,
          holder: 'node-a',
          fence: 1,
          expiresAtMs: START_MS + 30_000,
          fresh: true,
        });
        await clock.advance(29_999);
        const b = await store.acquireLease('slots/job', 'node-b', 30_000);
        assert.deepEqual(b, {
          acquired: false,
          holder: 'node-a',
          fence: 1,
          expiresAtMs: START_MS + 30_000,
          fresh: false,
        });
        await clock.advance(1);
        const taken = await store.acquireLease('slots/job', 'node-b', 30_000);
        assert.deepEqual(taken, {
          acquired: true,
          holder: 'node-b',
          fence: 2,
          expiresAtMs: START_MS + 60_000,
          fresh: true,
          previousHolder: 'node-a',
        });
      });

      it('re-acquiring a held lease extends it without moving the fence', async (store, clock) => {
        await store.acquireLease('l', 'a', 10_000);
        await clock.advance(5_000);
        const again = await store.acquireLease('l', 'a', 10_000);
        assert.deepEqual(again, {
          acquired: true,
          holder: 'a',
          fence: 1,
          expiresAtMs: START_MS + 15_000,
          fresh: false,
        });
        await clock.advance(10_000);
        const afterExpiry = await store.acquireLease('l', 'a', 10_000);
        assert.equal(afterExpiry.fence, 2, 'a new tenure of the same holder is a new fence');
        assert.equal(afterExpiry.fresh, true);
        assert.equal(afterExpiry.previousHolder, undefined);
      });

      it('fences strictly increase across holders, releases and expiries', async (store, clock) => {
        let last = 0;
        const holders = ['a', 'b', 'c'];
        for (let round = 0; round < 12; round++) {
          const holder = holders[round % 3]!;
          const result = await store.acquireLease('l', holder, 1000);
          assert.ok(result.acquired);
          assert.ok(result.fence > last, `round ${round}: ${result.fence} > ${last}`);
          last = result.fence;
          if (round % 2 === 0) assert.ok(await store.releaseLease('l', holder, result.fence));
          else await clock.advance(1000);
        }
        assert.equal((await store.inspectLease('l'))?.fence, last);
      });

      it('renewLease() extends only the current tenure', async (store, clock) => {
        const a = await store.acquireLease('l', 'a', 1000);
        await clock.advance(500);
        const renewed = await store.renewLease('l', 'a', a.fence, 1000);
        assert.deepEqual(renewed, {
          acquired: true,
          holder: 'a',
          fence: 1,
          expiresAtMs: START_MS + 1500,
          fresh: false,
        });
        assert.equal((await store.renewLease('l', 'a', a.fence + 1, 1000)).acquired, false);
        assert.equal((await store.renewLease('l', 'b', a.fence, 1000)).acquired, false);
        await clock.advance(2000);
        const lateButUntaken = await store.renewLease('l', 'a', a.fence, 1000);
        assert.equal(lateButUntaken.acquired, true, 'nobody took it over: the fence proves it');
        await clock.advance(1000);
        const b = await store.acquireLease('l', 'b', 1000);
        assert.equal(b.fence, 2);
        const stale = await store.renewLease('l', 'a', a.fence, 1000);
        assert.deepEqual(stale, {
          acquired: false,
          holder: 'b',
          fence: 2,
          expiresAtMs: START_MS + 4500,
          fresh: false,
        });
        assert.equal((await store.renewLease('absent', 'a', 1, 1000)).acquired, false);
      });

      it('releaseLease() frees the lease for others but keeps the fence', async (store) => {
        const a = await store.acquireLease('l', 'a', 60_000);
        assert.equal(await store.releaseLease('l', 'b', a.fence), false);
        assert.equal(await store.releaseLease('l', 'a', a.fence + 1), false);
        assert.equal(await store.releaseLease('l', 'a', a.fence), true);
        assert.equal(await store.releaseLease('l', 'a', a.fence), false);
        const state = await store.inspectLease('l');
        assert.equal(state?.holder, null);
        assert.equal(state?.fence, 1);
        const b = await store.acquireLease('l', 'b', 60_000);
        assert.equal(b.fence, 2);
        assert.equal(
          b.previousHolder,
          undefined,
          'a released lease has no previous holder to reconcile',
        );
      });

      it('concurrent acquires by different holders: exactly one wins', async (store) => {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, n) => store.acquireLease('race', `h${n}`, 30_000)),
        );
        const winners = results.filter((result) => result.acquired);
        assert.equal(winners.length, 1);
        assert.equal(winners[0]!.fence, 1);
        for (const loser of results.filter((result) => !result.acquired)) {
          assert.equal(loser.holder, winners[0]!.holder);
        }
      });

      it('inspect, list and delete', async (store, clock) => {
        assert.equal(await store.inspectLease('slots/a'), undefined);
        await store.acquireLease('slots/a', 'h', 1000);
        await store.acquireLease('slots/B', 'h', 1000);
        await store.acquireLease('dagadvance/d/1', 'h', 1000);
        assert.deepEqual(await store.inspectLease('slots/a'), {
          name: 'slots/a',
          holder: 'h',
          fence: 1,
          expiresAtMs: START_MS + 1000,
          updatedAtMs: START_MS,
        });
        assert.deepEqual(
          (await store.listLeases('slots/')).map((lease) => lease.name),
          ['slots/B', 'slots/a'],
        );
        assert.equal((await store.listLeases()).length, 3);
        assert.equal(await store.deleteLease('dagadvance/d/1'), true);
        assert.equal(await store.deleteLease('dagadvance/d/1'), false);
        await clock.advance(1);
        assert.equal((await store.acquireLease('dagadvance/d/1', 'h2', 1000)).fence, 1);
      });

      it('bad TTLs and holders are refused', async (store) => {
        for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
          await assert.rejects(
            store.acquireLease('l', 'a', ttl),
            rejectsWith('YC_ERR_STATE_VALUE_INVALID'),
          );
        }
        await assert.rejects(
          store.acquireLease('l', '', 1000),
          rejectsWith('YC_ERR_STATE_VALUE_INVALID'),
        );
      });
    });

    describe('lifecycle and inventory', () => {
      it('describe() counts what the store holds', async (store) => {
        await store.append('runs/a', { n: 1 });
        await store.append('runs/a', { n: 2 });
        await store.append('runs/b', { n: 1 });
        await store.putDoc('kv/x', 1);
        await store.putBlob(new Uint8Array([1, 2, 3]));
        await store.acquireLease('l', 'h', 1000);
        const description = await store.describe();
        assert.equal(description.schemaVersion, 'v1');
        assert.ok(['filesystem', 'memory'].includes(description.backend));
        assert.equal(description.namespace, 'default');
        const { counts } = description;
        assert.equal(counts.streams, 3, 'runs/a, runs/b and the meta stamp');
        assert.equal(counts.records, 4);
        assert.equal(counts.docs, 1);
        assert.equal(counts.blobs, 1);
        assert.equal(counts.leases, 1);
        assert.equal(counts.quarantined, 0);
        assert.equal(counts.tempFiles, 0);
        assert.deepEqual(description.warnings, []);
      });

      it('operations on a closed store reject with YC_ERR_STATE_CLOSED; close is idempotent', async (store) => {
        await store.close();
        await store.close();
        await assert.rejects(store.append('s', {}), rejectsWith('YC_ERR_STATE_CLOSED'));
        await assert.rejects(
          store.acquireLease('l', 'h', 1000),
          rejectsWith('YC_ERR_STATE_CLOSED'),
        );
        await store.open();
        await store.append('s', { n: 1 });
        assert.equal((await store.list('s')).length, 1, 'reopening finds the data');
      });

      it('works with `await using`', async () => {
        const clock = new FakeClock(START_MS);
        const made = await makeStore(clock);
        {
          await using store = made.store;
          await store.open();
          await store.append('s', {});
        }
        await assert.rejects(made.store.list('s'), rejectsWith('YC_ERR_STATE_CLOSED'));
        await made.dispose?.();
      });
    });
  });
}
